// One trust region: a side length in the unit cube and the rule that resizes it after each
// outcome. Shared by TuRBO (its success/failure counters) and GO-UCB (its trust_adapt deviation):
// two policies of one class, so a third algorithm picks a rule instead of copying one.
#pragma once

#include <cstddef>

namespace optimist {

struct TrustRegion {
  enum class Rule {
    /// TuRBO-1 (Eriksson et al. 2019; reference `turbo_1.py`, `_adjust_length`): doubled (capped
    /// at length_max) after success_tolerance consecutive successes, halved after
    /// failure_tolerance consecutive failures; Collapsed below length_min.
    Counters,
    /// GO-UCB's trust_adapt deviation (docs/go-ucb.md, second round): x grow after a success
    /// whose actual / predicted improvement is at least min_ratio, x shrink after a failure,
    /// kept within [length_min, length_max]; a success below min_ratio keeps the length. Never
    /// collapses: the caller restarts it (GO-UCB's stall rule).
    Steps,
  };
  enum class Event { None, Expanded, Shrunk, Collapsed };

  Rule rule = Rule::Counters;
  double length_init = 0.8;
  double length_min = 0x1p-7;
  double length_max = 1.6;
  std::size_t success_tolerance = 3;   ///< Counters
  std::size_t failure_tolerance = 20;  ///< Counters; TuRBO's reference: ceil(max(4 / q, d / q))
  double grow = 1.5;                   ///< Steps
  double shrink = 0.7;                 ///< Steps
  double min_ratio = 0.5;              ///< Steps

  double length = 0.8;
  std::size_t successes = 0;  ///< consecutive (Counters)
  std::size_t failures = 0;   ///< consecutive (Counters)
  std::size_t restarts = 0;

  /// TuRBO-1's region: length_init 0.8 in [2^-7, 1.6], the Counters rule.
  static TrustRegion counters(double length_init, double length_min, double length_max,
                              std::size_t success_tolerance, std::size_t failure_tolerance);
  /// GO-UCB's region: starts at length_init, within [length_init / 4, length_max], the Steps rule.
  static TrustRegion steps(double length_init, double length_max);

  /// One update with an outcome decided by the caller (TuRBO: the batch improved the run's best by
  /// more than 1e-3 |best|; GO-UCB: the step improved it by more than 1e-3 sd). ratio: actual /
  /// predicted improvement, read by the Steps rule only.
  Event update(bool success, double ratio = 1.0);
  /// A fresh region: length_init, counters 0, restarts + 1.
  void restart();
  /// ceil(max(4 / q, d / q)).
  static std::size_t default_failure_tolerance(std::size_t dim, std::size_t batch_size);
};

}  // namespace optimist
