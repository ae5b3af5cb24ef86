#include <algorithm>
#include <cmath>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

namespace tree_detail {
TreeOptions tree_options(const OptionValues& v);
std::vector<OptionSpec> tree_option_specs();
}  // namespace tree_detail

Soo::Soo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context,
         double depth_exponent)
    : TreeOptimizer("soo", space, direction, options, context), exponent_(depth_exponent) {
  if (!(depth_exponent > 0.0) || !std::isfinite(depth_exponent))
    throw InvalidArgument("soo: option depth_exponent must be > 0, got " + std::to_string(depth_exponent));
}

bool Soo::decide() {
  if (!root_planned_) {  // SOO evaluates the root first
    root_planned_ = true;
    plan(0, 1);
    return true;
  }
  // Munos (2011), Fig. 1: for h = 0 .. min(depth(T), h_max(t)): among the leaves of depth h take
  // the one of largest value; if it is >= v_max, open it and set v_max to its value.
  const std::size_t limit = std::min<std::size_t>(
      heaps_.empty() ? 0 : heaps_.size() - 1,
      static_cast<std::size_t>(std::floor(std::pow(static_cast<double>(run_planned_), exponent_))));
  for (std::size_t guard = 0; guard < 2 * (limit + 2); ++guard) {
    if (h_ > limit) {  // new sweep
      h_ = 0;
      v_max_ = -HUGE_VAL;
    }
    const std::size_t h = h_++;
    // A leaf holding a single point of an integer/categorical space cannot be opened: it leaves
    // the search (its value stays the best one if it is).
    while (h < heaps_.size() && !heaps_[h].empty() && !tree_.splittable(heaps_[h].front().node)) {
      std::pop_heap(heaps_[h].begin(), heaps_[h].end());
      heaps_[h].pop_back();
    }
    if (h >= heaps_.size() || heaps_[h].empty() || heaps_[h].front().value < v_max_) continue;
    std::pop_heap(heaps_[h].begin(), heaps_[h].end());
    const Leaf leaf = heaps_[h].back();
    heaps_[h].pop_back();
    v_max_ = leaf.value;
    const std::uint32_t first = new_children(leaf.node);
    for (unsigned c = 0; c < tree_.num_children(leaf.node); ++c) plan(first + c, 1);
    return true;
  }
  return false;  // every leaf is pending
}

void Soo::on_value(const Step& step, double y) {
  const std::size_t h = tree_.depth(step.node);
  if (heaps_.size() <= h) heaps_.resize(h + 1);
  heaps_[h].push_back(Leaf{y, step.node});
  std::push_heap(heaps_[h].begin(), heaps_[h].end());
  if (y > best_) {
    best_ = y;
    best_node_ = step.node;
  }
}

Vector Soo::recommend_unit() const {  // x(n): the evaluated node of largest value
  return best_ > -HUGE_VAL ? representative(best_node_) : Optimizer::recommend_unit();
}

UniformGrid::UniformGrid(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context)
    : TreeOptimizer("uniform-grid", space, direction, options, context) {}

bool UniformGrid::decide() {
  if (!root_planned_) {
    root_planned_ = true;
    plan(0, 1);
    return true;
  }
  // Nodes are numbered in creation order, so splitting them in order is breadth-first (cells
  // holding a single point are skipped).
  while (next_split_ < tree_.size() && !tree_.splittable(next_split_)) ++next_split_;
  if (next_split_ >= tree_.size()) return false;  // every cell is a single point: all evaluated
  const std::uint32_t node = next_split_++;
  const std::uint32_t first = new_children(node);
  for (unsigned c = 0; c < tree_.num_children(node); ++c) plan(first + c, 1);
  return true;
}

void UniformGrid::on_value(const Step& step, double y) {
  if (y > best_) {
    best_ = y;
    best_node_ = step.node;
  }
}

Vector UniformGrid::recommend_unit() const {
  return best_ > -HUGE_VAL ? representative(best_node_) : Optimizer::recommend_unit();
}

AlgorithmInfo soo_info() {
  AlgorithmInfo info;
  info.name = "soo";
  info.family = "tree";
  info.summary = "SOO, simultaneous optimistic optimization (Munos, NIPS 2011): deterministic, unknown smoothness";
  info.options = tree_detail::tree_option_specs();
  info.options.push_back({"depth_exponent", 0.5, "h_max(t) = t^depth_exponent, the deepest depth a sweep visits (Munos 2011: sqrt(t))", {}});
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<Soo>(space, direction, tree_detail::tree_options(v), context, v.get<double>("depth_exponent"));
  };
  return info;
}

AlgorithmInfo uniform_grid_info() {
  AlgorithmInfo info;
  info.name = "uniform-grid";
  info.family = "baseline";
  info.summary = "every cell of the partition breadth-first (a uniform grid refined level by level)";
  info.options = tree_detail::tree_option_specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<UniformGrid>(space, direction, tree_detail::tree_options(v), context);
  };
  return info;
}

}  // namespace optimist
