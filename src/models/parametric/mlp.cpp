#include "optimist/models/parametric/mlp.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <type_traits>
#include <utility>

namespace optimist {

namespace {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Elementwise act(z), act'(z) and, if requested, act''(z); M is Vector or Matrix.
// A plain loop over std::exp/std::tanh: without -msse4.1 Eigen's packet exp for double is no faster
// than glibc's scalar exp, and one pass avoids temporaries.
// Sigmoid and softplus are written in terms of e = exp(-|z|) <= 1, which never overflows and keeps
// full relative precision in both tails (1 - sigmoid(z) is never formed for z >> 0).
template <class M>
void activate(Activation act, const M& z, M& a, std::type_identity_t<M>* d1, std::type_identity_t<M>* d2) {
  a.resize(z.rows(), z.cols());
  if (d1) d1->resize(z.rows(), z.cols());
  if (d2) d2->resize(z.rows(), z.cols());
  const Eigen::Index n = z.size();
  const double* zp = z.data();
  double* ap = a.data();
  double* d1p = d1 ? d1->data() : nullptr;
  double* d2p = d2 ? d2->data() : nullptr;
  switch (act) {
    case Activation::Sigmoid:
      for (Eigen::Index i = 0; i < n; ++i) {
        const double e = std::exp(-std::abs(zp[i])), r = 1.0 / (1.0 + e), ds = e * r * r;
        ap[i] = zp[i] >= 0.0 ? r : e * r;
        if (d1p) d1p[i] = ds;
        // sigmoid'' = sigmoid' (1 - 2 sigmoid), and 1 - 2 sigmoid = -sign(z) (1 - e) / (1 + e).
        if (d2p) d2p[i] = ds * (zp[i] >= 0.0 ? e - 1.0 : 1.0 - e) * r;
      }
      return;
    case Activation::Softplus:
      // softplus(z) = max(z, 0) + log1p(exp(-|z|)); softplus' = sigmoid, softplus'' = sigmoid'.
      for (Eigen::Index i = 0; i < n; ++i) {
        const double e = std::exp(-std::abs(zp[i])), r = 1.0 / (1.0 + e);
        ap[i] = std::max(zp[i], 0.0) + std::log1p(e);
        if (d1p) d1p[i] = zp[i] >= 0.0 ? r : e * r;
        if (d2p) d2p[i] = e * r * r;
      }
      return;
    case Activation::Tanh:
      for (Eigen::Index i = 0; i < n; ++i) {
        const double t = std::tanh(zp[i]), dt = 1.0 - t * t;
        ap[i] = t;
        if (d1p) d1p[i] = dt;
        if (d2p) d2p[i] = -2.0 * t * dt;
      }
      return;
    case Activation::Relu:
      // relu'(0) = 0 by convention; relu'' = 0 almost everywhere.
      for (Eigen::Index i = 0; i < n; ++i) {
        ap[i] = std::max(zp[i], 0.0);
        if (d1p) d1p[i] = zp[i] > 0.0 ? 1.0 : 0.0;
        if (d2p) d2p[i] = 0.0;
      }
      return;
  }
}

}  // namespace

std::string to_string(Activation a) { return kActivationNames.name(a); }

Activation parse_activation(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& [a, spelled] : kActivationNames.entries)
    if (lower == spelled) return a;
  throw InvalidArgument("unknown activation '" + name + "' (valid: " + kActivationNames.joined() + ")");
}

std::size_t Mlp::count_params(std::size_t input_dim, const std::vector<std::size_t>& hidden) {
  std::size_t n = 0, in = input_dim;
  for (std::size_t out : hidden) {
    n += out * in + out;
    in = out;
  }
  return n + in + 1;
}

Mlp::Mlp(std::size_t input_dim, std::vector<std::size_t> hidden, Activation activation)
    : input_dim_(input_dim), hidden_(std::move(hidden)), activation_(activation) {
  if (input_dim_ == 0) throw InvalidArgument("Mlp: input_dim must be at least 1");
  if (hidden_.empty()) throw InvalidArgument("Mlp: the list of hidden layer sizes is empty (at least one layer is needed)");
  Eigen::Index offset = 0, in = static_cast<Eigen::Index>(input_dim_);
  for (std::size_t l = 0; l < hidden_.size(); ++l) {
    if (hidden_[l] == 0) throw InvalidArgument("Mlp: hidden layer " + std::to_string(l) + " has 0 units");
    Layer layer;
    layer.in = in;
    layer.out = static_cast<Eigen::Index>(hidden_[l]);
    layer.weights = offset;
    layer.bias = offset + layer.out * layer.in;
    offset = layer.bias + layer.out;
    in = layer.out;
    layers_.push_back(layer);
  }
  output_weights_ = offset;
  output_bias_ = offset + in;
  num_params_ = static_cast<std::size_t>(output_bias_ + 1);
}

Mlp Mlp::paper_model(std::size_t input_dim) { return Mlp(input_dim, {25}, Activation::Sigmoid); }

