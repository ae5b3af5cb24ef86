#include "optimist/models/gp/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "optimist/models/linalg.hpp"

namespace optimist {

namespace {

void check_cross_output(const Eigen::Ref<Matrix>& K, const Matrix& X1, const Matrix& X2, const char* who) {
  if (K.rows() != X1.cols() || K.cols() != X2.cols())
    throw InvalidArgument(std::string(who) + ": output of " + std::to_string(K.rows()) + " x " + std::to_string(K.cols()) +
                          " for " + std::to_string(X1.cols()) + " x " + std::to_string(X2.cols()) + " points");
}

const char* const kValidNames = "matern52, matern32, rbf (alias se)";

void check_lengthscales(const Vector& l) {
  if (l.size() == 0) throw InvalidArgument("Kernel: at least one lengthscale is needed");
  for (Eigen::Index i = 0; i < l.size(); ++i)
    if (!(l[i] > 0.0) || !std::isfinite(l[i]))
      throw InvalidArgument("Kernel: lengthscale " + std::to_string(i) + " = " + std::to_string(l[i]) +
                            " must be positive and finite");
}

// A(j, i) = A(i, j) for i > j, in square tiles that stay in the cache.
void mirror_lower_triangle(Matrix& A) {
  constexpr Eigen::Index kTile = 32;
  const Eigen::Index n = A.rows();
  for (Eigen::Index j0 = 0; j0 < n; j0 += kTile)
    for (Eigen::Index i0 = j0; i0 < n; i0 += kTile) {
      const Eigen::Index j1 = std::min(j0 + kTile, n), i1 = std::min(i0 + kTile, n);
      for (Eigen::Index i = i0; i < i1; ++i)
        for (Eigen::Index j = j0; j < std::min(j1, i); ++j) A(j, i) = A(i, j);
    }
}

}  // namespace

KernelType parse_kernel_type(const std::string& name) {
  if (name == "matern52") return KernelType::Matern52;
  if (name == "matern32") return KernelType::Matern32;
  if (name == "rbf" || name == "se") return KernelType::SquaredExponential;
  throw InvalidArgument("unknown kernel '" + name + "'; valid kernels: " + kValidNames);
}

std::string to_string(KernelType type) {
  switch (type) {
    case KernelType::Matern52: return "matern52";
    case KernelType::Matern32: return "matern32";
    case KernelType::SquaredExponential: return "rbf";
  }
  return "?";
}

Kernel::Kernel(Eigen::Index dim, KernelType type) : Kernel(type, Vector::Ones(dim), 1.0) {}

double category_weight(std::size_t k, CategoryDistance distance) {
  if (distance == CategoryDistance::Overlap || k < 2) return 1.0;
  return static_cast<double>(k) / (6.0 * static_cast<double>(k - 1));
}

Kernel::Kernel(KernelType type, const Vector& lengthscales, double outputscale, const std::vector<std::size_t>& categories,
               CategoryDistance distance)
    : type_(type) {
  set_lengthscales(lengthscales);
  set_outputscale(outputscale);
  category_distance_ = distance;
  if (!categories.empty()) set_categories(categories, distance);
}

void Kernel::set_categories(const std::vector<std::size_t>& categories, CategoryDistance distance) {
  if (!kCategoryDistanceNames.contains(distance)) throw InvalidArgument("Kernel: a category distance outside its enum");
  if (!categories.empty() && static_cast<Eigen::Index>(categories.size()) != dim())
    throw InvalidArgument("Kernel: " + std::to_string(categories.size()) + " category counts for dimension " +
                          std::to_string(dim()));
  const bool categorical = std::any_of(categories.begin(), categories.end(), [](std::size_t k) { return k > 0; });
  if (categorical && has_rotation()) throw InvalidArgument("Kernel: a rotation needs ordered inputs, not categories");
  categories_ = categories;
  category_distance_ = distance;
  has_categorical_ = categorical;
  category_weights_ = categorical ? Vector::Zero(dim()) : Vector();
  if (categorical)
    for (Eigen::Index i = 0; i < dim(); ++i) {
      const std::size_t k = categories[static_cast<std::size_t>(i)];
      if (k > 0) category_weights_[i] = category_weight(k, distance);
    }
}

void Kernel::set_rotation(const Matrix& rotation) {
  if (rotation.size() > 0) {
    if (rotation.rows() != dim() || rotation.cols() != dim())
      throw InvalidArgument("Kernel: a rotation of " + std::to_string(rotation.rows()) + " x " +
                            std::to_string(rotation.cols()) + " for dimension " + std::to_string(dim()));
    if (!rotation.allFinite() || !(rotation * rotation.transpose()).isIdentity(1e-8))
      throw InvalidArgument("Kernel: the rotation is not an orthogonal matrix");
    if (has_categorical_) throw InvalidArgument("Kernel: a rotation needs ordered inputs, not categories");
  }
  rotation_ = rotation;
}

double Kernel::scaled_distance(const Vector& a, const Vector& b) const {
  if (has_categorical_) return std::sqrt(squared_distance(a, b));
  const Vector diff = has_rotation() ? Vector(rotation_ * (a - b)) : Vector(a - b);
  return std::sqrt((diff.array().square() * inv_sq_lengthscales_.array()).sum());
}

std::size_t Kernel::category(std::size_t i, double u) const {
  const std::size_t k = categories_[i];
  const double scaled = std::floor(std::clamp(u, 0.0, 1.0) * static_cast<double>(k));
  return std::min(static_cast<std::size_t>(scaled), k - 1);
}

Matrix Kernel::embed(const Matrix& X) const {
  if (has_rotation()) return lengthscales_.cwiseInverse().asDiagonal() * (rotation_ * X);
  if (!has_categorical_) return lengthscales_.cwiseInverse().asDiagonal() * X;
  Eigen::Index rows = 0;
  for (Eigen::Index i = 0; i < dim(); ++i) rows += categories_[static_cast<std::size_t>(i)] > 0 ? static_cast<Eigen::Index>(categories_[static_cast<std::size_t>(i)]) : 1;
  Matrix Z = Matrix::Zero(rows, X.cols());
  Eigen::Index r = 0;
  for (Eigen::Index i = 0; i < dim(); ++i) {
    const std::size_t k = categories_[static_cast<std::size_t>(i)];
    if (k == 0) {
      Z.row(r++) = X.row(i) / lengthscales_[i];
      continue;
    }
    const double v = std::sqrt(category_weights_[i]) / (std::sqrt(2.0) * lengthscales_[i]);
    for (Eigen::Index j = 0; j < X.cols(); ++j) Z(r + static_cast<Eigen::Index>(category(static_cast<std::size_t>(i), X(i, j))), j) = v;
    r += static_cast<Eigen::Index>(k);
  }
  return Z;
}

double Kernel::squared_distance(const Vector& a, const Vector& b) const {
  double r2 = 0.0;
  for (Eigen::Index i = 0; i < dim(); ++i) {
    const auto ii = static_cast<std::size_t>(i);
    if (has_categorical_ && categories_[ii] > 0)
      r2 += category(ii, a[i]) != category(ii, b[i]) ? category_weights_[i] * inv_sq_lengthscales_[i] : 0.0;
    else
      r2 += (a[i] - b[i]) * (a[i] - b[i]) * inv_sq_lengthscales_[i];
  }
  return r2;
}

void Kernel::set_lengthscales(const Vector& lengthscales) {
  check_lengthscales(lengthscales);
  lengthscales_ = lengthscales;
  inv_sq_lengthscales_ = lengthscales.array().square().inverse().matrix();
}

void Kernel::set_outputscale(double outputscale) {
  if (!(outputscale > 0.0) || !std::isfinite(outputscale))
    throw InvalidArgument("Kernel: outputscale " + std::to_string(outputscale) + " must be positive and finite");
  outputscale_ = outputscale;
}

Vector Kernel::log_hyperparameters() const {
  Vector p(num_hyperparameters());
  p.head(dim()) = lengthscales_.array().log().matrix();
  p[dim()] = std::log(outputscale_);
  return p;
}

void Kernel::set_log_hyperparameters(const Vector& log_params) {
  if (log_params.size() != num_hyperparameters())
    throw InvalidArgument("Kernel: expected " + std::to_string(num_hyperparameters()) + " log-hyperparameters, got " +
                          std::to_string(log_params.size()));
  set_lengthscales(log_params.head(dim()).array().exp().matrix());
  set_outputscale(std::exp(log_params[dim()]));
}

double Kernel::profile(double r2, double* drho) const {
  switch (type_) {
    case KernelType::SquaredExponential: {
      const double rho = std::exp(-0.5 * r2);
      if (drho) *drho = -0.5 * rho;
      return rho;
    }
    case KernelType::Matern52: {
      // rho = (1 + sqrt5 r + 5 r^2 / 3) e^{-sqrt5 r}; d rho / d r^2 = -(5/6)(1 + sqrt5 r) e^{-sqrt5 r}.
      const double a = std::sqrt(5.0) * std::sqrt(r2), e = std::exp(-a);
      if (drho) *drho = -(5.0 / 6.0) * (1.0 + a) * e;
      return (1.0 + a + (5.0 / 3.0) * r2) * e;
    }
    case KernelType::Matern32: {
      // rho = (1 + sqrt3 r) e^{-sqrt3 r}; d rho / d r^2 = -(3/2) e^{-sqrt3 r}.
      const double a = std::sqrt(3.0) * std::sqrt(r2), e = std::exp(-a);
      if (drho) *drho = -1.5 * e;
      return (1.0 + a) * e;
    }
  }
  return 0.0;
}

double Kernel::operator()(const Vector& x1, const Vector& x2) const {
  if (has_rotation()) {
    const double r = scaled_distance(x1, x2);
    return outputscale_ * profile(r * r, nullptr);
  }
  const double r2 = has_categorical_ ? squared_distance(x1, x2) : ((x1 - x2).array().square() * inv_sq_lengthscales_.array()).sum();
  return outputscale_ * profile(r2, nullptr);
}

Matrix Kernel::cross(const Matrix& X1, const Matrix& X2) const {
  Matrix K(X1.cols(), X2.cols());
  cross(X1, X2, K);
  return K;
}

void Kernel::cross(const Matrix& X1, const Matrix& X2, Eigen::Ref<Matrix> K) const {
  check_cross_output(K, X1, X2, "Kernel::cross");
  // Scaling once makes each pair a plain squared distance (direct differences, not the
  // |a|^2 + |b|^2 - 2ab expansion, which loses accuracy for nearby points; with glibc's scalar
  // exp this loop also beats a matrix product plus Eigen's vectorized exp).
  const Matrix Z1 = embed(X1);
  const Matrix Z2 = embed(X2);
  for (Eigen::Index j = 0; j < X2.cols(); ++j)
    for (Eigen::Index i = 0; i < X1.cols(); ++i)
      K(i, j) = outputscale_ * profile((Z1.col(i) - Z2.col(j)).squaredNorm(), nullptr);
}

Matrix Kernel::cross_fast(const Matrix& X1, const Matrix& X2) const {
  Matrix K(X1.cols(), X2.cols());
  cross_fast(X1, X2, K);
  return K;
}

void Kernel::cross_fast(const Matrix& X1, const Matrix& X2, Eigen::Ref<Matrix> K) const {
  check_cross_output(K, X1, X2, "Kernel::cross_fast");
  Matrix Z1 = embed(X1), Z2 = embed(X2);
  const Vector centre = Z2.rowwise().mean();
  Z1.colwise() -= centre;
  Z2.colwise() -= centre;
  const Vector n1 = Z1.colwise().squaredNorm().transpose();
  const Vector n2 = Z2.colwise().squaredNorm().transpose();
  // BLAS once X2 (the GP's data in every caller) has kLapackFrom points (linalg.hpp).
  scaled_product(-2.0, Z1, true, Z2, K, X2.cols() >= kLapackFrom);
  K.colwise() += n1;
  K.rowwise() += n2.transpose();
  // The profile entry by entry: glibc's scalar exp beats Eigen's vectorized one here.
  for (Eigen::Index j = 0; j < K.cols(); ++j) {
    double* k = K.col(j).data();  // K may be a block of a larger buffer
    for (Eigen::Index i = 0; i < K.rows(); ++i) k[i] = outputscale_ * profile(std::max(k[i], 0.0), nullptr);
  }
}

void Kernel::gram_with_derivative(const Matrix& X, Matrix& K, Matrix* dK_dr2) const {
  const Eigen::Index n = X.cols();
  const Matrix Z = embed(X);
  K.resize(n, n);
  if (dK_dr2) dK_dr2->resize(n, n);
  double d0 = 0.0;
  const double k0 = outputscale_ * profile(0.0, &d0);
  for (Eigen::Index j = 0; j < n; ++j) {
    K(j, j) = k0;
    if (dK_dr2) (*dK_dr2)(j, j) = outputscale_ * d0;
    for (Eigen::Index i = j + 1; i < n; ++i) {
      double drho = 0.0;
      const double k = outputscale_ * profile((Z.col(i) - Z.col(j)).squaredNorm(), dK_dr2 ? &drho : nullptr);
      K(i, j) = k;
      if (dK_dr2) (*dK_dr2)(i, j) = outputscale_ * drho;
    }
  }
  // The upper triangles are copies, tile by tile: writing K(j, i) next to K(i, j) strode across a
  // row, a cache miss per entry once n x n no longer fits in the cache (each hyperparameter
  // fit's evaluation at n = 1,000 points).
  mirror_lower_triangle(K);
  if (dK_dr2) mirror_lower_triangle(*dK_dr2);
}

Matrix Kernel::gram(const Matrix& X) const {
  Matrix K;
  gram_with_derivative(X, K, nullptr);
  return K;
}

Vector Kernel::cross_with_gradient(const Vector& x, const Matrix& X, Matrix* jac) const {
  const Eigen::Index n = X.cols();
  Vector k(n);
  if (jac) jac->resize(dim(), n);
  Vector diff(dim());
  if (has_categorical_) {
    // Categorical dimensions: r^2 adds w_k [c != c'] / l^2 and the gradient is 0 there.
    Vector mask = Vector::Ones(dim());
    for (Eigen::Index i = 0; i < dim(); ++i)
      if (categories_[static_cast<std::size_t>(i)] > 0) mask[i] = 0.0;
    for (Eigen::Index j = 0; j < n; ++j) {
      diff = (x - X.col(j)).cwiseProduct(mask);
      double drho = 0.0;
      const double r2 = squared_distance(x, X.col(j));
      k[j] = outputscale_ * profile(r2, jac ? &drho : nullptr);
      if (jac) jac->col(j) = (2.0 * outputscale_ * drho) * diff.cwiseProduct(inv_sq_lengthscales_);
    }
    return k;
  }
  // With a rotation r^2 is that of z = Q x, and d r^2 / dx = Q^T (2 (z - z') / l^2).
  const Vector zx = has_rotation() ? Vector(rotation_ * x) : Vector();
  const Matrix zX = has_rotation() ? Matrix(rotation_ * X) : Matrix();
  const Vector& z = has_rotation() ? zx : x;
  const Matrix& Z = has_rotation() ? zX : X;
  for (Eigen::Index j = 0; j < n; ++j) {
    diff = z - Z.col(j);
    double drho = 0.0;
    const double r2 = (diff.array().square() * inv_sq_lengthscales_.array()).sum();
    k[j] = outputscale_ * profile(r2, jac ? &drho : nullptr);
    // d r^2 / dz = 2 (z - z') / l^2.
    if (jac) jac->col(j) = (2.0 * outputscale_ * drho) * diff.cwiseProduct(inv_sq_lengthscales_);
  }
  if (jac && has_rotation()) *jac = rotation_.transpose() * *jac;
  return k;
}

Vector Kernel::gradient_x(const Vector& x, const Vector& x2) const {
  Matrix jac;
  cross_with_gradient(x, x2, &jac);
  return jac.col(0);
}

Vector Kernel::lengthscale_contract(const Matrix& X, const Matrix& M) const {
  // sum_ij M_ij (x_ip - x_jp)^2 = 2 sum_i x_ip^2 m_i - 2 x_p^T M x_p with m = M 1 (M symmetric), one
  // O(d n^2) matrix product for all p. Centering X leaves the left side unchanged and limits
  // cancellation on the right.
  const Matrix Xr = rotated(X);  // the lengthscales' axes
  const Matrix Xc = Xr.colwise() - Xr.rowwise().mean();
  const Vector m = M.rowwise().sum();
  const Matrix XM = Xc * M;
  Vector s(dim());
  for (Eigen::Index p = 0; p < dim(); ++p)
    s[p] = 2.0 * Xc.row(p).array().square().matrix().dot(m) - 2.0 * Xc.row(p).dot(XM.row(p));
  if (has_categorical_) {
    // A categorical p: sum_ij M_ij w_k [c_i != c_j] = w_k (sum(M) - sum_c 1_c^T M 1_c).
    const double total = m.sum();
    for (Eigen::Index p = 0; p < dim(); ++p) {
      const std::size_t k = categories_[static_cast<std::size_t>(p)];
      if (k == 0) continue;
      Matrix onehot = Matrix::Zero(static_cast<Eigen::Index>(k), X.cols());
      for (Eigen::Index j = 0; j < X.cols(); ++j) onehot(static_cast<Eigen::Index>(category(static_cast<std::size_t>(p), X(p, j))), j) = 1.0;
      s[p] = category_weights_[p] * (total - (onehot * M).cwiseProduct(onehot).sum());
    }
  }
  // d r^2_ij / d log l_p = -2 (x_ip - x_jp)^2 / l_p^2.
  return (-2.0 * s.array() * inv_sq_lengthscales_.array()).matrix();
}

Vector Kernel::gram_gradient_contract(const Matrix& X, const Matrix& W) const {
  Matrix K, D;
  gram_with_derivative(X, K, &D);
  Vector g(num_hyperparameters());
  g.head(dim()) = lengthscale_contract(X, W.cwiseProduct(D));
  g[dim()] = W.cwiseProduct(K).sum();  // dK / d log s = K
  return g;
}

std::vector<Matrix> Kernel::gram_gradients(const Matrix& X) const {
  const Eigen::Index n = X.cols();
  Matrix K, D;
  gram_with_derivative(X, K, &D);
  const Matrix Xr = rotated(X);  // the lengthscales' axes
  std::vector<Matrix> out;
  for (Eigen::Index p = 0; p < dim(); ++p) {
    Matrix G(n, n);
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < n; ++i) {
        const bool categorical = has_categorical_ && categories_[static_cast<std::size_t>(p)] > 0;
        const double diff = Xr(p, i) - Xr(p, j);
        const double d2 = categorical ? (category(static_cast<std::size_t>(p), X(p, i)) != category(static_cast<std::size_t>(p), X(p, j)) ? category_weights_[p] : 0.0)
                                      : diff * diff;
        G(i, j) = -2.0 * D(i, j) * d2 * inv_sq_lengthscales_[p];
      }
    out.push_back(std::move(G));
  }
  out.push_back(K);
  return out;
}

}  // namespace optimist
