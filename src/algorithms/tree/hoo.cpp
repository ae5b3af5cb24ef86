// HOO, Bubeck, Munos, Stoltz & Szepesvari, "X-armed bandits", JMLR 2011, Fig. 1 (the HOO
// strategy), with the known-horizon truncated depth (t-HOO) as POO (Grill et al. 2015) uses it.
#include "optimist/algorithms/tree/hoo.hpp"

#include <cmath>
#include <limits>

#include "optimist/core/rng.hpp"

namespace optimist {

namespace tree_detail {
std::vector<std::size_t> cardinalities(const Space& space);
}  // namespace tree_detail

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kPointStream = 0x686f6fULL;  // "hoo"
constexpr double kFirstHorizon = 64.0;               // anytime mode: horizons 64, 128, ...
}  // namespace

std::uint32_t hoo_truncation_depth(double nu, double rho, double horizon) {
  // nu rho^h <= N^(-1/2)  <=>  h >= (ln nu + ln(N)/2) / ln(1/rho).
  const double h = std::ceil((std::log(nu) + 0.5 * std::log(horizon)) / std::log(1.0 / rho));
  // NaN from an invalid nu or rho, which option validation then reports (UBSan caught the cast).
  if (std::isnan(h)) return 1;
  return static_cast<std::uint32_t>(std::clamp(h, 1.0, 60.0));
}

HooTree::HooTree(std::size_t dim, unsigned children, double nu, double rho, double horizon, std::uint32_t h_max,
                 std::vector<std::size_t> cardinalities)
    : tree_(dim, children, std::move(cardinalities)), nu_(nu), rho_(rho), horizon_(horizon), log_horizon_(std::log(std::max(horizon, 2.0))),
      h_max_(std::max<std::uint32_t>(h_max, 1)) {
  // Fig. 1, init: the tree holds the root only; B of nodes outside the tree is +inf.
  sum_.assign(1, 0.0);
  b_.assign(1, kInf);
  count_.assign(1, 0);
  visits_.assign(1, 1);
  first_child_.assign(1, 0);
  parent_.assign(1, 0);
  exhausted_.assign(1, 0);
}

double HooTree::mean(std::uint32_t node) const {
  return count_[node] ? sum_[node] / count_[node] : -kInf;
}

// U_{h,i}(n) = mu^_{h,i} + sqrt(2 ln n / T_{h,i}) + nu1 rho^h (Fig. 1), +inf when T = 0; the width is
// scaled by the noise range b~ (rewards in [0, b~]; Grill et al. 2015 and Bartlett et al. 2019 sec. 5).
double HooTree::u_value(std::uint32_t node) const {
  const std::uint32_t t = count_[node];
  if (t == 0) return kInf;
  return sum_[node] / t + noise_range_ * std::sqrt(2.0 * log_horizon_ / t) + nu_ * std::pow(rho_, tree_.depth(node));
}

// B_{h,i} = min{U_{h,i}, max(B of the children)}, children outside the tree counting +inf (Fig. 1).
double HooTree::b_of(std::uint32_t node) const {
  if (exhausted_[node]) return -kInf;
  double child_max = kInf;  // a leaf: no bound from children
  if (first_child_[node] != 0 && tree_.depth(node) < h_max_) {
    child_max = -kInf;
    for (unsigned c = 0; c < tree_.num_children(node); ++c) {
      const std::uint32_t ch = first_child_[node] + c;
      child_max = std::max(child_max, in_tree(ch) ? b_[ch] : kInf);
    }
  }
  return std::min(u_value(node), child_max);
}

std::uint32_t HooTree::select() {
  // Fig. 1, lines "(h,i) <- (0,1); while (h,i) in T: follow the child with the larger B".
  std::uint32_t node = 0;
  ++visits_[0];
  while (tree_.depth(node) < h_max_) {
    if (first_child_[node] == 0 && !tree_.splittable(node)) break;  // a single point: pulled again
    if (first_child_[node] == 0) {  // the partition creates all K children at once
      const std::uint32_t first = tree_.split(node);
      first_child_[node] = first;
      const std::size_t size = tree_.size();
      sum_.resize(size, 0.0);
      b_.resize(size, kInf);
      count_.resize(size, 0);
      visits_.resize(size, 0);
      first_child_.resize(size, 0);
      parent_.resize(size, node);
      exhausted_.resize(size, 0);
    }
    std::uint32_t best = first_child_[node];
    double best_b = -kInf;
    for (unsigned c = 0; c < tree_.num_children(node); ++c) {
      const std::uint32_t ch = first_child_[node] + c;
      const double b = in_tree(ch) ? b_[ch] : kInf;
      if (b > best_b) {
        best_b = b;
        best = ch;
      }
    }
    const bool was_in_tree = in_tree(best);
    ++visits_[best];
    node = best;
    if (!was_in_tree) break;  // (H,I): the new node, added to the tree
  }
  return node;
}

