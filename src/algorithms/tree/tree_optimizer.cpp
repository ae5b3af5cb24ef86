#include <algorithm>
#include <cmath>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

namespace {
constexpr std::uint64_t kRepresentativeStream = 0x74726565ULL;  // "tree"
constexpr double kMatchTolerance = 1e-12;
// Planned steps whose value is already known (deterministic objectives) consumed per ask before a
// free filler point is asked instead.
constexpr std::size_t kMaxKnownSteps = 20000;
// Steps attached to pending trials per ask: an algorithm that decides one step at a time (HOO,
// POO) selects a pending point again and again; past this many the ask gets a filler point.
constexpr std::size_t kMaxWaitingSteps = 64;
}  // namespace

namespace tree_detail {
std::vector<std::size_t> cardinalities(const Space& space) {
  std::vector<std::size_t> c;
  // A log-scale integer's cells are unequal: split like a continuous side (its values are snapped).
  for (const auto& p : space.parameters())
    c.push_back(p.kind == ParameterKind::Continuous || p.log_scale ? 0 : p.cardinality());
  return c;
}
}  // namespace tree_detail

const OptionTable<TreeOptions>& tree_option_table() {
  static const auto table =
      OptionTable<TreeOptions>()
          .integer("children", &TreeOptions::children, 2, 3, "K: children per split along the longest side (2 or 3)")
          .choice("representative", &TreeOptions::representative, kRepresentativeNames,
                  "x_{h,i} of a cell: its center, or a seeded random point inside it");
  return table;
}

TreeOptimizer::TreeOptimizer(std::string name, const Space& space, Direction direction, const TreeOptions& options,
                             const RunContext& context)
    : Optimizer(std::move(name), space, direction, context),
      opt_(options),
      budget_(context.horizon.value_or(0)),
      tree_(space.dim(), options.children, tree_detail::cardinalities(space)) {
  if (options.children != 2 && options.children != 3)
    throw InvalidArgument(this->name() + ": option children must be 2 or 3, got " + std::to_string(options.children));
  sum_.assign(1, 0.0);
  count_.assign(1, 0);
  planned_.assign(1, 0);
  parent_.assign(1, 0);
}

void TreeOptimizer::reset_tree() {
  tree_.clear();
  sum_.assign(1, 0.0);
  count_.assign(1, 0);
  planned_.assign(1, 0);
  parent_.assign(1, 0);
  plan_.clear();
  pos_ = 0;
  rep_ = 0;
  withdrawn_steps_.clear();
  ++run_;
  run_planned_ = 0;
}

std::uint32_t TreeOptimizer::new_children(std::uint32_t node, unsigned count) {
  const std::uint32_t first = tree_.split(node, count);
  parent_.resize(tree_.size(), node);
  sum_.resize(tree_.size(), 0.0);
  count_.resize(tree_.size(), 0);
  planned_.resize(tree_.size(), 0);
  return first;
}

