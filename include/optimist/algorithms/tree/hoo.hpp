// HOO (Bubeck, Munos, Stoltz & Szepesvari, JMLR 2011) with truncated depth: HooTree, the tree
// POO's instances share (poo.hpp), and Hoo, the ask/tell optimizer. docs/tree-search.md.
#pragma once

#include <cstdint>
#include <vector>

#include "optimist/algorithms/tree/partition.hpp"
#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

/// One HOO tree over its own Partition. Per node: T (pulls through the node), the mean reward,
/// B (the optimistic bound) and the links. The log term uses a horizon N (ln N): with a fixed N
/// a pull changes T, the mean, U and B only on its path, so `update` costs O(depth * K); when N
/// grows (anytime use, doubling) every U changes and `set_horizon` recomputes all B once (O(size),
/// amortized O(1) per pull because N doubles).
class HooTree {
 public:
  /// h_max: the truncation depth (nodes at h_max are pulled again instead of being expanded).
  /// cardinalities: as Partition's (integer and categorical dimensions split on their values).
  HooTree(std::size_t dim, unsigned children, double nu, double rho, double horizon, std::uint32_t h_max,
          std::vector<std::size_t> cardinalities = {});

  /// HOO's descent: from the root, the child with the larger B (+inf outside the tree; ties: the
  /// first) until a node not yet in the tree, a node at depth h_max, or a cell holding a single
  /// point of an integer/categorical space; returns it (in the tree now).
  std::uint32_t select();
  /// A reward of a node returned by select(): T and the mean on its path, then U and B bottom-up.
  void update(std::uint32_t node, double y);
  /// A deterministic objective's repeat pull of `node` (at depth h_max, or a single point): it holds
  /// no information left, so instead of a pull its B becomes -inf for good (and its ancestors' B are
  /// recomputed). Without this, HOO re-pulled the best such leaf for free until an ask's step limit,
  /// growing its statistics by thousands of entries per ask.
  void exhaust(std::uint32_t node);
  bool exhausted(std::uint32_t node) const { return exhausted_[node] != 0; }
  /// New horizon and truncation depth: recomputes every B (U depends on ln N).
  void set_horizon(double horizon, std::uint32_t h_max);

  /// b~, the noise range the confidence width b~ sqrt(2 ln N / T) assumes (default 1); set before any pull.
  void set_noise_range(double b) { noise_range_ = b; }
  double horizon() const { return horizon_; }
  std::uint32_t h_max() const { return h_max_; }
  double rho() const { return rho_; }
  const Partition& partition() const { return tree_; }
  std::uint32_t count(std::uint32_t node) const { return count_[node]; }
  double mean(std::uint32_t node) const;
  /// Successful pulls so far and their mean reward (POO's mu^[s]).
  std::uint64_t pulls() const { return count_[0]; }
  double average_reward() const { return mean(0); }
  /// Stored B values (index: node; +inf for nodes outside the tree).
  const std::vector<double>& b_values() const { return b_; }
  /// B values recomputed from the definitions, T and mu^ recounted from pulled() and `rewards`
  /// (the reward of each pull, in order); tests compare them with b_values().
  std::vector<double> b_values_from_scratch(const std::vector<double>& rewards) const;
  /// T_{h,i} and sum of rewards as stored (tests compare them with a recount).
  double reward_sum(std::uint32_t node) const { return sum_[node]; }
  /// Nodes pulled, in order (one entry per successful pull).
  const std::vector<std::uint32_t>& pulled() const { return pulled_; }
  /// The robust output: from the root, descend to the child pulled most (ties: larger mean, then
  /// first) while it has been pulled; the node reached.
  std::uint32_t most_played() const;
  /// Memory per node: partition plus the statistics kept here.
  std::size_t bytes_per_node() const {
    return tree_.bytes_per_node() + 2 * sizeof(double) + 4 * sizeof(std::uint32_t) + sizeof(char);
  }

 private:
  double u_value(std::uint32_t node) const;
  double b_of(std::uint32_t node) const;
  bool in_tree(std::uint32_t node) const { return visits_[node] > 0; }

  Partition tree_;
  double nu_, rho_, horizon_, log_horizon_;
  double noise_range_ = 1.0;
  std::uint32_t h_max_;
  std::vector<double> sum_, b_;
  std::vector<std::uint32_t> count_, visits_, first_child_, parent_;
  std::vector<std::uint32_t> pulled_;
  std::vector<char> exhausted_;  // exhaust(): B = -inf
};

/// Truncation depth of t-HOO: the smallest h with nu rho^h <= 1/sqrt(N), at least 1.
std::uint32_t hoo_truncation_depth(double nu, double rho, double horizon);

/// HOO as an ask/tell optimizer: one pull per ask. With a budget n the horizon is n (fixed, so
/// every update is incremental); without one the horizon doubles (64, 128, ...) as pulls reach it.
class Hoo : public TreeOptimizer {
 public:
  /// Auto: Best on a deterministic objective (RunContext::noisy false), MostPlayed on a noisy one.
  /// Best: the best evaluated point (exact when nothing is noisy; HOO's statistics are for noise,
  /// and with exhausted re-pulls, stop 56, its most played path no longer follows the optimum).
  enum class Output { Auto, MostPlayed, Random, Best };
  Hoo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context, double nu, double rho,
      std::uint32_t h_max, Output output);
  const HooTree& hoo_tree() const { return hoo_; }
  void set_noise_range(double b) { hoo_.set_noise_range(b); }

 protected:
  bool decide() override;
  void record(const Step& step, double y) override;
  Vector step_point(const Step& step) const override;
  Vector recommend_unit() const override;

 private:
  double nu_, rho_;
  std::uint32_t fixed_h_max_;
  Output output_;
  HooTree hoo_;
};

inline constexpr EnumNames<Hoo::Output, 4> kHooOutputNames{{{{Hoo::Output::Auto, "auto"},
                                                              {Hoo::Output::MostPlayed, "most-played"},
                                                              {Hoo::Output::Random, "random"},
                                                              {Hoo::Output::Best, "best"}}}};

AlgorithmInfo hoo_info();

}  // namespace optimist
