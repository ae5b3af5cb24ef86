#include <algorithm>
#include <cmath>

#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

namespace tree_detail {
std::vector<std::uint32_t> ranked(std::uint32_t begin, std::uint32_t end, const std::vector<double>& sum,
                                  const std::vector<std::uint32_t>& count, std::size_t keep, const Partition& tree);
}  // namespace tree_detail

namespace {
std::uint64_t floor_log2(std::uint64_t x) {
  std::uint64_t p = 0;
  while (x > 1) {
    x >>= 1;
    ++p;
  }
  return p;
}
}  // namespace

std::uint64_t StroquOOL::p_max_for(std::uint64_t h_max, bool log2) {
  if (h_max == 0) return 0;
  if (log2) return floor_log2(h_max);
  // Fig. 2: p_max = floor(log h_max), natural log (sec. 2: "without a subscript, log is the
  // natural logarithm"); the largest p with e^p <= h_max, exact for integers.
  std::uint64_t p = 0;
  while (std::exp(static_cast<double>(p + 1)) <= static_cast<double>(h_max)) ++p;
  return p;
}

std::uint64_t StroquOOL::evaluations(std::uint64_t H, unsigned k, bool p_max_log2) {
  if (H == 0) return 0;
  std::uint64_t e = k * H;  // Init: open P_{0,1} h_max times
  // T values of the cells of the current depth, in decreasing order: which cells are eligible
  // (T_{h,i} >= floor(h_max/(h m))) does not depend on f, so the count is exact.
  std::vector<std::uint64_t> avail(k, H), next;
  for (std::uint64_t h = 1; h <= H && !avail.empty(); ++h) {
    next.clear();
    std::size_t ptr = 0, opened = 0;
    for (std::uint64_t m = 1; m <= H / h; ++m) {
      const std::uint64_t need = H / (h * m);
      while (ptr < avail.size() && avail[ptr] >= need) ++ptr;
      if (ptr > opened) {  // a non-opened cell with T >= need exists
        ++opened;
        e += k * need;
        next.insert(next.end(), k, need);
      }
    }
    avail.swap(next);
  }
  return e + (p_max_for(H, p_max_log2) + 1) * (H / 2);  // cross-validation: (p_max + 1) * floor(h_max / 2)
}

std::uint64_t StroquOOL::fit_h_max(std::uint64_t n, unsigned k, bool p_max_log2) {
  if (evaluations(1, k, p_max_log2) > n) return 0;
  std::uint64_t lo = 1, hi = 2;
  while (evaluations(hi, k, p_max_log2) <= n) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (evaluations(mid, k, p_max_log2) <= n) lo = mid; else hi = mid;
  }
  return lo;
}

StroquOOL::StroquOOL(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context,
                     bool p_max_log2)
    : TreeOptimizer("stroquool", space, direction, options, context), p_max_log2_(p_max_log2) {
  start_run();
}

void StroquOOL::start_run() {
  n_run_ = (budget_ ? budget_ : 64) << std::min<std::uint64_t>(run_, 40);
  h_max_ = fit_h_max(n_run_, opt_.children, p_max_log2_);
  p_max_ = p_max_for(h_max_, p_max_log2_);
  depth_ = 0;
  cv_planned_ = run_done_ = false;
  level_begin_ = 0;
  level_end_ = 1;
  openings_.assign(h_max_ + 1, 0);
  evals_.assign(h_max_ + 1, 0);
  cv_evals_ = 0;
  candidates_.clear();
  cv_sum_.clear();
  cv_count_.clear();
}

