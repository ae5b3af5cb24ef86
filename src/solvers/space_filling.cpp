#include "optimist/solvers/space_filling.hpp"

#include <limits>

#include "optimist/core/sobol.hpp"

namespace optimist {

Vector farthest_point(const Matrix& taken, std::size_t d, Rng& rng, const SpaceFillingOptions& options) {
  const SobolSequence sobol(d, true, rng.next_u64());
  Vector best;
  double best_distance = -1.0;
  for (std::size_t k = 0; k < options.candidates; ++k) {
    Vector u = sobol.point(k);
    if (options.snap) u = options.snap(u);
    if (options.excluded && options.excluded(u)) continue;
    double nearest = std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < taken.cols() && nearest > best_distance; ++j)
      nearest = std::min(nearest, (taken.col(j) - u).squaredNorm());
    if (nearest > best_distance) {
      best_distance = nearest;
      best = std::move(u);
    }
  }
  return best;
}

}  // namespace optimist
