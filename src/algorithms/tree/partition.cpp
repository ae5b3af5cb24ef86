#include "optimist/algorithms/tree/partition.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

Partition::Partition(std::size_t dim, unsigned children, std::vector<std::size_t> cardinalities)
    : d_(dim), k_(children), card_(std::move(cardinalities)) {
  if (dim == 0) throw InvalidArgument("Partition: dimension must be >= 1");
  if (children < 2) throw InvalidArgument("Partition: children must be >= 2, got " + std::to_string(children));
  if (!card_.empty() && card_.size() != dim)
    throw InvalidArgument("Partition: " + std::to_string(card_.size()) + " cardinalities for dimension " + std::to_string(dim));
  if (card_.empty()) card_.assign(dim, 0);
  for (std::size_t k : card_) discrete_ = discrete_ || k > 0;
  clear();
}

void Partition::clear() {
  lo_.assign(d_, 0.0);
  w_.assign(d_, 1.0);
  depth_.assign(1, 0);
  nchildren_.assign(1, 0);
}

int Partition::split_dimension(std::uint32_t node, std::size_t* values) const {
  if (!discrete_) {
    // Longest side (first on ties).
    std::size_t j = 0;
    for (std::size_t i = 1; i < d_; ++i)
      if (w_[node * d_ + i] > w_[node * d_ + j]) j = i;
    return static_cast<int>(j);
  }
  // Longest splittable side: a discrete dimension needs two values in the cell.
  int j = -1;
  double best = 0.0;
  std::size_t m_best = 0;
  for (std::size_t i = 0; i < d_; ++i) {
    const double w = w_[node * d_ + i];
    std::size_t m = 0;
    if (card_[i] > 0) {
      m = static_cast<std::size_t>(std::llround(w * static_cast<double>(card_[i])));
      if (m < 2) continue;
    }
    if (j < 0 || w > best) {
      j = static_cast<int>(i);
      best = w;
      m_best = m;
    }
  }
  if (values) *values = m_best;
  return j;
}

unsigned Partition::split_size(std::uint32_t node) const {
  std::size_t m = 0;
  const int j = split_dimension(node, &m);
  if (j < 0) return 0;
  return card_[static_cast<std::size_t>(j)] > 0 ? static_cast<unsigned>(std::min<std::size_t>(k_, m)) : k_;
}

std::uint32_t Partition::split(std::uint32_t node, unsigned count) {
  std::size_t m = 0;
  const int jj = split_dimension(node, &m);
  if (jj < 0) throw std::logic_error("Partition: node " + std::to_string(node) + " holds a single point and cannot be split");
  const auto j = static_cast<std::size_t>(jj);
  const unsigned full = card_[j] > 0 ? static_cast<unsigned>(std::min<std::size_t>(k_, m)) : k_;
  if (count == 0 || count > full) count = full;
  if (depth_.size() + count > 0xffffffffu) throw std::length_error("Partition: more than 2^32 nodes");
  const auto first = size();
  const std::uint32_t depth = depth_[node] + 1;
  for (unsigned c = 0; c < count; ++c) {
    for (std::size_t i = 0; i < d_; ++i) {
      double lo = lo_[node * d_ + i], w = w_[node * d_ + i];
      if (i == j && card_[j] > 0) {
        // Values a + floor(c m / full) ... a + floor((c + 1) m / full) - 1 of the cell's m.
        const double k = static_cast<double>(card_[j]);
        const double a = std::round(lo * k);
        const std::size_t begin = c * m / full, end = (c + 1) * m / full;
        lo = (a + static_cast<double>(begin)) / k;
        w = static_cast<double>(end - begin) / k;
      } else if (i == j) {
        lo += c * (w / k_);
        w = w / k_;
      }
      lo_.push_back(lo);
      w_.push_back(w);
    }
    depth_.push_back(depth);
    nchildren_.push_back(0);
  }
  nchildren_[node] = static_cast<std::uint8_t>(count);
  return first;
}

void Partition::center(std::uint32_t node, double* out) const {
  for (std::size_t i = 0; i < d_; ++i) out[i] = lo_[node * d_ + i] + 0.5 * w_[node * d_ + i];
}

void Partition::random_point(std::uint32_t node, std::uint64_t stream, double* out) const {
  Rng rng(derive_seed(stream, node));
  for (std::size_t i = 0; i < d_; ++i) out[i] = lo_[node * d_ + i] + rng.uniform() * w_[node * d_ + i];
}

}  // namespace optimist