bool StroquOOL::decide() {
  const unsigned k = opt_.children;
  for (int runs = 0; runs < 2;) {
    if (run_done_) {  // the run's output x(n), then the next run of the doubling trick
      output_unit_ = representative(output());
      has_output_ = true;
      reset_tree();
      start_run();
      ++runs;
      continue;
    }
    if (h_max_ == 0) {  // budget below 2K: the root's children share it, output the best mean
      if (!tree_.splittable(0)) return false;  // a space of one point
      const std::uint32_t first = new_children(0);
      const unsigned kids = tree_.num_children(0);
      for (unsigned c = 0; c < kids; ++c) {
        plan(first + c, static_cast<std::uint32_t>(n_run_ / kids + (c < n_run_ % kids ? 1 : 0)));
        candidates_.push_back(first + c);
      }
      cv_planned_ = run_done_ = true;
      if (n_run_ > 0) return true;
      continue;
    }
    const auto H = h_max_;
    if (depth_ == 0) {  // Init: open P_{0,1} h_max times
      if (!tree_.splittable(0)) return false;  // a space of one point
      const std::uint32_t first = new_children(0);
      for (unsigned c = 0; c < tree_.num_children(0); ++c) plan(first + c, static_cast<std::uint32_t>(H));
      openings_[0] = 1;
      evals_[0] = k * H;
      level_begin_ = first;
      level_end_ = tree_.size();
      depth_ = 1;
      return true;
    }
    if (depth_ <= H) {  // Exploration at depth h
      const std::uint64_t h = depth_++;
      const auto order = tree_detail::ranked(level_begin_, level_end_, sum_, count_, level_end_ - level_begin_, tree_);
      std::vector<char> opened(order.size(), 0);
      const std::uint32_t next_begin = tree_.size();
      for (std::uint64_t m = 1; m <= H / h; ++m) {
        // Open floor(h_max/(h m)) times the non-opened cell of depth h with the highest f^_{h,i}
        // among those with T_{h,i} >= floor(h_max/(h m)) (T counted as planned evaluations).
        const std::uint64_t need = H / (h * m);
        for (std::size_t i = 0; i < order.size(); ++i) {
          if (opened[i] || planned_[order[i]] < need) continue;
          opened[i] = 1;
          const std::uint32_t first = new_children(order[i]);
          for (unsigned c = 0; c < tree_.num_children(order[i]); ++c) plan(first + c, static_cast<std::uint32_t>(need));
          ++openings_[h];
          evals_[h] += k * need;
          break;
        }
      }
      level_begin_ = next_begin;
      level_end_ = tree_.size();
      if (level_end_ > level_begin_) return true;
      depth_ = H + 1;  // nothing deeper can be opened
      continue;
    }
    // Cross-validation: x(n,p) = argmax over T_{h,i} >= 2^p of f^_{h,i}, each evaluated
    // floor(h_max/2) times; what the floors leave of n is shared among them (Appendix B).
    const std::uint64_t left = n_run_ - evaluations(H, k, p_max_log2_);
    cv_sum_.assign(p_max_ + 1, 0.0);
    cv_count_.assign(p_max_ + 1, 0);
    for (std::uint64_t p = 0; p <= p_max_; ++p) {
      std::uint32_t best = 0;
      double best_mean = -HUGE_VAL;
      for (std::uint32_t i = 1; i < tree_.size(); ++i)
        if (planned_[i] >= (std::uint64_t{1} << p) && count_[i] > 0 && mean(i) > best_mean) {
          best_mean = mean(i);
          best = i;
        }
      if (best == 0) best = 1;  // every evaluation failed
      candidates_.push_back(best);
    }
    // Planned only now: T_{h,i} of the selection above counts exploration evaluations only.
    for (std::uint64_t p = 0; p <= p_max_; ++p) {
      const std::uint32_t best = candidates_[p];
      const std::uint64_t reps = H / 2 + left / (p_max_ + 1) + (p < left % (p_max_ + 1) ? 1 : 0);
      plan(best, static_cast<std::uint32_t>(reps), static_cast<std::uint32_t>(1 + p));
      cv_evals_ += reps;
    }
    cv_planned_ = run_done_ = true;
    if (cv_evals_ > 0) return true;
  }
  return false;
}

void StroquOOL::on_value(const Step& step, double y) {
  if (step.tag >= 1 && step.tag - 1 < cv_sum_.size()) {
    cv_sum_[step.tag - 1] += y;
    ++cv_count_[step.tag - 1];
  }
}

