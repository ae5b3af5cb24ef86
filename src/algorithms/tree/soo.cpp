#include <algorithm>
#include <cmath>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

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
  // h_max(t) = t^depth_exponent in doubles: a large exponent makes it inf, which no integer holds.
  const double h_max = std::floor(std::pow(static_cast<double>(run_planned_), exponent_));
  const std::size_t deepest = heaps_.empty() ? 0 : heaps_.size() - 1;
  const std::size_t limit = h_max >= static_cast<double>(deepest) ? deepest : static_cast<std::size_t>(h_max);
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

namespace {

struct SooSettings {
  TreeOptions tree;
  double depth_exponent = 0.5;
};

const OptionTable<SooSettings>& soo_options() {
  static const auto table =
      OptionTable<SooSettings>()
          .include(tree_option_table(), &SooSettings::tree)
          .real("depth_exponent", &SooSettings::depth_exponent, NumberRange::above(0.0),
                "h_max(t) = t^depth_exponent, the deepest depth a sweep visits (Munos 2011: sqrt(t))");
  return table;
}

}  // namespace

AlgorithmInfo soo_info() {
  AlgorithmInfo info;
  info.name = "soo";
  info.family = "tree";
  info.summary = "SOO, simultaneous optimistic optimization (Munos, NIPS 2011): deterministic, unknown smoothness";
  info.options = soo_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    const SooSettings o = soo_options().read(v);
    return std::make_unique<Soo>(space, direction, o.tree, context, o.depth_exponent);
  };
  return info;
}

}  // namespace optimist
