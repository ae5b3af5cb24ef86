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
/// lower corners and d widths (doubles), the depth (uint32) and the number of children (uint8):
/// 16 d + 5 bytes.
///
/// Integer and categorical dimensions (cardinalities > 0) are split on their values: value j of a
/// dimension with k values owns [j/k, (j+1)/k), and a cell holding m >= 2 of its values is cut
/// into min(K, m) children of floor/ceil(m / min(K, m)) values each, aligned on value boundaries
/// (their width in the cube is the number of values over k). A dimension with one value left in
/// the cell cannot be split; a cell with no splittable dimension holds a single point (an atom)
/// and is never split.
class Partition {
 public:
  /// cardinalities: per dimension, the number of values of an integer or categorical parameter,
  /// 0 for a continuous one; empty: all continuous.
  Partition(std::size_t dim, unsigned children, std::vector<std::size_t> cardinalities = {});

  /// Back to the root alone (node 0, depth 0).
  void clear();
  std::uint32_t size() const { return static_cast<std::uint32_t>(depth_.size()); }
  std::size_t dim() const { return d_; }
  unsigned children() const { return k_; }
  std::uint32_t depth(std::uint32_t node) const { return depth_[node]; }
  const double* lower(std::uint32_t node) const { return &lo_[node * d_]; }
  const double* width(std::uint32_t node) const { return &w_[node * d_]; }

  /// Creates the first `count` (1..K, default all K) children of `node`, at most
  /// split_size(node); returns the index of the first one (the others follow). Contract: the node
  /// is splittable and not split yet.
  std::uint32_t split(std::uint32_t node, unsigned count = 0);
  /// Children a full split of the node creates: K, or min(K, m) when its longest splittable side
  /// is a discrete dimension with m values; 0 for an atom.
  unsigned split_size(std::uint32_t node) const;
  bool splittable(std::uint32_t node) const { return split_size(node) > 0; }
  /// Children created by the node's split (0 before it is split).
  unsigned num_children(std::uint32_t node) const { return nchildren_[node]; }

  /// Center of the cell.
  void center(std::uint32_t node, double* out) const;
  /// A point uniform in the cell, a function of (stream, node) only.
  void random_point(std::uint32_t node, std::uint64_t stream, double* out) const;

  /// Memory of one node in this class.
  std::size_t bytes_per_node() const { return 2 * d_ * sizeof(double) + sizeof(std::uint32_t) + sizeof(std::uint8_t); }

 private:
  /// The dimension a split of the node cuts (-1: an atom) and the values the cell holds there.
  int split_dimension(std::uint32_t node, std::size_t* values = nullptr) const;
  std::size_t d_;
  unsigned k_;
  std::vector<std::size_t> card_;
  bool discrete_ = false;
  std::vector<double> lo_, w_;
  std::vector<std::uint32_t> depth_;
  std::vector<std::uint8_t> nchildren_;
};

}  // namespace optimist
