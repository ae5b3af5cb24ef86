// A ParametricModel from a function written once as a template over the scalar type; gradients
// by forward-mode automatic differentiation (Eigen's unsupported AutoDiffScalar).
//
//   struct MyModel {
//     template <class T>
//     T operator()(const Eigen::Matrix<T, -1, 1>& w, const Eigen::Matrix<T, -1, 1>& x) const {
//       using std::exp;  // then call exp, log, sqrt, tanh, ... unqualified
//       return w[0] * exp(-w[1] * x[0]);
//     }
//   };
//   auto model = optimist::make_autodiff_model(MyModel{}, /*input_dim=*/1, /*num_params=*/2);
//
// Rules for the template (limits of AutoDiffScalar):
//  - declare intermediates as T, never auto (auto would keep an expression template that refers
//    to temporaries);
//  - write constants as plain doubles (2.0 * t, t + 1.0). T(2.0) * w[0] works, but a
//    sub-expression made only of T constants, e.g. w[0] / (T(2.0) * T(3.0)), does not: its empty
//    derivative vector cannot be widened (Eigen asserts in debug builds and drops the derivative
//    otherwise);
//  - pow(t, 2.0) works, pow with a T exponent does not: write exp(n * log(p));
//  - branches (if (t > 0.0)) are fine; the derivative is that of the branch taken.
// Check a new model's gradients against finite differences once, as examples/custom_model does.
//
// mixed_product (grad_x of grad_w f . v, see ParametricModel) is by default the base class's
// central differences of gradient_x, which works for every model. With
// make_autodiff_model<MixedProduct::NestedAutodiff>(...) it is exact, by nested forward mode (a
// tangent along v inside derivatives in x); the template must then also compile for a nested
// scalar, which rules out pow (write exp(a * log(b)) instead).
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// How AutodiffModel computes mixed_product.
enum class MixedProduct {
  FiniteDifference,  ///< ParametricModel's default: central differences of gradient_x along v.
  NestedAutodiff,    ///< Exact: forward mode over x of a forward tangent in w along v.
};

template <class F, MixedProduct Mode = MixedProduct::FiniteDifference>
class AutodiffModel : public ParametricModel {
 public:
  /// Draws initial parameters; the default draws each entry from N(0, 1).
  using Sampler = std::function<Vector(Rng&)>;

  AutodiffModel(F f, std::size_t input_dim, std::size_t num_params, Sampler sampler = {}, std::string name = "")
      : f_(std::move(f)), input_dim_(input_dim), num_params_(num_params), sampler_(std::move(sampler)),
        name_(std::move(name)) {
    if (input_dim_ == 0) throw InvalidArgument("AutodiffModel: input_dim must be at least 1");
    if (num_params_ == 0) throw InvalidArgument("AutodiffModel: num_params must be at least 1");
  }

  const F& function() const { return f_; }

  std::size_t input_dim() const override { return input_dim_; }
  std::size_t num_params() const override { return num_params_; }
  std::string describe() const override {
    std::ostringstream os;
    os << (name_.empty() ? std::string("autodiff") : name_) << "(d_x=" << input_dim_ << ", d_w=" << num_params_ << ")";
    return os.str();
  }

