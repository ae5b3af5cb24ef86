// A network of radial units: f_w(x) = c + sum_k v_k phi(||x - z_k||^2 / l^2), centres z_k and
// weights v_k learned, width l fixed (Broomhead & Lowe 1988's RBF network). A joint-space local
// family for GO-UCB's opening steps (docs/go-ucb.md, fifteenth round). Its centres
// start at given anchors (the data), so a fit from a few points is a kernel interpolant whose
// linearized bonus (through grad_z) grows away from the data like a GP's posterior sd.
#pragma once

#include <cstddef>
#include <string>

#include "optimist/core/enum_names.hpp"
#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// phi(q), q = ||x - z||^2 / l^2: exp(-q / 2), or Matern-5/2's (1 + sqrt(5 q) + 5 q / 3) e^{-sqrt(5 q)}.
enum class RadialProfile { Gaussian, Matern52 };
inline constexpr EnumNames<RadialProfile, 2> kRadialProfileNames{
    {{{RadialProfile::Gaussian, "gaussian"}, {RadialProfile::Matern52, "matern52"}}}};

/// Parameter layout: for each unit k: z_k (d_x entries), v_k; then c. d_w = K (d_x + 1) + 1.
class RadialNet : public ParametricModel {
 public:
  /// anchors: d_x x K, the units' initial centres. Throws InvalidArgument if K = 0 or width <= 0.
  RadialNet(Matrix anchors, double width, RadialProfile profile, double jitter = 0.01);

  std::size_t input_dim() const override { return d_; }
  std::size_t num_params() const override { return num_params_; }
  std::string describe() const override;

  double value(const Vector& w, const Vector& x) const override;
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override;
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override;
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override;

  /// z_k = anchor_k + N(0, jitter^2) per coordinate, v_k ~ U(-0.1, 0.1), c = 0.
  Vector sample_params(Rng& rng) const override;

 private:
  // phi(q), phi'(q), phi''(q)
  void profile(double q, double& p, double& dp, double& d2p) const;
  double evaluate(const Vector& w, const Vector& x, Vector* grad_w, Vector* grad_x, const char* where) const;
  Matrix anchors_;
  double width_, jitter_;
  RadialProfile profile_;
  std::size_t d_, units_, num_params_;
};

}  // namespace optimist
