// The space-filling step shared by the model-based algorithms' stall rules (docs/robust.md): when a
// model-based search keeps proposing points next to ones already evaluated, it spends one
// evaluation on the candidate farthest from everything evaluated or pending instead.
#pragma once

#include <functional>
#include <vector>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

struct SpaceFillingOptions {
  std::size_t candidates = 1024;  ///< scrambled Sobol candidates scored
  /// Maps a candidate to a valid point (e.g. Space::snap_unit for integer and categorical
  /// parameters); identity when empty.
  std::function<Vector(const Vector&)> snap{};
  /// True for a candidate that must not be chosen (evaluated or pending, on a deterministic
  /// objective); none when empty.
  std::function<bool(const Vector&)> excluded{};
};

/// The candidate of the unit cube [0,1]^d farthest (Euclidean) from the columns of `taken` (d x n,
/// evaluated and pending unit points): a max-min distance step. Candidates come from a Sobol
/// sequence scrambled by `rng`; without any taken point, the first candidate. Returns an empty
/// vector when every candidate is excluded.
Vector farthest_point(const Matrix& taken, std::size_t d, Rng& rng, const SpaceFillingOptions& options = {});

}  // namespace optimist
