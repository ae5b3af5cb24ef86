// An additive network: f_w(x) = c + sum_i g_i(x_i), each g_i a one-input network of H sigmoid
// units, g_i(t) = sum_j v_ij sigmoid(a_ij t + b_ij). The structural prior of additive models
// (Hastie & Tibshirani 1986; in BO, Kandasamy et al. 2015's Add-GP-UCB) as a parametric family
// for GO-UCB: d_w = 3 H d_x + 1.
#pragma once

#include <cstddef>
#include <string>

#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// Parameter layout: for each input i (in order) and unit j: a_ij, b_ij, v_ij; then c.
class AdditiveMlp : public ParametricModel {
 public:
  /// Throws InvalidArgument if input_dim or units_per_input is 0.
  AdditiveMlp(std::size_t input_dim, std::size_t units_per_input);

  static std::size_t count_params(std::size_t input_dim, std::size_t units_per_input) { return 3 * input_dim * units_per_input + 1; }

  std::size_t input_dim() const override { return input_dim_; }
  std::size_t num_params() const override { return num_params_; }
  std::string describe() const override;

  double value(const Vector& w, const Vector& x) const override;
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override;
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override;
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override;

  /// a_ij ~ U(-s, s) with s = 6 (a unit's transition spans ~1/6 of [0,1]), b_ij = -a_ij t_ij with
  /// the transition point t_ij ~ U(0, 1), v_ij ~ U(-r, r) with r = sqrt(6 / (H d_x + 1)), c = 0.
  Vector sample_params(Rng& rng) const override;

 private:
  // f_w(x), and the gradients that are asked for; `where` names the caller in errors.
  double evaluate(const Vector& w, const Vector& x, Vector* grad_w, Vector* grad_x, const char* where) const;
  std::size_t input_dim_, units_, num_params_;
};

}  // namespace optimist
