// StoSOO (Valko, Carpentier & Munos, ICML 2013): SOO for noisy evaluations. docs/tree-search.md.
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

/// StoSOO, Algorithm 1: sweeps over depths h = 0 .. min(depth, h_max); at each depth the leaf of
/// largest b = mu^ + sqrt(ln(n k / delta) / (2 T)) is evaluated if T < k, else expanded if
/// b >= v_max. Parameters 0 take the paper's choices from n: k = n / ln^3 n, h_max = sqrt(n / k),
/// delta = 1 / sqrt(n). Without a budget n is a horizon doubling from 64 (same tree). The leaves of
/// each depth are kept ordered by b (updated when a leaf's statistics change), so a step costs
/// O(log leaves), not a scan of its depth.
class StoSoo : public TreeOptimizer {
 public:
  StoSoo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context, std::uint32_t k,
         std::uint32_t h_max,
         double delta);
  std::uint32_t k() const { return k_; }
  std::uint32_t h_max() const { return h_max_; }
  double delta() const { return delta_; }

 protected:
  bool decide() override;
  Vector recommend_unit() const override;

 private:
  void set_horizon(double n);
  double b_value(std::uint32_t node) const;
  void record(const Step& step, double y) override;
  /// Orders a depth's leaves: largest b first, lower node index first on ties.
  struct ByB {
    bool operator()(const std::pair<double, std::uint32_t>& a, const std::pair<double, std::uint32_t>& b) const {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    }
  };
  using Level = std::set<std::pair<double, std::uint32_t>, ByB>;
  void add_leaf(std::uint32_t node);
  void remove_leaf(std::uint32_t node);
  std::uint32_t fixed_k_, fixed_h_max_;
  double fixed_delta_;
  double horizon_ = 0.0, log_term_ = 0.0;
  std::uint32_t k_ = 1, h_max_ = 1;
  double delta_ = 1.0;
  std::vector<Level> leaves_;  ///< leaves per depth, by b
  std::vector<double> key_;     ///< per node: its b in leaves_ (while a leaf)
  std::vector<char> is_leaf_;   ///< per node: in leaves_
  std::size_t h_ = 0;
  double v_max_ = -std::numeric_limits<double>::infinity();
  bool sweep_progress_ = false;
  std::uint32_t deepest_expanded_depth_ = 0;
  std::vector<std::uint32_t> deepest_expanded_;  ///< expanded nodes at that depth
};

AlgorithmInfo stosoo_info();

}  // namespace optimist
