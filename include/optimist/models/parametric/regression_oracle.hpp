// The regression oracle of GO-UCB, eq. (2): w_0 = argmin_w sum_i (f_w(x_i) - y_i)^2.
#pragma once

#include <string>

#include "optimist/core/enum_names.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// Lm: Levenberg-Marquardt from several random starts (default). Sgd: plain stochastic gradient
/// descent on the mean squared error, as GO-UCB's appendix D.1 describes it (with its learning rate
/// 1e-11 the parameters never leave their initialization; kept to reproduce it).
enum class OracleMethod { Lm, Sgd };
inline constexpr EnumNames<OracleMethod, 2> kOracleMethodNames{{{{OracleMethod::Lm, "lm"}, {OracleMethod::Sgd, "sgd"}}}};

struct RegressionOracleOptions {
  OracleMethod method = OracleMethod::Lm;
  std::size_t restarts = 5;        ///< lm: independent starts (the warm start, if given, is one)
  int max_iterations = 100;        ///< lm: iterations per start
  double ridge = 1e-4;             ///< lm: + ridge ||w - w_start||^2; keeps n << d_w fits well posed
  double weight_decay = 0.0;       ///< lm: + weight_decay ||w||^2 (shrinks toward 0, not the start)
  double tolerance = 1e-10;        ///< lm: relative step and cost-decrease tolerance
  int sgd_iterations = 2000;       ///< appendix D.1
  double sgd_learning_rate = 1e-11;  ///< appendix D.1
};

struct RegressionFit {
  Vector w;
  double sse = 0.0;  ///< sum of squared residuals at w
  int iterations = 0;
  std::size_t starts = 0;
};

/// Fits f_w to the columns of X (d_x x n) and targets y. `warm_start` (optional, may be empty)
/// is used as the first start. Returns the fit with the lowest regularized cost.
/// Throws InvalidArgument on size mismatches or non-finite data, NumericalError if every start
/// produced a non-finite model.
RegressionFit fit_regression(const ParametricModel& model, const Matrix& X, const Vector& y, const Vector& warm_start,
                             const RegressionOracleOptions& options, Rng& rng);

}  // namespace optimist
