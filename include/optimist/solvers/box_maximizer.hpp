// Multi-start gradient-based maximization in a box, the inner solver shared by the GP
// acquisitions, GO-UCB and the GP hyperparameter fit: score many quasi-random points, then refine
// the best with L-BFGS-B (LBFGSpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

/// f(x, grad): the value at x; if grad is non-null, also writes the gradient into *grad (already
/// sized to x.size()). x is always inside the box. A non-finite value (or gradient) counts as
/// -infinity: the point is never returned and a local search reaching it stops there.
using BoxObjective = std::function<double(const Vector& x, Vector* grad)>;
/// Optional batch scorer for the raw samples: values at the columns of X (d x m). Lets a GP
/// evaluate hundreds of candidates with matrix operations instead of one at a time.
using BoxBatchObjective = std::function<Vector(const Matrix& X)>;

struct BoxMaximizerOptions {
  /// Scrambled Sobol points scored (value only) before any local search; 0 uses only `starts`.
  std::size_t raw_samples = 512;
  /// How many of the best scored points (raw samples and given starts together) L-BFGS-B refines.
  std::size_t restarts = 10;
  /// L-BFGS-B iterations per local search (each costs one or a few value+gradient evaluations).
  int max_iterations = 200;
  /// Stop when the infinity norm of the projected gradient is below this (scipy's pgtol default).
  double gradient_tolerance = 1e-5;
  /// Stop when one iteration improves f by less than this times max(1, |f|).
  double value_tolerance = 1e-9;
  /// L-BFGS history length.
  int memory = 6;
  /// A local search stops once it evaluates a point within this Euclidean distance of a point an
  /// earlier search (one that did not fail) evaluated, with a value no higher than that one's: it is
  /// in the basin that search climbed and would end where it did (multi-level single linkage's
  /// rule, Rinnooy Kan & Timmer 1987). The best point seen is kept either way. 0: every search runs
  /// to its own end (the default; callers opt in, docs/gp-bo.md "Merged restarts").
  double merge_radius = 0.0;
};

/// Upper limits of raw_samples and restarts as algorithm options: beyond them a step would take
/// hours or exhaust memory (fuzz_options found raw_samples = 5e18 accepted, then bad_alloc).
inline constexpr std::size_t kMaxRawSamples = 1000000;
inline constexpr std::size_t kMaxRestarts = 10000;
/// Throws InvalidArgument naming `algorithm`'s option when raw_samples or restarts exceed them.
void check_search_sizes(const std::string& algorithm, std::size_t raw_samples, std::size_t restarts);

struct BoxMaximizerResult {
  Vector x;                              ///< best point found, inside the box (the box centre if none)
  double value = -std::numeric_limits<double>::infinity();  ///< f(x); -inf if no finite value was seen
  std::size_t evaluations = 0;           ///< calls of f (value-only and with gradient), batch points included
  std::size_t local_searches = 0;        ///< L-BFGS-B runs started
  std::size_t failed_searches = 0;       ///< runs ended by a line-search failure or a non-finite value
  std::size_t merged_searches = 0;       ///< runs stopped in the basin of an earlier run (merge_radius)
  bool found() const { return std::isfinite(value); }
};

/// Maximizes f over [lower, upper]. Raw samples come from a scrambled Sobol sequence seeded by one
/// draw of rng; extra `starts` (clipped into the box) are scored with them. Each local search keeps
/// the best point it has seen, so a line-search failure (LBFGSpp throws) loses nothing. Exceptions
/// thrown by f itself propagate. Deterministic for a given rng state.
/// Contract: lower.size() == upper.size() >= 1, finite, lower <= upper; starts have that size.
BoxMaximizerResult maximize_in_box(const BoxObjective& f, const Vector& lower, const Vector& upper,
                                   const std::vector<Vector>& starts, const BoxMaximizerOptions& options,
                                   Rng& rng, const BoxBatchObjective& batch = {});

}  // namespace optimist