std::uint32_t TreeOptimizer::lower_confidence_node() const {
  const std::uint32_t n = tree_.size();
  std::uint32_t max_depth = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    if (count_[i]) max_depth = std::max(max_depth, tree_.depth(i));
  // Noise scale: median |f_child - f_parent| / (0.6745 sqrt 2) over evaluated pairs in the deeper
  // half (all pairs if the deeper half has fewer than 8): a robust estimate of the noise sd once
  // cells are so small that f is flat across them.
  std::vector<double> deep, all;
  for (std::uint32_t i = 1; i < n; ++i) {
    if (!count_[i] || !count_[parent_[i]]) continue;
    const double diff = std::abs(mean(i) - mean(parent_[i]));
    all.push_back(diff);
    if (2 * tree_.depth(i) >= max_depth) deep.push_back(diff);
  }
  auto& pairs = deep.size() >= 8 ? deep : all;
  double sigma = 0.0;
  // A deterministic objective (declared) has no noise: the best-valued node (Fig. 1's output). On
  // integer/categorical spaces the deepest cells are single points whose values differ, which the
  // estimate below would read as noise.
  if (!pairs.empty() && !avoids_repeats()) {
    auto mid = pairs.begin() + static_cast<std::ptrdiff_t>(pairs.size() / 2);
    std::nth_element(pairs.begin(), mid, pairs.end());
    sigma = *mid / (0.6745 * std::sqrt(2.0));
  }
  // Subtree sums of node values and the deepest evaluated node of each subtree (ties: larger
  // value); children are always numbered after their parent.
  std::vector<double> sub_sum(n, 0.0);
  std::vector<std::uint32_t> sub_count(n, 0);
  std::vector<std::uint32_t> deepest(n, 0);
  auto deeper = [&](std::uint32_t a, std::uint32_t b) {  // is a a better "deepest" than b?
    return tree_.depth(a) > tree_.depth(b) || (tree_.depth(a) == tree_.depth(b) && mean(a) > mean(b));
  };
  std::uint32_t evaluated = 0;
  for (std::uint32_t i = n; i-- > 0;) {
    if (count_[i]) {
      sub_sum[i] += mean(i);
      ++sub_count[i];
      ++evaluated;
      if (sub_count[i] == 1 || deeper(i, deepest[i])) deepest[i] = i;
    }
    if (i > 0 && sub_count[i]) {
      const std::uint32_t up = parent_[i];
      if (sub_count[up] == 0 || deeper(deepest[i], deepest[up])) deepest[up] = deepest[i];
      sub_sum[up] += sub_sum[i];
      sub_count[up] += sub_count[i];
    }
  }
  if (!evaluated) return 0;
  // A node wins by its own value, or by its subtree's mean: then the subtree's deepest evaluated
  // cell is the answer (the search's own most refined point there, not the coarse cell's center).
  const double z2 = 2.0 * std::log(std::max<double>(evaluated, 2.0));
  double best = -HUGE_VAL;
  std::uint32_t best_node = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!count_[i]) continue;
    const double own = mean(i) - sigma * std::sqrt(z2);
    const double subtree = sub_sum[i] / sub_count[i] - sigma * std::sqrt(z2 / sub_count[i]);
    if (own > best) {
      best = own;
      best_node = i;
    }
    if (subtree > best) {
      best = subtree;
      best_node = deepest[i];
    }
  }
  return best_node;
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
  if (opt_.representative == Representative::Random)
    tree_.random_point(node, derive_seed(seed() ^ kRepresentativeStream, run_), u.data());
  else
    tree_.center(node, u.data());
  return u;
}

const TreeOptimizer::Step* TreeOptimizer::next_step() {
  from_withdrawn_ = !withdrawn_steps_.empty();
  if (from_withdrawn_) return &withdrawn_steps_.front().step;
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
  if (from_withdrawn_) {
    withdrawn_steps_.pop_front();
    from_withdrawn_ = false;
    return;
  }
  ++plan_order_;
  if (++rep_ >= plan_[pos_].reps) {
    rep_ = 0;
    ++pos_;
  }
}

std::optional<std::uint64_t> TreeOptimizer::pending_id(const Vector& u) const {
  const Vector x = user_point(u);
  for (const Trial& t : pending())
    if (t.x == x) return t.id;
  return std::nullopt;
}

const TreeOptimizer::Step* TreeOptimizer::next_new_step(const Vector* told) {
  // A deterministic objective gives a point's value once: a planned step whose point has been
  // evaluated takes the known value at once (a cell holding one evaluated point is not evaluated
  // again), one whose point is pending waits for that trial's value, and the plan moves on. With a
  // noisy objective every step is an evaluation (repeated samples keep their theory).
  std::size_t waiting = 0;
  for (std::size_t guard = 0; guard < kMaxKnownSteps; ++guard) {
    const Step* s = next_step();
    if (!s || !avoids_repeats()) return s;
    const Vector u = step_point(*s);
    if (told && (space().snap_unit(u) - *told).cwiseAbs().maxCoeff() <= kMatchTolerance) return s;
    if (const auto v = evaluated_value(u)) {
      const Step step = *s;
      advance();
      record(step, *v);
      continue;
    }
    if (evaluated_failed(u)) {
      advance();
      continue;
    }
    if (const auto id = pending_id(u)) {
      if (++waiting > kMaxWaitingSteps) return nullptr;
      pending_steps_.push_back(PendingStep{*id, run_, *s, step_order()});
      advance();
      continue;
    }
    return s;
  }
  return nullptr;
}

