// HOO (Bubeck, Munos, Stoltz & Szepesvari, JMLR 2011) with truncated depth, and POO (Grill, Valko
// & Munos, NIPS 2015), which runs HOO instances over a grid of rho values sharing the budget and
// keeps the one with the best average reward. docs/tree-search.md.
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
    return tree_.bytes_per_node() + 2 * sizeof(double) + 4 * sizeof(std::uint32_t);
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
};

/// Truncation depth of t-HOO: the smallest h with nu rho^h <= 1/sqrt(N), at least 1.
std::uint32_t hoo_truncation_depth(double nu, double rho, double horizon);

/// HOO as an ask/tell optimizer: one pull per ask. With a budget n the horizon is n (fixed, so
/// every update is incremental); without one the horizon doubles (64, 128, ...) as pulls reach it.
class Hoo : public TreeOptimizer {
 public:
  enum class Output { MostPlayed, Random };
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

/// POO (Grill, Valko & Munos 2015, Algorithm 1) over HOO instances.
class Poo : public TreeOptimizer {
 public:
  /// Which i the rhos rho_max^(2N/(2i+1)) of the N instances a round adds take.
  enum class RhoGrid {
    Dyadic,   ///< i = 0..N-1: every rho <= rho_max, uniform in 1/ln(1/rho) (default)
    Printed,  ///< i = 1..N as printed in Algorithm 1: the last rho exceeds rho_max
  };
  Poo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context, double nu_max,
      double rho_max,
      Hoo::Output output, double noise_range = 1.0, RhoGrid grid = RhoGrid::Dyadic);
  const std::vector<HooTree>& instances() const { return instances_; }
  /// s* = argmax_s mu^[s], the instance POO outputs from (ties: the first).
  std::size_t best_instance() const;

 protected:
  bool decide() override;
  void record(const Step& step, double y) override;
  Vector step_point(const Step& step) const override;
  Vector recommend_unit() const override;

 private:
  struct Work {
    std::uint32_t instance;
    std::uint64_t evaluations;
  };
  void add_instance(double rho);
  double nu_max_, rho_max_, d_max_;
  Hoo::Output output_;
  double noise_range_ = 1.0;
  RhoGrid grid_ = RhoGrid::Dyadic;
  std::vector<HooTree> instances_;
  std::vector<Work> work_;
  std::size_t work_pos_ = 0;
  std::uint64_t n_ = 0, N_ = 1;  ///< the paper's n (evaluations) and N (instances)
};

AlgorithmInfo hoo_info();
AlgorithmInfo poo_info();

}  // namespace optimist
