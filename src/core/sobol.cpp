#include "optimist/core/sobol.hpp"

#include <boost/random/detail/sobol_table.hpp>

#include <bit>

#include "optimist/core/rng.hpp"

namespace optimist {

namespace {
using Table = boost::random::detail::qrng_tables::sobol;
}

std::size_t SobolSequence::max_dimension() { return Table::max_dimension; }

SobolSequence::SobolSequence(std::size_t dim, bool scramble, std::uint64_t seed)
    : dim_(dim), directions_(dim * kBits, 0), shift_(dim, 0) {
  if (dim == 0 || dim > max_dimension())
    throw InvalidArgument("Sobol dimension " + std::to_string(dim) + " is outside [1, " +
                          std::to_string(max_dimension()) + "]");
  // Direction numbers v_j = m_j / 2^j stored as 32-bit fractions (Bratley & Fox recurrence).
  for (std::size_t d = 0; d < dim; ++d) {
    std::uint32_t* v = &directions_[d * kBits];
    if (d == 0) {
      for (int j = 0; j < kBits; ++j) v[j] = std::uint32_t{1} << (kBits - 1 - j);
      continue;
    }
    const unsigned poly = Table::polynomial(d - 1);
    const int degree = std::bit_width(poly) - 1;
    std::vector<std::uint32_t> m(kBits);
    for (int j = 0; j < degree && j < kBits; ++j) m[j] = Table::minit(d - 1, j);
    for (int j = degree; j < kBits; ++j) {
      std::uint32_t value = m[j - degree] ^ (m[j - degree] << degree);
      for (int k = 1; k < degree; ++k)
        if ((poly >> (degree - k)) & 1u) value ^= m[j - k] << k;
      m[j] = value;
    }
    for (int j = 0; j < kBits; ++j) v[j] = m[j] << (kBits - 1 - j);
  }
  if (!scramble) return;
  // Linear matrix scramble: v_j <- L v_j with L random lower-triangular with unit diagonal
  // (bit 31 is the most significant binary digit), then a random digital shift.
  Rng rng(derive_seed(seed, 0x50b01));
  for (std::size_t d = 0; d < dim; ++d) {
    std::uint32_t rows[kBits];  // row r of L as a 32-bit mask over digits (digit 0 = MSB)
    for (int r = 0; r < kBits; ++r) {
      // Digits 0..r-1 random (the top r bits), digit r set.
      const std::uint32_t random_digits =
          r == 0 ? 0u : static_cast<std::uint32_t>(rng.next_u64() >> 32) & ~(~std::uint32_t{0} >> r);
      rows[r] = random_digits | (std::uint32_t{1} << (kBits - 1 - r));
    }
    std::uint32_t* v = &directions_[d * kBits];
    for (int j = 0; j < kBits; ++j) {
      std::uint32_t out = 0;
      for (int r = 0; r < kBits; ++r)
        if (std::popcount(rows[r] & v[j]) & 1) out |= std::uint32_t{1} << (kBits - 1 - r);
      v[j] = out;
    }
    shift_[d] = static_cast<std::uint32_t>(rng.next_u64() >> 32);
  }
}

Vector SobolSequence::point(std::uint64_t index) const {
  if (index >= (std::uint64_t{1} << kBits))
    throw InvalidArgument("Sobol index " + std::to_string(index) + " exceeds 2^32 - 1");
  const std::uint64_t gray = index ^ (index >> 1);
  Vector x(static_cast<Eigen::Index>(dim_));
  for (std::size_t d = 0; d < dim_; ++d) {
    std::uint32_t acc = shift_[d];
    const std::uint32_t* v = &directions_[d * kBits];
    for (std::uint64_t g = gray, j = 0; g != 0; g >>= 1, ++j)
      if (g & 1) acc ^= v[j];
    x[static_cast<Eigen::Index>(d)] = static_cast<double>(acc) * 0x1.0p-32;
  }
  return x;
}

Matrix SobolSequence::points(std::uint64_t first, std::size_t count) const {
  Matrix out(static_cast<Eigen::Index>(dim_), static_cast<Eigen::Index>(count));
  for (std::size_t k = 0; k < count; ++k) out.col(static_cast<Eigen::Index>(k)) = point(first + k);
  return out;
}

}  // namespace optimist
