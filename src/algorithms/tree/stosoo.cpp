// StoSOO, Valko, Carpentier & Munos, "Stochastic simultaneous optimistic optimization", ICML 2013,
// Algorithm 1, over the shared partition.
#include "optimist/algorithms/tree/stosoo.hpp"

#include <algorithm>
#include <cmath>

namespace optimist {

namespace {
constexpr double kFirstHorizon = 64.0;
}

StoSoo::StoSoo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context,
               std::uint32_t k, std::uint32_t h_max, double delta)
    : TreeOptimizer("stosoo", space, direction, options, context), fixed_k_(k), fixed_h_max_(h_max), fixed_delta_(delta) {
  if (!(delta >= 0.0 && delta < 1.0)) throw InvalidArgument("stosoo: option delta must be in [0, 1) (0: 1/sqrt(n)), got " + std::to_string(delta));
  set_horizon(budget_ ? static_cast<double>(budget_) : kFirstHorizon);
  leaves_.resize(1);
  add_leaf(0);
}

void StoSoo::add_leaf(std::uint32_t node) {
  if (key_.size() < tree_.size()) {
    key_.resize(tree_.size(), 0.0);
    is_leaf_.resize(tree_.size(), 0);
  }
  const double b = b_value(node);
  key_[node] = std::isnan(b) ? -HUGE_VAL : b;  // a NaN key would break the order
  is_leaf_[node] = 1;
  leaves_[tree_.depth(node)].emplace(key_[node], node);
}

void StoSoo::remove_leaf(std::uint32_t node) {
  leaves_[tree_.depth(node)].erase({key_[node], node});
  is_leaf_[node] = 0;
}

void StoSoo::record(const Step& step, double y) {
  // T and mu^ of the node change, so does its b: re-keyed in its depth's order.
  const bool leaf = step.node < is_leaf_.size() && is_leaf_[step.node];
  if (leaf) remove_leaf(step.node);
  TreeOptimizer::record(step, y);
  if (leaf) add_leaf(step.node);
}

void StoSoo::set_horizon(double n) {
  // Sec. 4 (the choices of the analysis and experiments): k = n / (ln n)^3, h_max = sqrt(n / k),
  // delta = 1 / sqrt(n).
  horizon_ = n;
  const double ln_n = std::log(std::max(n, 3.0));
  k_ = fixed_k_ ? fixed_k_ : static_cast<std::uint32_t>(std::max(1.0, std::floor(n / (ln_n * ln_n * ln_n))));
  h_max_ = fixed_h_max_ ? fixed_h_max_ : static_cast<std::uint32_t>(std::max(1.0, std::floor(std::sqrt(n / k_))));
  delta_ = fixed_delta_ > 0.0 ? fixed_delta_ : 1.0 / std::sqrt(n);
  log_term_ = std::log(n * k_ / delta_);
  // Every b changes with ln(n k / delta): the leaves are ordered again (once per doubling).
  std::vector<std::uint32_t> all;
  for (const Level& level : leaves_)
    for (const auto& entry : level) all.push_back(entry.second);
  for (std::uint32_t node : all) remove_leaf(node);
  for (std::uint32_t node : all) add_leaf(node);
}

// b_{h,j}(t) = mu^_{h,j}(t) + sqrt(ln(n k / delta) / (2 T_{h,j}(t))), +inf when T = 0.
double StoSoo::b_value(std::uint32_t node) const {
  if (count_[node] == 0) return HUGE_VAL;
  return mean(node) + std::sqrt(log_term_ / (2.0 * count_[node]));
}