void HooTree::update(std::uint32_t node, double y) {
  // Fig. 1, "update the statistics T and mu^ of the nodes of the path", then U and B along the
  // path only: off-path nodes keep T, mu^ and (the horizon being fixed) U and B.
  pulled_.push_back(node);
  for (std::uint32_t v = node;; v = parent_[v]) {
    sum_[v] += y;
    ++count_[v];
    if (v == 0) break;
  }
  for (std::uint32_t v = node;; v = parent_[v]) {
    b_[v] = b_of(v);
    if (v == 0) break;
  }
}

void HooTree::exhaust(std::uint32_t node) {
  exhausted_[node] = 1;
  for (std::uint32_t v = node;; v = parent_[v]) {
    b_[v] = b_of(v);
    if (v == 0) break;
  }
}

void HooTree::set_horizon(double horizon, std::uint32_t h_max) {
  horizon_ = horizon;
  log_horizon_ = std::log(std::max(horizon, 2.0));
  h_max_ = std::max<std::uint32_t>(h_max, 1);
  // Children are numbered after their parent: reverse order is bottom-up.
  for (std::uint32_t v = tree_.size(); v-- > 0;)
    if (in_tree(v)) b_[v] = b_of(v);
}

std::vector<double> HooTree::b_values_from_scratch(const std::vector<double>& rewards) const {
  // T and mu^ recounted from the pulls and their rewards, then U and B from their definitions.
  const std::uint32_t size = tree_.size();
  std::vector<double> sum(size, 0.0), b(size, kInf);
  std::vector<std::uint32_t> count(size, 0);
  for (std::size_t j = 0; j < pulled_.size() && j < rewards.size(); ++j)
    for (std::uint32_t v = pulled_[j];; v = parent_[v]) {
      sum[v] += rewards[j];
      ++count[v];
      if (v == 0) break;
    }
  for (std::uint32_t v = size; v-- > 0;) {
    if (!in_tree(v)) continue;
    double u = kInf;
    if (count[v])
      u = sum[v] / count[v] + noise_range_ * std::sqrt(2.0 * log_horizon_ / count[v]) + nu_ * std::pow(rho_, tree_.depth(v));
    double child_max = kInf;
    if (first_child_[v] != 0 && tree_.depth(v) < h_max_) {
      child_max = -kInf;
      for (unsigned c = 0; c < tree_.num_children(v); ++c) {
        const std::uint32_t ch = first_child_[v] + c;
        child_max = std::max(child_max, in_tree(ch) ? b[ch] : kInf);
      }
    }
    b[v] = exhausted_[v] ? -kInf : std::min(u, child_max);
  }
  return b;
}

std::uint32_t HooTree::most_played() const {
  std::uint32_t node = 0;
  while (first_child_[node] != 0) {
    std::uint32_t best = 0;
    for (unsigned c = 0; c < tree_.num_children(node); ++c) {
      const std::uint32_t ch = first_child_[node] + c;
      if (count_[ch] == 0) continue;
      if (best == 0 || count_[ch] > count_[best] || (count_[ch] == count_[best] && mean(ch) > mean(best))) best = ch;
    }
    if (best == 0) break;
    node = best;
  }
  return node;
}

Hoo::Hoo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context, double nu,
         double rho, std::uint32_t h_max, Output output)
    : TreeOptimizer("hoo", space, direction, options, context), nu_(nu), rho_(rho), fixed_h_max_(h_max), output_(output),
      hoo_(space.dim(), options.children, nu, rho, budget_ ? static_cast<double>(budget_) : kFirstHorizon,
           h_max ? h_max : hoo_truncation_depth(nu, rho, budget_ ? static_cast<double>(budget_) : kFirstHorizon),
           tree_detail::cardinalities(space)) {
  if (!(nu > 0.0) || !std::isfinite(nu)) throw InvalidArgument("hoo: option nu must be > 0, got " + std::to_string(nu));
  if (!(rho > 0.0 && rho < 1.0)) throw InvalidArgument("hoo: option rho must be in (0, 1), got " + std::to_string(rho));
}

