#include "optimist/algorithms/tree/partition.hpp"

#include <stdexcept>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

Partition::Partition(std::size_t dim, unsigned children) : d_(dim), k_(children) {
  if (dim == 0) throw InvalidArgument("Partition: dimension must be >= 1");
  if (children < 2) throw InvalidArgument("Partition: children must be >= 2, got " + std::to_string(children));
  clear();
}

void Partition::clear() {
  lo_.assign(d_, 0.0);
  w_.assign(d_, 1.0);
  depth_.assign(1, 0);
}

std::uint32_t Partition::split(std::uint32_t node, unsigned count) {
  if (count == 0 || count > k_) count = k_;
  if (depth_.size() + count > 0xffffffffu) throw std::length_error("Partition: more than 2^32 nodes");
  // Longest side (first on ties).
  std::size_t j = 0;
  for (std::size_t i = 1; i < d_; ++i)
    if (w_[node * d_ + i] > w_[node * d_ + j]) j = i;
  const auto first = size();
  const std::uint32_t depth = depth_[node] + 1;
  for (unsigned c = 0; c < count; ++c) {
    for (std::size_t i = 0; i < d_; ++i) {
      double lo = lo_[node * d_ + i], w = w_[node * d_ + i];
      if (i == j) {
        lo += c * (w / k_);
        w = w / k_;
      }
      lo_.push_back(lo);
      w_.push_back(w);
    }
    depth_.push_back(depth);
  }
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
