// Deterministic random numbers. Only std::mt19937_64 (exactly specified by the standard) and our
// own conversions are used, so a seed reproduces the same stream on every platform and compiler.
#pragma once

#include <cstdint>
#include <random>

#include "optimist/core/types.hpp"

namespace optimist {

/// SplitMix64 finalizer: a bijective mix of 64 bits.
std::uint64_t splitmix64(std::uint64_t x);

/// Seed of an independent stream `stream` under `seed`. Used so that the k-th ask of an
/// optimizer depends only on (seed, k), not on how many numbers earlier asks consumed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : engine_(splitmix64(seed)) {}

  std::uint64_t next_u64() { return engine_(); }
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n > 0 (rejection sampling, unbiased).
  std::uint64_t below(std::uint64_t n);
  /// Standard normal (Marsaglia polar method, both variates used).
  double normal();
  /// A point uniform in [0,1]^d.
  Vector uniform_vector(Eigen::Index d);
  Vector normal_vector(Eigen::Index d);

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace optimist
