// Sobol low-discrepancy sequence with optional scrambling.
#pragma once

#include <cstdint>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist {

/// Sobol points in [0,1)^d with Joe-Kuo direction numbers (from Boost.Random's table, up to 3667
/// dimensions). Scrambling is Matousek's linear matrix scramble plus a random digital shift
/// (the scheme of scipy.stats.qmc.Sobol), which keeps the (t,s)-net property and removes the
/// point at the origin. Point k is computed directly in O(32 d), so the sequence can be indexed.
class SobolSequence {
 public:
  static constexpr int kBits = 32;
  /// Contract: 1 <= dim <= max_dimension(); otherwise throws InvalidArgument.
  SobolSequence(std::size_t dim, bool scramble, std::uint64_t seed);

  static std::size_t max_dimension();
  std::size_t dim() const { return dim_; }

  /// The index-th point (0-based).
  Vector point(std::uint64_t index) const;
  /// Points first, ..., first+count-1 as the columns of a d x count matrix.
  Matrix points(std::uint64_t first, std::size_t count) const;

 private:
  std::size_t dim_;
  std::vector<std::uint32_t> directions_;  // dim_ x kBits, row-major by dimension
  std::vector<std::uint32_t> shift_;       // per dimension digital shift
};

}  // namespace optimist