bool StoSoo::decide() {
  if (budget_ == 0 && static_cast<double>(run_planned_ + 1) > horizon_) set_horizon(2.0 * horizon_);
  // Bounded: each depth is visited at most twice before something is evaluated or we give up.
  for (std::size_t guard = 0; guard < 2 * (h_max_ + 2) + 2; ++guard) {
    const std::size_t limit = std::min<std::size_t>(leaves_.size() - 1, h_max_);
    if (h_ > limit) {  // Algorithm 1: "for h = 0 to min(depth(T), h_max)", v_max = -inf per sweep
      if (!sweep_progress_ && guard > 0) break;
      h_ = 0;
      v_max_ = -HUGE_VAL;
      sweep_progress_ = false;
    }
    const std::size_t h = h_++;
    const Level& level = leaves_[h];
    if (level.empty()) continue;
    // "Among all leaves (h,j) of depth h, select (h,i) in argmax b_{h,j}(t)" (ties: first created).
    const auto [best_b, node] = *level.begin();
    if (best_b < v_max_) continue;  // "if b_{h,i}(t) >= v_max"
    sweep_progress_ = true;
    if (planned_[node] < k_) {  // "if T_{h,i}(t) < k then evaluate x_{h,i}; t <- t + 1"
      plan(node, 1);
      return true;
    }
    // "else expand this node: add its K children to T; v_max <- b_{h,i}(t)"
    remove_leaf(node);
    if (!tree_.splittable(node)) continue;  // a single point of an integer/categorical space: done
    const std::uint32_t first = new_children(node);
    if (leaves_.size() <= h + 1) leaves_.resize(h + 2);
    for (unsigned c = 0; c < tree_.num_children(node); ++c) add_leaf(first + c);
    v_max_ = best_b;
    if (h > deepest_expanded_depth_ || deepest_expanded_.empty()) {
      deepest_expanded_depth_ = static_cast<std::uint32_t>(h);
      deepest_expanded_.clear();
    }
    if (h == deepest_expanded_depth_) deepest_expanded_.push_back(node);
  }
  // Every leaf down to h_max is evaluated k times and cannot be expanded usefully (tiny budgets,
  // or values pending): evaluate again the leaf of largest b within depth h_max + 1.
  std::uint32_t best = 0;
  double best_b = -HUGE_VAL;
  for (std::size_t h = 0; h < leaves_.size() && h <= h_max_ + 1; ++h)
    if (!leaves_[h].empty() && leaves_[h].begin()->first > best_b) {
      best_b = leaves_[h].begin()->first;
      best = leaves_[h].begin()->second;
    }
  plan(best, 1);
  return true;
}

Vector StoSoo::recommend_unit() const {
  if (recommends_best_evaluated()) return Optimizer::recommend_unit();
  // Output: the representative of highest mu^ among the deepest expanded nodes (before any
  // expansion: the evaluated node of highest mu^).
  std::uint32_t best = 0;
  double best_mean = -HUGE_VAL;
  if (!deepest_expanded_.empty()) {
    for (std::uint32_t node : deepest_expanded_)
      if (mean(node) > best_mean) {
        best_mean = mean(node);
        best = node;
      }
  } else {
    for (std::uint32_t node = 0; node < tree_.size(); ++node)
      if (mean(node) > best_mean) {
        best_mean = mean(node);
        best = node;
      }
  }
  if (best_mean == -HUGE_VAL) return Optimizer::recommend_unit();
  return representative(best);
}

namespace {

struct StoSooSettings {
  TreeOptions tree;
  std::uint32_t k = 0;
  std::uint32_t h_max = 0;
  double delta = 0.0;
  TreeRecommend recommend = TreeRecommend::Auto;
};

const OptionTable<StoSooSettings>& stosoo_options() {
  static const auto table =
      OptionTable<StoSooSettings>()
          .include(tree_option_table(), &StoSooSettings::tree)
          .integer("k", &StoSooSettings::k, 0, 1000000000,
                   "evaluations of a leaf before it can be expanded; 0: n / ln^3 n (at least 1)")
          .integer("h_max", &StoSooSettings::h_max, 0, 100000, "deepest depth a sweep visits; 0: sqrt(n / k)")
          .real("delta", &StoSooSettings::delta, NumberRange{0.0, 1.0, false, true},
                "confidence of the b-values, in (0,1); 0: 1/sqrt(n)")
          .choice("recommend", &StoSooSettings::recommend, kTreeRecommendNames,
                  "output: the paper's (the deepest expanded node of highest mean), the best evaluated point, or "
                  "auto: best on a deterministic objective, the paper's on a noisy one");
  return table;
}

}  // namespace

AlgorithmInfo stosoo_info() {
  AlgorithmInfo info;
  info.name = "stosoo";
  info.family = "tree";
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "n, which sets the defaults of k, h_max and delta; without one: anytime, n doubling from 64";
  info.summary = "StoSOO (Valko, Carpentier & Munos, ICML 2013): SOO for noisy evaluations, unknown smoothness";
  info.options = stosoo_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    const StoSooSettings o = stosoo_options().read(v);
    auto stosoo = std::make_unique<StoSoo>(space, direction, o.tree, context, o.k, o.h_max, o.delta);
    stosoo->set_recommend(o.recommend);
    return stosoo;
  };
  return info;
}

}  // namespace optimist