std::string Mlp::describe() const {
  std::ostringstream os;
  os << "mlp(d_x=" << input_dim_ << ", hidden=[";
  for (std::size_t l = 0; l < hidden_.size(); ++l) os << (l ? "," : "") << hidden_[l];
  os << "], activation=" << to_string(activation_) << ", d_w=" << num_params_ << ")";
  return os.str();
}

double Mlp::forward(const Vector& w, const Vector& x, std::vector<Vector>& a, std::vector<Vector>* d1) const {
  const std::size_t L = layers_.size();
  a.resize(L + 1);
  if (d1) d1->resize(L);
  a[0] = x;
  Vector z;
  for (std::size_t l = 0; l < L; ++l) {
    const Layer& ly = layers_[l];
    const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
    z.noalias() = W * a[l];
    z += w.segment(ly.bias, ly.out);
    activate(activation_, z, a[l + 1], d1 ? &(*d1)[l] : nullptr, nullptr);
  }
  return a[L].dot(w.segment(output_weights_, a[L].size())) + w[output_bias_];
}

double Mlp::value(const Vector& w, const Vector& x) const {
  check_params(w, "Mlp::value");
  check_point(x, "Mlp::value");
  std::vector<Vector> a;
  const double f = forward(w, x, a, nullptr);
  check_finite(f, w, x, "Mlp::value");
  return f;
}

double Mlp::gradient_w(const Vector& w, const Vector& x, Vector& grad) const {
  check_params(w, "Mlp::gradient_w");
  check_point(x, "Mlp::gradient_w");
  std::vector<Vector> a, d;
  const double f = forward(w, x, a, &d);
  check_finite(f, w, x, "Mlp::gradient_w");
  const std::size_t L = layers_.size();
  grad.resize(static_cast<Eigen::Index>(num_params_));
  grad.segment(output_weights_, a[L].size()) = a[L];
  grad[output_bias_] = 1.0;
  // delta = df/dz_l, backpropagated layer by layer.
  Vector delta = d[L - 1].cwiseProduct(w.segment(output_weights_, a[L].size()));
  for (std::size_t l = L; l-- > 0;) {
    const Layer& ly = layers_[l];
    Eigen::Map<RowMajorMatrix>(grad.data() + ly.weights, ly.out, ly.in).noalias() = delta * a[l].transpose();
    grad.segment(ly.bias, ly.out) = delta;
    if (l > 0) {
      const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
      Vector back = W.transpose() * delta;
      delta = back.cwiseProduct(d[l - 1]);
    }
  }
  return f;
}

double Mlp::gradient_x(const Vector& w, const Vector& x, Vector& grad) const {
  check_params(w, "Mlp::gradient_x");
  check_point(x, "Mlp::gradient_x");
  std::vector<Vector> a, d;
  const double f = forward(w, x, a, &d);
  check_finite(f, w, x, "Mlp::gradient_x");
  const std::size_t L = layers_.size();
  Vector delta = d[L - 1].cwiseProduct(w.segment(output_weights_, a[L].size()));
  for (std::size_t l = L; l-- > 0;) {
    const Layer& ly = layers_[l];
    const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
    Vector back = W.transpose() * delta;
    if (l > 0)
      delta = back.cwiseProduct(d[l - 1]);
    else
      grad = std::move(back);
  }
  return f;
}

double Mlp::mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const {
  check_params(w, "Mlp::mixed_product");
  check_point(x, "Mlp::mixed_product");
  check_direction(v, "Mlp::mixed_product");
  // s(x) = d/de f_{w + e v}(x) at e = 0 is a forward (tangent) pass in w along v: with V, vb the
  // parts of v matching W, b, the tangents are zdot_l = V_l a_{l-1} + W_l adot_{l-1} + vb_l and
  // adot_l = act'(z_l) zdot_l (adot_0 = 0). grad_x s is the reverse pass over that computation.
  const std::size_t L = layers_.size();
  std::vector<Vector> a(L + 1), adot(L + 1), zdot(L), d1(L), d2(L);
  a[0] = x;
  Vector z;
  for (std::size_t l = 0; l < L; ++l) {
    const Layer& ly = layers_[l];
    const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
    const Eigen::Map<const RowMajorMatrix> V(v.data() + ly.weights, ly.out, ly.in);
    z.noalias() = W * a[l];
    z += w.segment(ly.bias, ly.out);
    zdot[l].noalias() = V * a[l];
    if (l > 0) zdot[l].noalias() += W * adot[l];
    zdot[l] += v.segment(ly.bias, ly.out);
    activate(activation_, z, a[l + 1], &d1[l], &d2[l]);
    adot[l + 1] = d1[l].cwiseProduct(zdot[l]);
  }
  const Eigen::Index nL = a[L].size();
  const auto u = w.segment(output_weights_, nL);
  const auto vu = v.segment(output_weights_, nL);
  const double f = u.dot(a[L]) + w[output_bias_];
  check_finite(f, w, x, "Mlp::mixed_product");
  const double s = vu.dot(a[L]) + u.dot(adot[L]) + v[output_bias_];

  // Adjoints of s: abar = ds/da_l, adotbar = ds/dadot_l.
  Vector abar = vu, adotbar = u;
  for (std::size_t l = L; l-- > 0;) {
    const Layer& ly = layers_[l];
    const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
    const Eigen::Map<const RowMajorMatrix> V(v.data() + ly.weights, ly.out, ly.in);
    const Vector zbar = abar.cwiseProduct(d1[l]) + adotbar.cwiseProduct(d2[l]).cwiseProduct(zdot[l]);
    const Vector zdotbar = adotbar.cwiseProduct(d1[l]);
    abar.noalias() = W.transpose() * zbar;
    abar.noalias() += V.transpose() * zdotbar;
    if (l > 0) adotbar.noalias() = W.transpose() * zdotbar;
  }
  grad_x = std::move(abar);
  return s;
}