bool Hoo::decide() {
  // Anytime mode: the horizon doubles when the pulls reach it (the only full B recomputation).
  if (budget_ == 0 && static_cast<double>(run_planned_ + 1) > hoo_.horizon()) {
    const double n = 2.0 * hoo_.horizon();
    hoo_.set_horizon(n, fixed_h_max_ ? fixed_h_max_ : hoo_truncation_depth(nu_, rho_, n));
  }
  push_step(Step{hoo_.select(), 1, 0});
  return true;
}

void Hoo::record(const Step& step, double y) {
  // Deviation for a deterministic objective (docs/tree-search.md): a node pulled again is exhausted.
  if (avoids_repeats() && hoo_.count(step.node) > 0) return hoo_.exhaust(step.node);
  hoo_.update(step.node, y);
}

namespace tree_detail {
Vector hoo_point(const HooTree& tree, std::uint32_t node, bool random, std::uint64_t stream) {
  Vector u(static_cast<Eigen::Index>(tree.partition().dim()));
  if (random)
    tree.partition().random_point(node, stream, u.data());
  else
    tree.partition().center(node, u.data());
  return u;
}

// The output of an instance: the most played node, or (the papers' conversion from cumulative
// to simple regret) a point pulled uniformly at random, seeded by (seed, pulls).
Vector hoo_output(const HooTree& tree, Hoo::Output output, bool random, std::uint64_t stream, std::uint64_t seed) {
  if (output == Hoo::Output::Random && !tree.pulled().empty()) {
    Rng rng(derive_seed(seed, tree.pulled().size()));
    const auto i = static_cast<std::size_t>(rng.uniform() * static_cast<double>(tree.pulled().size()));
    return hoo_point(tree, tree.pulled()[std::min(i, tree.pulled().size() - 1)], random, stream);
  }
  return hoo_point(tree, tree.most_played(), random, stream);
}
}  // namespace tree_detail

Vector Hoo::step_point(const Step& step) const {
  return tree_detail::hoo_point(hoo_, step.node, opt_.representative == Representative::Random, derive_seed(seed(), kPointStream));
}

Vector Hoo::recommend_unit() const {
  if (hoo_.pulls() == 0) return Optimizer::recommend_unit();
  const Output output = output_ == Output::Auto ? (noisy() ? Output::MostPlayed : Output::Best) : output_;
  if (output == Output::Best) return Optimizer::recommend_unit();  // the best evaluated point
  return tree_detail::hoo_output(hoo_, output, opt_.representative == Representative::Random, derive_seed(seed(), kPointStream), seed());
}

namespace {

struct HooSettings {
  TreeOptions tree;
  double nu = 1.0;
  double rho = 0.7;
  std::uint32_t h_max = 0;
  Hoo::Output recommend = Hoo::Output::Auto;
  double noise_range = 1.0;
};

const OptionTable<HooSettings>& hoo_options() {
  static const auto table =
      OptionTable<HooSettings>()
          .include(tree_option_table(), &HooSettings::tree)
          .real("nu", &HooSettings::nu, NumberRange::above(0.0),
                "nu1 > 0 of the smoothness assumption diam(P_{h,i}) <= nu1 rho^h")
          .real("rho", &HooSettings::rho, NumberRange::open(0.0, 1.0),
                "rho in (0,1) of the smoothness assumption (0.5: Lipschitz in 1-D with K = 2; 0.71: a square-root cusp)")
          .integer("h_max", &HooSettings::h_max, 0, 60,
                   "truncation depth; 0: the smallest h with nu rho^h <= 1/sqrt(n)")
          .choice("recommend", &HooSettings::recommend, kHooOutputNames,
                  "output: the most played path's end, a uniformly random pulled point (the paper's conversion), "
                  "the best evaluated point, or auto: best on a deterministic objective, most-played on a noisy one")
          .real("noise_range", &HooSettings::noise_range, NumberRange::above(0.0),
                "b~ > 0: confidence width b~ sqrt(2 ln n / T); 1 assumes rewards in [0,1] (the paper), smaller "
                "trusts low noise");
  return table;
}

}  // namespace

AlgorithmInfo hoo_info() {
  AlgorithmInfo info;
  info.name = "hoo";
  info.family = "tree";
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "n, the horizon in the log term and the truncation depth; without one: anytime, the horizon doubling from 64";
  info.summary = "HOO with truncated depth (Bubeck et al., JMLR 2011): noisy feedback, known smoothness (nu, rho)";
  info.options = hoo_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    const HooSettings o = hoo_options().read(v);
    auto hoo = std::make_unique<Hoo>(space, direction, o.tree, context, o.nu, o.rho, o.h_max, o.recommend);
    hoo->set_noise_range(o.noise_range);
    return hoo;
  };
  return info;
}

}  // namespace optimist
