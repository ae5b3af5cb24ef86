// A differentiable parametric family f_w(x): the model layer of GO-UCB (Liu & Wang, ICML 2023).
//
// GO-UCB needs, for x in the unit cube [0,1]^{d_x} and w in R^{d_w}:
//  - f_w(x) and grad_w f_w(x) to fit w (Phase I regression oracle, eq. 2) and to build
//    Sigma_t = lambda I + sum_i grad_w f grad_w f^T (eq. 3) and w_t (eq. 5);
//  - grad_x f_w(x) and d/dx [grad_w f_w(x) . v] to maximize the optimistic acquisition
//    max_{w in Ball_t} f_w(x) ~ f_{w_t}(x) + sqrt(beta_t) ||grad_w f_{w_t}(x)||_{Sigma_t^{-1}} over x
//    by gradient ascent (Algorithm 1, Phase II step 5; Appendix D.1).
#pragma once

#include <cstddef>
#include <string>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

/// Interface of a parametric model f_w(x).
///
/// Contract shared by every function below:
///  - w must have num_params() entries, x input_dim() entries, a point matrix X input_dim() rows
///    (one column per point) and a direction v num_params() entries; otherwise InvalidArgument is
///    thrown and its message names the argument and both sizes.
///  - Output vectors (grad, grad_x) are resized by the callee; their previous content is ignored.
///  - If f_w(x) is not finite, NumericalError is thrown (the message names the point).
///  - All functions are const and keep no mutable state: concurrent calls on one model are safe.
///  - Parameters should be scaled to O(1) (as W subset of [0,1]^{d_w} in the paper's Assumption
///    3.1): GO-UCB's uncertainty ball treats all directions of w alike, and the default
///    finite-difference mixed_product picks its step relative to max(1, max_i |w_i|).
class ParametricModel {
 public:
  virtual ~ParametricModel() = default;

  /// d_x, the number of inputs.
  virtual std::size_t input_dim() const = 0;
  /// d_w, the number of parameters.
  virtual std::size_t num_params() const = 0;
  /// One-line human-readable summary, e.g. "mlp(d_x=20, hidden=[25], activation=sigmoid, d_w=551)".
  virtual std::string describe() const = 0;

  /// f_w(x).
  virtual double value(const Vector& w, const Vector& x) const = 0;
  /// Returns f_w(x) and sets grad (size d_w) to grad_w f_w(x).
  virtual double gradient_w(const Vector& w, const Vector& x, Vector& grad) const = 0;
  /// Returns f_w(x) and sets grad (size d_x) to grad_x f_w(x).
  virtual double gradient_x(const Vector& w, const Vector& x, Vector& grad) const = 0;

  /// f_w at every column of X (d_x x n); returns n values. The default loops over value().
  virtual Vector values(const Vector& w, const Matrix& X) const;
  /// The n x d_w Jacobian: row i is grad_w f_w(X.col(i)). The default loops over gradient_w().
  virtual Matrix jacobian_w(const Vector& w, const Matrix& X) const;

  /// Returns s(x) = grad_w f_w(x) . v and sets grad_x (size d_x) to grad_x s(x), the mixed second
  /// derivative (d^2 f / dx dw) v. With v = Sigma^{-1} grad_w f_w(x) held fixed this is the
  /// x-gradient GO-UCB's bonus ||grad_w f_w(x)||_{Sigma^{-1}} needs (chain rule: the gradient of
  /// g^T Sigma^{-1} g is 2 (dg/dx)^T Sigma^{-1} g).
  /// The default computes s exactly with gradient_w() and grad_x by central differences of
  /// gradient_x() in w along v: grad_x s ~ [grad_x f_{w+hv}(x) - grad_x f_{w-hv}(x)] / (2h), with
  /// h ||v||_inf = cbrt(machine epsilon) * max(1, ||w||_inf) (relative accuracy about 1e-9 on
  /// smooth models). Costs one gradient_w and two gradient_x calls.
  virtual double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const;

  /// An initial parameter vector for the regression oracle (drawn from rng; deterministic given
  /// its state).
  virtual Vector sample_params(Rng& rng) const = 0;

  /// What to fix when the derivatives disagree with finite differences (check_model_gradients'
  /// message): the methods of this kind of model.
  virtual std::string derivatives_to_fix() const {
    return "gradient_w / gradient_x / mixed_product (with AutodiffModel, see the rules in autodiff_model.hpp)";
  }

 protected:
  // Size checks for implementations; `where` prefixes the message (e.g. "Mlp::gradient_w").
  void check_params(const Vector& w, const char* where) const;
  void check_point(const Vector& x, const char* where) const;
  void check_points(const Matrix& X, const char* where) const;
  void check_direction(const Vector& v, const char* where) const;
  // Throws NumericalError naming w and x (or point index) when f is not finite.
  void check_finite(double f, const Vector& w, const Vector& x, const char* where) const;

 public:
  /// Short text form of a vector for messages: "[0.1, 0.2, ... (20 entries)]".
  static std::string format_vector(const Vector& v, std::size_t max_entries = 6);
};

}  // namespace optimist
