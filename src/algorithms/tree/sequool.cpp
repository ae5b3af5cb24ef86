#include <algorithm>
#include <cmath>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

namespace tree_detail {

// Cells of one level ranked by value (largest first, lower index first on ties); unevaluated
// cells have value -inf and come last.
std::vector<std::uint32_t> ranked(std::uint32_t begin, std::uint32_t end, const std::vector<double>& sum,
                                  const std::vector<std::uint32_t>& count, std::size_t keep, const Partition& tree) {
  std::vector<std::pair<double, std::uint32_t>> v;
  v.reserve(end - begin);
  for (std::uint32_t i = begin; i < end; ++i)
    if (tree.splittable(i))  // a cell holding a single point cannot be opened
      v.emplace_back(count[i] ? sum[i] / count[i] : -HUGE_VAL, i);
  keep = std::min(keep, v.size());
  auto better = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(keep), v.end(), better);
  std::vector<std::uint32_t> out(keep);
  for (std::size_t i = 0; i < keep; ++i) out[i] = v[i].second;
  return out;
}

}  // namespace tree_detail

using tree_detail::ranked;

std::vector<std::uint64_t> SequOOL::schedule(std::uint64_t n, unsigned k, std::uint64_t* partial, std::size_t* partial_depth,
                                             std::uint64_t* h_max_out) {
  std::uint64_t part = 0;
  std::size_t part_depth = 0;
  std::vector<std::uint64_t> o;
  std::uint64_t h_max = 0;
  if (n < k) {  // not even the root opening fits: a partial one
    o = {0};
    part = n;
  } else {
    // Fig. 1: h_max = floor(N / Hbar_N) with N = floor(n / K) openings (each evaluates K children).
    const std::uint64_t N = n / k;
    double harmonic = 0.0;
    for (std::uint64_t t = 1; t <= N; ++t) harmonic += 1.0 / static_cast<double>(t);
    h_max = static_cast<std::uint64_t>(std::floor(static_cast<double>(N) / harmonic));
    // Openings at depth h: min(floor(H/h), cells at depth h) (Remark 3.2), H = c * h_max.
    auto openings = [&](std::uint64_t H) {
      std::vector<std::uint64_t> v(h_max + 1);
      v[0] = 1;
      for (std::uint64_t h = 1; h <= h_max; ++h) v[h] = std::min(H / h, k * v[h - 1]);
      return v;
    };
    auto cost = [&](std::uint64_t H) {
      std::uint64_t c = 0;
      for (auto x : openings(H)) c += k * x;
      return c;
    };
    // Remark 3.2: the largest c with K (1 + sum_h floor(c h_max / h)) <= n; floor(c h_max / h)
    // only depends on floor(c h_max), so H = c h_max is searched over the integers.
    std::uint64_t lo = 0, hi = n;  // cost(0) = K <= n
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (cost(mid) <= n) lo = mid; else hi = mid - 1;
    }
    o = openings(lo);
    const std::uint64_t r = n - cost(lo);
    // Whatever the floors leave (r < K * a few) is spent on extra openings at the deepest depth
    // with an unopened cell, then a partial opening (r mod K children).
    auto deepest_with_room = [&]() {
      for (std::size_t h = o.size() - 1; h >= 1; --h)
        if (o[h] < k * o[h - 1]) return h;
      o.push_back(0);
      return o.size() - 1;
    };
    for (std::uint64_t q = r / k; q > 0; --q) ++o[deepest_with_room()];
    part = r % k;
    if (part) part_depth = deepest_with_room();
  }
  if (partial) *partial = part;
  if (partial_depth) *partial_depth = part_depth;
  if (h_max_out) *h_max_out = h_max;
  return o;
}

SequOOL::SequOOL(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context,
                 Output output, std::uint32_t repeats)
    : TreeOptimizer("sequool", space, direction, options, context), output_(output), repeats_(repeats) {
  start_run();
}

void SequOOL::start_run() {
  // Remark 3.1 (doubling trick): run j has n * 2^j evaluations (n = 64 without a budget).
  const std::uint64_t n = (budget_ ? budget_ : 64) << std::min<std::uint64_t>(run_, 40);
  if (repeats_ == kAutoRepeats && run_ == 0) {
    // A deterministic objective (declared, the default) needs no pilot: Fig. 1's SequOOL.
    if (n >= 2 + opt_.children && !avoids_repeats()) {  // pilot: is the feedback deterministic?
      pilot_ = true;
      pilot_rest_ = n - 2;
      reps_ = 1;
      sched_.clear();
      depth_ = 0;
      plan(0, 2);
      return;
    }
    repeats_ = 1;
  }
  schedule_run(n, repeats_ == kAutoRepeats ? 1 : repeats_);
}

void SequOOL::schedule_run(std::uint64_t n, std::uint32_t p) {
  // SequOOL(p): floor(n/p) cells evaluated p times each; the remainder goes to the first evaluation.
  reps_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(p, n));
  extra_ = n - reps_ * (n / reps_);
  sched_ = schedule(n / reps_, opt_.children, &partial_, &partial_depth_);
  done_.assign(sched_.size(), 0);
  depth_ = 0;
  level_begin_ = 0;
  level_end_ = 1;
}

