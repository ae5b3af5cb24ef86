// The uniform-grid baseline: every cell of the tree searches' partition, breadth-first.
#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

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

AlgorithmInfo uniform_grid_info() {
  AlgorithmInfo info;
  info.name = "uniform-grid";
  info.family = "baseline";
  info.summary = "every cell of the partition breadth-first (a uniform grid refined level by level)";
  info.options = tree_option_table().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<UniformGrid>(space, direction, tree_option_table().read(v), context);
  };
  return info;
}

}  // namespace optimist