std::vector<Vector> TreeOptimizer::propose(std::size_t) {
  const Step* s = next_new_step(nullptr);
  if (!s) {
    // Every value the next decision needs is pending (or the plan revisits known points only): an
    // untracked filler point, uniform over the free points (docs/tree-search.md).
    Rng rng = rng_for_ask();
    return {free_uniform_point(rng)};
  }
  const std::uint64_t id = next_trial_id();  // the id ask() gives this point
  pending_steps_.push_back(PendingStep{id, run_, *s, step_order()});
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
  // Every step waiting for this trial (its own, and steps of the same point planned while it was
  // pending), in the order they were planned.
  bool found = false;
  for (std::size_t k = 0; k < pending_steps_.size();) {
    if (pending_steps_[k].id != obs.trial.id) {
      ++k;
      continue;
    }
    const PendingStep p = pending_steps_[k];
    pending_steps_.erase(pending_steps_.begin() + static_cast<std::ptrdiff_t>(k));
    found = true;
    if (p.run == run_) record(p.step, y);
  }
  if (found) return;
  // External tell (replay, warm start): the next planned step if it is that point (steps of known
  // points before it are consumed as propose() does).
  const Step* s = next_new_step(&obs.trial.unit);
  if (!s) return;
  const Vector u = space().snap_unit(step_point(*s));
  if ((u - obs.trial.unit).cwiseAbs().maxCoeff() > kMatchTolerance) return;
  const Step step = *s;
  advance();
  record(step, y);
}

void TreeOptimizer::observe_pending(const Trial& trial) {
  // Another worker's ask: when it is the next planned step's point, that step is taken (as our
  // own propose would have); otherwise it is an untracked point (a filler or a queued point).
  const Step* s = next_new_step(&trial.unit);
  if (!s || (space().snap_unit(step_point(*s)) - trial.unit).cwiseAbs().maxCoeff() > kMatchTolerance) return;
  pending_steps_.push_back(PendingStep{trial.id, run_, *s, step_order()});
  advance();
}

void TreeOptimizer::observe_failure(const Observation& obs) {
  const auto before = pending_steps_.size();
  std::erase_if(pending_steps_, [&](const PendingStep& p) { return p.id == obs.trial.id; });
  if (pending_steps_.size() != before) return;
  // External failure (replay of a trace): the planned step it answered is used up, as in the run.
  const Step* s = next_new_step(&obs.trial.unit);
  if (s && (space().snap_unit(step_point(*s)) - obs.trial.unit).cwiseAbs().maxCoeff() <= kMatchTolerance) advance();
}

void TreeOptimizer::observe_withdrawn(const Trial& trial) {
  // The steps waiting for this trial go back into the plan ahead of its unasked steps, in the
  // order they were planned: the next ask asks the first again (the others attach to it, as
  // when they were planned).
  std::erase_if(pending_steps_, [&](const PendingStep& p) {
    if (p.id != trial.id) return false;
    --planned_total_;  // handed out again when asked again
    if (p.run == run_) {
      const auto at = std::upper_bound(withdrawn_steps_.begin(), withdrawn_steps_.end(), p.order,
                                       [](std::uint64_t order, const PendingStep& w) { return order < w.order; });
      withdrawn_steps_.insert(at, p);
    }
    return true;
  });
}

}  // namespace optimist