bool SequOOL::decide() {
  if (pilot_) {
    if (has_pending()) return false;
    pilot_ = false;
    // Two equal values of the same point: deterministic feedback, Fig. 1's SequOOL; otherwise
    // SequOOL(p) of sec. 4 with the p chosen in docs/tree-search.md. A failed pilot value: Fig. 1.
    const bool noisy = pilot_values_.size() == 2 &&
                       std::abs(pilot_values_[0] - pilot_values_[1]) >
                           1e-12 * std::max({1.0, std::abs(pilot_values_[0]), std::abs(pilot_values_[1])});
    repeats_ = noisy ? kNoisyRepeats : 1;
    schedule_run(pilot_rest_, repeats_);
  }
  for (int runs = 0; runs < 2;) {
    if (depth_ >= sched_.size()) {  // run finished: next run of the doubling trick
      if (output_ == Output::LowerConfidence) lcb_previous_unit_ = representative(lower_confidence_node());
      reset_tree();
      start_run();
      ++runs;
      continue;
    }
    const std::size_t h = depth_++;
    const bool has_partial = partial_ > 0 && partial_depth_ == h;
    // Fig. 1: open the floor(h_max/h) cells of depth h with largest values f_{h,i}.
    const auto open = ranked(level_begin_, level_end_, sum_, count_, sched_[h] + (has_partial ? 1 : 0), tree_);
    const std::uint32_t next_begin = tree_.size();
    for (std::size_t i = 0; i < open.size(); ++i) {
      const bool partial = has_partial && i + 1 == open.size() && open.size() == sched_[h] + 1;
      const unsigned kids = partial ? static_cast<unsigned>(partial_) : opt_.children;
      const std::uint32_t first = new_children(open[i], kids);
      for (unsigned c = 0; c < tree_.num_children(open[i]); ++c) {
        plan(first + c, static_cast<std::uint32_t>(reps_ + extra_));
        extra_ = 0;
      }
      ++done_[h];
    }
    // The largest-valued cell opened at the deepest depth so far (a later run replaces it once it
    // is as deep): the "deepest" output.
    if (!open.empty() && count_[open[0]] > 0 && (run_ == deepest_run_ || h >= deepest_depth_)) {
      deepest_depth_ = h;
      deepest_run_ = static_cast<std::uint32_t>(run_);
      deepest_unit_ = representative(open[0]);
    }
    level_begin_ = next_begin;
    level_end_ = tree_.size();
    if (!open.empty()) return true;
  }
  return false;
}

void SequOOL::on_value(const Step& step, double y) {
  if (pilot_) {
    pilot_values_.push_back(y);
    return;
  }
  // Output x(n) = argmax of the evaluated f_{h,i} (with p repeats: of the cell means, once complete).
  if (reps_ > 1) {
    if (count_[step.node] < reps_) return;
    y = mean(step.node);
  }
  if (y > best_) {
    best_ = y;
    best_unit_ = representative(step.node);
  }
}

Vector SequOOL::recommend_unit() const {
  if (output_ == Output::Deepest && deepest_unit_.size()) return deepest_unit_;
  if (output_ == Output::LowerConfidence) {
    // Doubling trick: a run still under way answers with the last finished run's output.
    if (run_ > 0 && depth_ < sched_.size() && lcb_previous_unit_.size()) return lcb_previous_unit_;
    if (best_unit_.size()) return representative(lower_confidence_node());
  }
  return best_unit_.size() ? best_unit_ : Optimizer::recommend_unit();
}

namespace {

struct SequoolSettings {
  TreeOptions tree;
  SequOOL::Output output = SequOOL::Output::LowerConfidence;
  std::uint32_t repeats = 0;
};

constexpr EnumNames<SequOOL::Output, 3> kOutputNames{{{{SequOOL::Output::LowerConfidence, "lcb"},
                                                       {SequOOL::Output::Deepest, "deepest"},
                                                       {SequOOL::Output::Best, "best"}}}};

const OptionTable<SequoolSettings>& sequool_options() {
  static const auto table =
      OptionTable<SequoolSettings>()
          .include(tree_option_table(), &SequoolSettings::tree)
          .choice("output", &SequoolSettings::output, kOutputNames,
                  "x(n): \"lcb\" = the cell whose value or subtree mean has the largest lower confidence bound "
                  "(noise sd estimated from deep parent-child differences; Fig. 1's output when f is deterministic), "
                  "\"best\" = Fig. 1's argmax of the single evaluations (winner's curse under noise), "
                  "\"deepest\" = the best cell opened at the deepest depth")
          .integer("repeats", &SequoolSettings::repeats, 0, 1000000,
                   "p: evaluations per cell, SequOOL(p) of sec. 4 (1: Fig. 1; more averages noise, opens fewer "
                   "cells); 0: auto, the root evaluated twice first: p = 1 if both values are equal "
                   "(deterministic), 4 otherwise");
  return table;
}

}  // namespace

AlgorithmInfo sequool_info() {
  AlgorithmInfo info;
  info.name = "sequool";
  info.family = "tree";
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "n, the number of evaluations the run plans for; without one: anytime by the doubling trick (runs of 64, 128, ...)";
  info.summary = "SequOOL (Bartlett, Gabillon & Valko, ALT 2019, Fig. 1): deterministic, Zipf openings floor(h_max/h) per depth";
  info.options = sequool_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    const SequoolSettings o = sequool_options().read(v);
    return std::make_unique<SequOOL>(space, direction, o.tree, context, o.output, o.repeats);
  };
  return info;
}

}  // namespace optimist