Vector Mlp::forward_batch(const Vector& w, const Matrix& X, std::vector<Matrix>& A, std::vector<Matrix>* D) const {
  const std::size_t L = layers_.size();
  A.resize(L + 1);
  if (D) D->resize(L);
  A[0] = X.transpose();
  Matrix Z;
  for (std::size_t l = 0; l < L; ++l) {
    const Layer& ly = layers_[l];
    const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
    Z.noalias() = A[l] * W.transpose();
    Z.rowwise() += w.segment(ly.bias, ly.out).transpose();
    activate(activation_, Z, A[l + 1], D ? &(*D)[l] : nullptr, nullptr);
  }
  Vector f = A[L] * w.segment(output_weights_, A[L].cols());
  f.array() += w[output_bias_];
  return f;
}

void Mlp::check_batch_finite(const Vector& f, const Vector& w, const Matrix& X, const char* where) const {
  if (f.allFinite()) return;
  for (Eigen::Index i = 0; i < f.size(); ++i)
    if (!std::isfinite(f[i])) check_finite(f[i], w, X.col(i), (std::string(where) + ", point " + std::to_string(i)).c_str());
}

Vector Mlp::values(const Vector& w, const Matrix& X) const {
  check_params(w, "Mlp::values");
  check_points(X, "Mlp::values");
  std::vector<Matrix> A;
  Vector f = forward_batch(w, X, A, nullptr);
  check_batch_finite(f, w, X, "Mlp::values");
  return f;
}

Matrix Mlp::jacobian_w(const Vector& w, const Matrix& X) const {
  check_params(w, "Mlp::jacobian_w");
  check_points(X, "Mlp::jacobian_w");
  std::vector<Matrix> A, D;
  const Vector f = forward_batch(w, X, A, &D);
  check_batch_finite(f, w, X, "Mlp::jacobian_w");
  const std::size_t L = layers_.size();
  const Eigen::Index n = X.cols(), nL = A[L].cols();
  Matrix J(n, static_cast<Eigen::Index>(num_params_));
  J.middleCols(output_weights_, nL) = A[L];
  J.col(output_bias_).setOnes();
  // Delta = df/dZ_l, one row per point. Row i of the block for W_l is the row-major flattening of
  // delta_i a_i^T, so the n x n_{l-1} block of unit j is A_{l-1} scaled row-wise by Delta(:, j):
  // contiguous columns of the column-major J, filled with vectorized products.
  Matrix Delta = D[L - 1].array().rowwise() * w.segment(output_weights_, nL).transpose().array();
  for (std::size_t l = L; l-- > 0;) {
    const Layer& ly = layers_[l];
    for (Eigen::Index j = 0; j < ly.out; ++j)
      J.middleCols(ly.weights + j * ly.in, ly.in) = A[l].array().colwise() * Delta.col(j).array();
    J.middleCols(ly.bias, ly.out) = Delta;
    if (l > 0) {
      const Eigen::Map<const RowMajorMatrix> W(w.data() + ly.weights, ly.out, ly.in);
      Matrix back = Delta * W;
      Delta = back.cwiseProduct(D[l - 1]);
    }
  }
  return J;
}

Vector Mlp::sample_params(Rng& rng) const {
  Vector w(static_cast<Eigen::Index>(num_params_));
  auto fill = [&](Eigen::Index offset, Eigen::Index count, double r) {
    for (Eigen::Index i = 0; i < count; ++i) w[offset + i] = rng.uniform(-r, r);
  };
  constexpr double kBias = 0.1;
  for (const Layer& ly : layers_) {
    fill(ly.weights, ly.out * ly.in, std::sqrt(6.0 / static_cast<double>(ly.in + ly.out)));
    fill(ly.bias, ly.out, kBias);
  }
  const Eigen::Index nL = layers_.back().out;
  fill(output_weights_, nL, std::sqrt(6.0 / static_cast<double>(nL + 1)));
  fill(output_bias_, 1, kBias);
  return w;
}

}  // namespace optimist
