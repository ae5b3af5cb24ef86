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
// Derivatives are propagated in fixed-size chunks of kAutodiffChunk directions (one pass of f per
// chunk, as Ceres' DynamicAutoDiffCostFunction does), so constants such as T(2.0) carry a zero
// derivative of the right size and any mix of T constants and parameters differentiates correctly.
// Rules for the template (limits of AutoDiffScalar):
//  - declare intermediates as T, never auto (auto would keep an expression template that refers
//    to temporaries);
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

#include <algorithm>
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

/// Derivative directions propagated per evaluation of the user's function (see the top of this file).
inline constexpr int kAutodiffChunk = 8;

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
    return chunked_gradient(w, x, /*seed_w=*/true, grad, "AutodiffModel::gradient_w");
  }

  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    check_params(w, "AutodiffModel::gradient_x");
    check_point(x, "AutodiffModel::gradient_x");
    return chunked_gradient(w, x, /*seed_w=*/false, grad, "AutodiffModel::gradient_x");
  }

  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override {
    if constexpr (Mode == MixedProduct::FiniteDifference) {
      return ParametricModel::mixed_product(w, x, v, grad_x);
    } else {
      check_params(w, "AutodiffModel::mixed_product");
      check_point(x, "AutodiffModel::mixed_product");
      check_direction(v, "AutodiffModel::mixed_product");
      // Inner scalar: value and the single tangent d/de along w + e v. Outer: derivatives in x,
      // a chunk of kAutodiffChunk coordinates per pass.
      using Inner = Eigen::AutoDiffScalar<Eigen::Matrix<double, 1, 1>>;
      using OuterDer = Eigen::Matrix<Inner, kAutodiffChunk, 1>;
      using Outer = Eigen::AutoDiffScalar<OuterDer>;
      using OuterVector = Eigen::Matrix<Outer, Eigen::Dynamic, 1>;
      const auto tangent = [](double t) { return Eigen::Matrix<double, 1, 1>::Constant(t); };
      const Eigen::Index n = x.size();
      const Inner zero(0.0, tangent(0.0)), one(1.0, tangent(0.0));
      OuterVector wa(w.size()), xa(n);
      for (Eigen::Index i = 0; i < w.size(); ++i) {
        wa[i].value() = Inner(w[i], tangent(v[i]));
        wa[i].derivatives() = OuterDer::Constant(zero);
      }
      grad_x.resize(n);
      double s = 0.0;
      for (Eigen::Index start = 0; start < n; start += kAutodiffChunk) {
        for (Eigen::Index i = 0; i < n; ++i) {
          xa[i].value() = Inner(x[i], tangent(0.0));
          xa[i].derivatives() = OuterDer::Constant(zero);
          if (i >= start && i < start + kAutodiffChunk) xa[i].derivatives()[i - start] = one;
        }
        const Outer r = f_(wa, xa);
        check_finite(r.value().value(), w, x, "AutodiffModel::mixed_product");
        for (Eigen::Index i = start; i < std::min(n, start + kAutodiffChunk); ++i)
          grad_x[i] = r.derivatives()[i - start].derivatives()[0];
        s = r.value().derivatives()[0];
      }
      check_gradient(grad_x, w, x, "AutodiffModel::mixed_product");
      return s;
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
  using ADDer = Eigen::Matrix<double, kAutodiffChunk, 1>;
  using AD = Eigen::AutoDiffScalar<ADDer>;
  using ADVector = Eigen::Matrix<AD, Eigen::Dynamic, 1>;

  // Forward mode over w (seed_w) or x, kAutodiffChunk directions per evaluation of f.
  double chunked_gradient(const Vector& w, const Vector& x, bool seed_w, Vector& grad, const char* where) const {
    const Vector& seeded = seed_w ? w : x;
    const Vector& fixed = seed_w ? x : w;
    const Eigen::Index n = seeded.size();
    ADVector sa(n), fa(fixed.size());
    for (Eigen::Index i = 0; i < fixed.size(); ++i) fa[i] = AD(fixed[i], ADDer::Zero());
    grad.resize(n);
    double value = 0.0;
    for (Eigen::Index start = 0; start < n; start += kAutodiffChunk) {
      for (Eigen::Index i = 0; i < n; ++i) {
        sa[i] = AD(seeded[i], ADDer::Zero());
        if (i >= start && i < start + kAutodiffChunk) sa[i].derivatives()[i - start] = 1.0;
      }
      const AD r = seed_w ? f_(sa, fa) : f_(fa, sa);
      check_finite(r.value(), w, x, where);
      const Eigen::Index m = std::min<Eigen::Index>(kAutodiffChunk, n - start);
      grad.segment(start, m) = r.derivatives().head(m);
      value = r.value();
    }
    check_gradient(grad, w, x, where);
    return value;
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
