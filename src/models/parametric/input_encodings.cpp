#include "optimist/models/parametric/input_encodings.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace optimist {

namespace {

// Deviation inputs=centered: the network sees 2u - 1 in [-1,1]^d instead of the unit-cube point u.
// Every derivative in x picks up the factor 2 of the affine map; derivatives in w are unchanged.
class CenteredInputModel : public ParametricModel {
 public:
  explicit CenteredInputModel(std::shared_ptr<const ParametricModel> inner) : inner_(std::move(inner)) {}
  std::size_t input_dim() const override { return inner_->input_dim(); }
  std::size_t num_params() const override { return inner_->num_params(); }
  std::string describe() const override { return "centered-inputs(" + inner_->describe() + ")"; }
  double value(const Vector& w, const Vector& x) const override { return inner_->value(w, map(x)); }
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override { return inner_->gradient_w(w, map(x), grad); }
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    const double f = inner_->gradient_x(w, map(x), grad);
    grad *= 2.0;
    return f;
  }
  Vector values(const Vector& w, const Matrix& X) const override { return inner_->values(w, map(X)); }
  Matrix jacobian_w(const Vector& w, const Matrix& X) const override { return inner_->jacobian_w(w, map(X)); }
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override {
    const double s = inner_->mixed_product(w, map(x), v, grad_x);
    grad_x *= 2.0;
    return s;
  }
  Vector sample_params(Rng& rng) const override { return inner_->sample_params(rng); }

 private:
  static Vector map(const Vector& x) { return (2.0 * x.array() - 1.0).matrix(); }
  static Matrix map(const Matrix& X) { return (2.0 * X.array() - 1.0).matrix(); }
  std::shared_ptr<const ParametricModel> inner_;
};

// Categorical parameters as one-hot inputs (docs/discrete.md): the network sees, for a categorical
// with k choices, k inputs (1 for its choice, 0 otherwise) instead of one unit-cube coordinate whose
// order means nothing; continuous and integer parameters keep their unit-cube coordinate. The
// derivative in x of a categorical coordinate is 0 (the encoding is piecewise constant: the
// acquisition's maximizer changes categories by discrete moves, maximize_mixed).
class OneHotInputModel : public ParametricModel {
 public:
  OneHotInputModel(std::shared_ptr<const ParametricModel> inner, std::vector<std::size_t> categories)
      : inner_(std::move(inner)), categories_(std::move(categories)) {}
  std::size_t input_dim() const override { return categories_.size(); }
  std::size_t num_params() const override { return inner_->num_params(); }
  std::string describe() const override { return "one-hot(" + inner_->describe() + ")"; }
  double value(const Vector& w, const Vector& x) const override { return inner_->value(w, map(x)); }
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override { return inner_->gradient_w(w, map(x), grad); }
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    Vector g;
    const double f = inner_->gradient_x(w, map(x), g);
    grad = back(g);
    return f;
  }
  Vector values(const Vector& w, const Matrix& X) const override { return inner_->values(w, map(X)); }
  Matrix jacobian_w(const Vector& w, const Matrix& X) const override { return inner_->jacobian_w(w, map(X)); }
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override {
    Vector g;
    const double s = inner_->mixed_product(w, map(x), v, g);
    grad_x = back(g);
    return s;
  }
  Vector sample_params(Rng& rng) const override { return inner_->sample_params(rng); }

 private:
  std::size_t category(std::size_t i, double u) const {
    const std::size_t k = categories_[i];
    return std::min(static_cast<std::size_t>(std::floor(std::clamp(u, 0.0, 1.0) * static_cast<double>(k))), k - 1);
  }
  Vector map(const Vector& x) const {
    Vector z = Vector::Zero(static_cast<Eigen::Index>(one_hot_dim(categories_)));
    Eigen::Index r = 0;
    for (std::size_t i = 0; i < categories_.size(); ++i) {
      const double u = x[static_cast<Eigen::Index>(i)];
      if (categories_[i] == 0) {
        z[r++] = u;
      } else {
        z[r + static_cast<Eigen::Index>(category(i, u))] = 1.0;
        r += static_cast<Eigen::Index>(categories_[i]);
      }
    }
    return z;
  }
  Matrix map(const Matrix& X) const {
    Matrix Z(static_cast<Eigen::Index>(one_hot_dim(categories_)), X.cols());
    for (Eigen::Index j = 0; j < X.cols(); ++j) Z.col(j) = map(Vector(X.col(j)));
    return Z;
  }
  Vector back(const Vector& g) const {
    Vector out = Vector::Zero(static_cast<Eigen::Index>(categories_.size()));
    Eigen::Index r = 0;
    for (std::size_t i = 0; i < categories_.size(); ++i) {
      if (categories_[i] == 0) out[static_cast<Eigen::Index>(i)] = g[r++];
      else r += static_cast<Eigen::Index>(categories_[i]);
    }
    return out;
  }
  std::shared_ptr<const ParametricModel> inner_;
  std::vector<std::size_t> categories_;
};

}  // namespace

std::size_t one_hot_dim(const std::vector<std::size_t>& categories) {
  std::size_t n = 0;
  for (std::size_t k : categories) n += k > 0 ? k : 1;
  return n;
}

std::shared_ptr<const ParametricModel> centered_inputs(std::shared_ptr<const ParametricModel> inner) {
  return std::make_shared<CenteredInputModel>(std::move(inner));
}

std::shared_ptr<const ParametricModel> one_hot_inputs(std::shared_ptr<const ParametricModel> inner,
                                                      std::vector<std::size_t> categories) {
  return std::make_shared<OneHotInputModel>(std::move(inner), std::move(categories));
}

}  // namespace optimist