// Output x(n) = argmax over the candidates x(n,p) of their cross-validation mean (pooled when two
// p share a cell; the tree mean when a candidate has no cross-validation value).
std::uint32_t StroquOOL::output() const {
  std::uint32_t best = candidates_.empty() ? 1 : candidates_.front();
  double best_value = -HUGE_VAL;
  for (std::size_t p = 0; p < candidates_.size(); ++p) {
    const std::uint32_t c = candidates_[p];
    double s = 0.0;
    std::uint64_t n = 0;
    for (std::size_t q = 0; q < candidates_.size() && q < cv_sum_.size(); ++q)
      if (candidates_[q] == c) {
        s += cv_sum_[q];
        n += cv_count_[q];
      }
    const double v = n ? s / static_cast<double>(n) : mean(c);
    if (v > best_value) {
      best_value = v;
      best = c;
    }
  }
  return best;
}

std::vector<std::pair<Vector, double>> StroquOOL::candidates() const {
  std::vector<std::pair<Vector, double>> out;
  for (std::size_t p = 0; p < candidates_.size(); ++p)
    out.emplace_back(representative(candidates_[p]),
                     p < cv_count_.size() && cv_count_[p] ? cv_sum_[p] / cv_count_[p] : std::nan(""));
  return out;
}

Vector StroquOOL::recommend_unit() const {
  if (recommends_best_evaluated()) return Optimizer::recommend_unit();
  if (cv_planned_ && tree_.size() > 1) return representative(output());
  if (has_output_) return output_unit_;
  // Mid-run without an earlier run: x(n,p) for the largest p that has a candidate.
  std::uint32_t best = 0;
  for (std::uint32_t i = 1; i < tree_.size(); ++i)
    if (count_[i] > 0 && (best == 0 || planned_[i] > planned_[best] || (planned_[i] == planned_[best] && mean(i) > mean(best))))
      best = i;
  if (best == 0) return Optimizer::recommend_unit();
  return representative(best);
}

namespace {

enum class PMax { Log2, Ln };
constexpr EnumNames<PMax, 2> kPMaxNames{{{{PMax::Log2, "log2"}, {PMax::Ln, "ln"}}}};

struct StroquoolSettings {
  TreeOptions tree;
  PMax p_max = PMax::Log2;
  TreeRecommend recommend = TreeRecommend::Auto;
};

const OptionTable<StroquoolSettings>& stroquool_options() {
  static const auto table =
      OptionTable<StroquoolSettings>()
          .include(tree_option_table(), &StroquoolSettings::tree)
          .choice("p_max", &StroquoolSettings::p_max, kPMaxNames,
                  "cross-validation candidates p = 0..p_max: floor(log2 h_max) as in sec. 4.1's text (every T = 2^p "
                  "up to h_max), or floor(ln h_max) as written in Fig. 2")
          .choice("recommend", &StroquoolSettings::recommend, kTreeRecommendNames,
                  "output: the paper's x(n) (cross-validated candidates), the best evaluated point, or auto: best "
                  "on a deterministic objective, the paper's on a noisy one");
  return table;
}

}  // namespace

AlgorithmInfo stroquool_info() {
  AlgorithmInfo info;
  info.name = "stroquool";
  info.family = "tree";
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "n, the number of evaluations the run plans for; without one: anytime by the doubling trick (runs of 64, 128, ...)";
  info.summary = "StroquOOL (Bartlett, Gabillon & Valko, ALT 2019, Fig. 2): noisy feedback, repeated evaluations and cross-validation";
  info.options = stroquool_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    const StroquoolSettings o = stroquool_options().read(v);
    auto stroquool = std::make_unique<StroquOOL>(space, direction, o.tree, context, o.p_max == PMax::Log2);
    stroquool->set_recommend(o.recommend);
    return stroquool;
  };
  return info;
}

}  // namespace optimist
