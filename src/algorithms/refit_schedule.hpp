// When a model is refitted as the history grows, shared by the GP methods (gp-ucb/gp-ei/gp-pi and
// TuRBO's "ml" recipe: their hyperparameters) and GO-UCB (eq. 2's oracle on all data). Measured:
// docs/gp-bo.md, "Speed as the history grows", and docs/go-ucb.md, "A growing history".
#pragma once

#include <algorithm>
#include <cstddef>

namespace optimist {

/// Data size up to which the automatic schedule refits after every observation.
inline constexpr std::size_t kRefitEveryStepUpTo = 100;
/// Past kRefitEveryStepUpTo the automatic schedule refits once the data has grown by 1/kRefitGrowth.
inline constexpr std::size_t kRefitGrowth = 20;

/// Largest factor by which the automatic schedule stretches its period past kRefitEveryStepUpTo:
/// while refits keep finding the hyperparameters where they were, it refits every 5%, 10%, then
/// 20% of growth.
inline constexpr std::size_t kMaxRefitStretch = 4;
/// A warm refit that raised the log posterior by less than this (nats) found the hyperparameters
/// settled: the refitted model is at most e times likelier than the one it replaced, a difference
/// "not worth more than a bare mention" on Jeffreys' scale. Measured: docs/gp-bo.md, "Stretched
/// refit periods".
inline constexpr double kSettledRefitGain = 1.0;

/// Whether a model is due for a refit with n observations when the last fit was at last_fit
/// observations (0: never fitted). refit_every >= 1: every refit_every-th observation (1: every
/// step). refit_every == 0, the automatic schedule: every step up to every_step_up_to points,
/// then whenever the data has grown by stretch * n / kRefitGrowth (5% times stretch) since the
/// last fit, so that the amortized cost of refits that cost O(n) to O(n^3) each grows no faster
/// than the rest of a step. A function of the data sizes and of the stretch, which
/// next_refit_stretch derives from the fits themselves: a replayed history refits at the same sizes.
inline bool refit_due(std::size_t n, std::size_t last_fit, std::size_t refit_every,
                      std::size_t every_step_up_to = kRefitEveryStepUpTo, std::size_t stretch = 1) {
  if (last_fit == 0 || n < last_fit) return true;
  std::size_t period = refit_every;
  if (period == 0) period = n <= every_step_up_to ? 1 : std::max<std::size_t>(stretch, 1) * (n / kRefitGrowth);
  return n - last_fit >= std::max<std::size_t>(period, 1);
}

/// The automatic schedule's stretch after a warm refit past every_step_up_to points that raised the
/// log posterior by `gain` nats: doubled (up to kMaxRefitStretch) if the fit was settled, back to 1
/// otherwise.
inline std::size_t next_refit_stretch(std::size_t stretch, double gain) {
  if (!(gain < kSettledRefitGain)) return 1;  // a NaN gain (no start value) counts as unsettled
  return std::min(2 * std::max<std::size_t>(stretch, 1), kMaxRefitStretch);
}

}  // namespace optimist
