// The hierarchical partition of the unit cube shared by the tree-search optimizers
// (SequOOL/StroquOOL, Bartlett, Gabillon & Valko, ALT 2019, sec. 2; SOO, Munos 2011).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace optimist {

/// Cells P_{h,i} of [0,1]^d: the root is the whole cube; a split cuts a cell into K equal children
/// along its longest side (the first such coordinate on ties). Children of one split are stored
/// contiguously and nodes are numbered in creation order. Struct-of-arrays storage: per node d
/// lower corners and d widths (doubles) and the depth (uint32): 16 d + 4 bytes.
class Partition {
 public:
  Partition(std::size_t dim, unsigned children);

  /// Back to the root alone (node 0, depth 0).
  void clear();
  std::uint32_t size() const { return static_cast<std::uint32_t>(depth_.size()); }
  std::size_t dim() const { return d_; }
  unsigned children() const { return k_; }
  std::uint32_t depth(std::uint32_t node) const { return depth_[node]; }
  const double* lower(std::uint32_t node) const { return &lo_[node * d_]; }
  const double* width(std::uint32_t node) const { return &w_[node * d_]; }

  /// Creates the first `count` (1..K, default all K) children of `node`; returns the index of the
  /// first one (the others follow).
  std::uint32_t split(std::uint32_t node, unsigned count = 0);

  /// Center of the cell.
  void center(std::uint32_t node, double* out) const;
  /// A point uniform in the cell, a function of (stream, node) only.
  void random_point(std::uint32_t node, std::uint64_t stream, double* out) const;

  /// Memory of one node in this class.
  std::size_t bytes_per_node() const { return 2 * d_ * sizeof(double) + sizeof(std::uint32_t); }

 private:
  std::size_t d_;
  unsigned k_;
  std::vector<double> lo_, w_;
  std::vector<std::uint32_t> depth_;
};

}  // namespace optimist
