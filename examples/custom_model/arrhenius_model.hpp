// An Arrhenius-type yield model of the kind a materials scientist might bring to GO-UCB:
//
//   y(T, p) = A exp(-(Ea / k_B) (1/T - 1/T_ref)) * p^n / (1 + K p)
//
// a thermally activated rate (Arrhenius law; Ea per particle with Boltzmann's constant k_B is the
// same law as Ea / (R T) with a molar Ea, 1 eV = 96.485 kJ/mol) times a Langmuir-Hinshelwood-style
// pressure term: order n at low pressure, saturating as the surface adsorption K p grows.
//
// Inputs x in [0,1]^2 (what optimist's algorithms work with) are mapped to physical ranges:
//   temperature T = 300 K + x0 * 400 K           (300 .. 700 K)
//   pressure    p = 0.1 bar * 100^x1              (0.1 .. 10 bar, log-scaled: two decades)
// Parameters w = (log A, Ea [eV], n, log K [1/bar]), all O(1) (GO-UCB treats every direction of w
// alike). A is the yield at the reference temperature T_ref = 500 K rather than at T = infinity;
// this standard centring keeps log A O(1) and decorrelates it from Ea.
//
// Written once as a template over the scalar type T, as optimist::make_autodiff_model expects;
// it avoids pow with a T exponent (p^n = exp(n log p)) so that it also works with nested
// automatic differentiation (MixedProduct::NestedAutodiff).
#pragma once

#include <cmath>

#include <Eigen/Core>

namespace arrhenius {

inline constexpr double kBoltzmann = 8.617333262e-5;  // eV / K
inline constexpr double kTRef = 500.0;                // K
inline constexpr double kTMin = 300.0, kTMax = 700.0;  // K
inline constexpr double kPMin = 0.1, kPMax = 10.0;     // bar

/// Physical temperature (K) of the unit-cube coordinate x0.
inline double temperature(double x0) { return kTMin + x0 * (kTMax - kTMin); }
/// Physical pressure (bar) of the unit-cube coordinate x1.
inline double pressure(double x1) { return kPMin * std::exp(x1 * std::log(kPMax / kPMin)); }

struct YieldModel {
  static constexpr int kInputs = 2;
  static constexpr int kParams = 4;

  template <class T>
  T operator()(const Eigen::Matrix<T, -1, 1>& w, const Eigen::Matrix<T, -1, 1>& x) const {
    using std::exp;
    using std::log;
    const T log_A = w[0], Ea = w[1], n = w[2], log_K = w[3];
    const T temp = kTMin + (kTMax - kTMin) * x[0];
    const T log_p = std::log(kPMin) + std::log(kPMax / kPMin) * x[1];
    const T p = exp(log_p);
    const T rate = exp(log_A - Ea / kBoltzmann * (1.0 / temp - 1.0 / kTRef));
    const T adsorption = 1.0 + exp(log_K) * p;
    return rate * exp(n * log_p) / adsorption;
  }
};

/// A plausible parameter set: yield 1.2 at 500 K, Ea = 0.6 eV, order 0.8, K = 0.5 / bar.
inline Eigen::VectorXd reference_params() {
  Eigen::VectorXd w(4);
  w << std::log(1.2), 0.6, 0.8, std::log(0.5);
  return w;
}

}  // namespace arrhenius