  double value(const Vector& w, const Vector& x) const override {
    check_params(w, "AutodiffModel::value");
    check_point(x, "AutodiffModel::value");
    const double f = f_(w, x);
    check_finite(f, w, x, "AutodiffModel::value");
    return f;
  }

  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override {
    check_params(w, "AutodiffModel::gradient_w");
    check_point(x, "AutodiffModel::gradient_w");
    // Every input carries a full-length derivative vector (zeros for x): AutoDiffScalar cannot
    // combine an expression whose derivative vector is empty with a non-empty one.
    const Eigen::Index n = w.size();
    ADVector wa(n), xa(x.size());
    for (Eigen::Index i = 0; i < n; ++i) wa[i] = AD(w[i], static_cast<int>(n), static_cast<int>(i));
    for (Eigen::Index i = 0; i < x.size(); ++i) xa[i] = AD(x[i], Vector::Zero(n));
    const AD r = f_(wa, xa);
    return unpack(r, n, grad, w, x, "AutodiffModel::gradient_w");
  }

  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    check_params(w, "AutodiffModel::gradient_x");
    check_point(x, "AutodiffModel::gradient_x");
    const Eigen::Index n = x.size();
    ADVector wa(w.size()), xa(n);
    for (Eigen::Index i = 0; i < w.size(); ++i) wa[i] = AD(w[i], Vector::Zero(n));
    for (Eigen::Index i = 0; i < n; ++i) xa[i] = AD(x[i], static_cast<int>(n), static_cast<int>(i));
    const AD r = f_(wa, xa);
    return unpack(r, n, grad, w, x, "AutodiffModel::gradient_x");
  }

  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override {
    if constexpr (Mode == MixedProduct::FiniteDifference) {
      return ParametricModel::mixed_product(w, x, v, grad_x);
    } else {
      check_params(w, "AutodiffModel::mixed_product");
      check_point(x, "AutodiffModel::mixed_product");
      check_direction(v, "AutodiffModel::mixed_product");
      // Inner scalar: value and the single tangent d/de along w + e v. Outer: derivatives in x.
      using Inner = Eigen::AutoDiffScalar<Eigen::Matrix<double, 1, 1>>;
      using Outer = Eigen::AutoDiffScalar<Eigen::Matrix<Inner, Eigen::Dynamic, 1>>;
      using OuterVector = Eigen::Matrix<Outer, Eigen::Dynamic, 1>;
      const auto tangent = [](double t) { return Eigen::Matrix<double, 1, 1>::Constant(t); };
      const Eigen::Index n = x.size();
      const Inner zero(0.0, tangent(0.0)), one(1.0, tangent(0.0));
      OuterVector wa(w.size()), xa(n);
      for (Eigen::Index i = 0; i < w.size(); ++i) {
        wa[i].value() = Inner(w[i], tangent(v[i]));
        wa[i].derivatives() = Eigen::Matrix<Inner, Eigen::Dynamic, 1>::Constant(n, zero);
      }
      for (Eigen::Index i = 0; i < n; ++i) {
        xa[i].value() = Inner(x[i], tangent(0.0));
        xa[i].derivatives() = Eigen::Matrix<Inner, Eigen::Dynamic, 1>::Constant(n, zero);
        xa[i].derivatives()[i] = one;
      }
      const Outer r = f_(wa, xa);
      check_finite(r.value().value(), w, x, "AutodiffModel::mixed_product");
      grad_x = Vector::Zero(n);
      if (r.derivatives().size() == n)
        for (Eigen::Index i = 0; i < n; ++i) grad_x[i] = r.derivatives()[i].derivatives()[0];
      check_gradient(grad_x, w, x, "AutodiffModel::mixed_product");
      return r.value().derivatives()[0];
    }
  }

  Vector sample_params(Rng& rng) const override {
    const auto n = static_cast<Eigen::Index>(num_params_);
    if (!sampler_) return rng.normal_vector(n);
    Vector w = sampler_(rng);
    if (w.size() != n) {
      std::ostringstream os;
      os << "AutodiffModel::sample_params: the sampler returned " << w.size() << " entries but the model has d_w = " << n;
      throw InvalidArgument(os.str());
    }
    return w;
  }

 private:
  using AD = Eigen::AutoDiffScalar<Vector>;
  using ADVector = Eigen::Matrix<AD, Eigen::Dynamic, 1>;

  double unpack(const AD& r, Eigen::Index n, Vector& grad, const Vector& w, const Vector& x, const char* where) const {
    check_finite(r.value(), w, x, where);
    // A result that does not depend on the inputs may come back with an empty derivative vector.
    if (r.derivatives().size() == n)
      grad = r.derivatives();
    else
      grad = Vector::Zero(n);
    check_gradient(grad, w, x, where);
    return r.value();
  }

  void check_gradient(const Vector& g, const Vector& w, const Vector& x, const char* where) const {
    if (g.allFinite()) return;
    std::ostringstream os;
    os << where << ": " << describe() << " has a non-finite derivative " << format_vector(g) << " at x = "
       << format_vector(x) << " with w = " << format_vector(w);
    throw NumericalError(os.str());
  }

  F f_;
  std::size_t input_dim_, num_params_;
  Sampler sampler_;
  std::string name_;
};

/// Wraps f (see the top of this file) as a ParametricModel. The optional name appears in
/// describe() and error messages.
template <MixedProduct Mode = MixedProduct::FiniteDifference, class F>
std::unique_ptr<ParametricModel> make_autodiff_model(F f, std::size_t input_dim, std::size_t num_params,
                                                     typename AutodiffModel<F, Mode>::Sampler sampler = {},
                                                     std::string name = "") {
  return std::make_unique<AutodiffModel<F, Mode>>(std::move(f), input_dim, num_params, std::move(sampler),
                                                  std::move(name));
}

}  // namespace optimist
