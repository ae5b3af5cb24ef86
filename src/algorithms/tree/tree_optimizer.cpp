#include <algorithm>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

namespace {
constexpr std::uint64_t kRepresentativeStream = 0x74726565ULL;  // "tree"
constexpr double kMatchTolerance = 1e-12;
}  // namespace

TreeOptimizer::TreeOptimizer(std::string name, const Space& space, Direction direction, const TreeOptions& options)
    : Optimizer(std::move(name), space, direction, options.seed), opt_(options), tree_(space.dim(), options.children) {
  if (options.children != 2 && options.children != 3)
    throw InvalidArgument(this->name() + ": option children must be 2 or 3, got " + std::to_string(options.children));
  sum_.assign(1, 0.0);
  count_.assign(1, 0);
  planned_.assign(1, 0);
}

void TreeOptimizer::reset_tree() {
  tree_.clear();
  sum_.assign(1, 0.0);
  count_.assign(1, 0);
  planned_.assign(1, 0);
  plan_.clear();
  pos_ = 0;
  rep_ = 0;
  ++run_;
  run_planned_ = 0;
}

std::uint32_t TreeOptimizer::new_children(std::uint32_t node, unsigned count) {
  const std::uint32_t first = tree_.split(node, count);
  sum_.resize(tree_.size(), 0.0);
  count_.resize(tree_.size(), 0);
  planned_.resize(tree_.size(), 0);
  return first;
}

void TreeOptimizer::plan(std::uint32_t node, std::uint32_t reps, std::uint32_t tag) {
  if (reps == 0) return;
  planned_[node] += reps;
  push_step(Step{node, reps, tag});
}

void TreeOptimizer::push_step(const Step& step) {
  plan_.push_back(step);
  run_planned_ += step.reps;
}

Vector TreeOptimizer::representative(std::uint32_t node) const {
  Vector u(static_cast<Eigen::Index>(tree_.dim()));
  if (opt_.random_representative)
    tree_.random_point(node, derive_seed(seed() ^ kRepresentativeStream, run_), u.data());
  else
    tree_.center(node, u.data());
  return u;
}

const TreeOptimizer::Step* TreeOptimizer::next_step() {
  while (pos_ >= plan_.size()) {
    plan_.clear();
    pos_ = 0;
    rep_ = 0;
    if (!decide()) return nullptr;
  }
  return &plan_[pos_];
}

void TreeOptimizer::advance() {
  ++planned_total_;
  if (++rep_ >= plan_[pos_].reps) {
    rep_ = 0;
    ++pos_;
  }
}

std::vector<Vector> TreeOptimizer::propose(std::size_t) {
  const Step* s = next_step();
  if (!s) {
    // Every value the next decision needs is pending: an untracked filler point (docs/tree-search.md).
    Rng rng = rng_for_ask();
    return {rng.uniform_vector(static_cast<Eigen::Index>(space().dim()))};
  }
  const std::uint64_t id = history().size() + pending().size();  // the id ask() gives this point
  pending_steps_.push_back(PendingStep{id, run_, *s});
  std::vector<Vector> out{step_point(*s)};
  advance();
  return out;
}

void TreeOptimizer::record(const Step& step, double y) {
  sum_[step.node] += y;
  ++count_[step.node];
  on_value(step, y);
}

void TreeOptimizer::observe(const Observation& obs, double y) {
  for (auto it = pending_steps_.begin(); it != pending_steps_.end(); ++it) {
    if (it->id == obs.trial.id) {
      const PendingStep p = *it;
      pending_steps_.erase(it);
      if (p.run == run_) record(p.step, y);
      return;
    }
  }
  // External tell (replay, warm start): the next planned step if it is that point.
  const Step* s = next_step();
  if (!s) return;
  const Vector u = space().snap_unit(step_point(*s));
  if ((u - obs.trial.unit).cwiseAbs().maxCoeff() > kMatchTolerance) return;
  const Step step = *s;
  advance();
  record(step, y);
}

void TreeOptimizer::observe_failure(const Observation& obs) {
  for (auto it = pending_steps_.begin(); it != pending_steps_.end(); ++it)
    if (it->id == obs.trial.id) {
      pending_steps_.erase(it);
      return;
    }
}

}  // namespace optimist
