// POO, Grill, Valko & Munos, "Black-box optimization of noisy functions with unknown smoothness",
// NIPS 2015, Algorithm 1, over HOO instances (hoo.cpp).
#include <algorithm>
#include <cmath>

#include "optimist/algorithms/tree/poo.hpp"
#include "optimist/core/rng.hpp"

namespace optimist {

namespace tree_detail {
Vector hoo_point(const HooTree& tree, std::uint32_t node, bool random, std::uint64_t stream);
Vector hoo_output(const HooTree& tree, Hoo::Output output, bool random, std::uint64_t stream, std::uint64_t seed);
std::vector<std::size_t> cardinalities(const Space& space);
}  // namespace tree_detail

namespace {
constexpr std::uint64_t kPointStream = 0x706f6fULL;  // "poo"
constexpr double kFirstHorizon = 64.0;               // each instance: horizons 64, 128, ... of its own pulls
}  // namespace

Poo::Poo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context, double nu_max,
         double rho_max, Hoo::Output output, double noise_range, RhoGrid grid)
    : TreeOptimizer("poo", space, direction, options, context), nu_max_(nu_max), rho_max_(rho_max), output_(output),
      noise_range_(noise_range), grid_(grid) {
  if (!(noise_range > 0.0) || !std::isfinite(noise_range))
    throw InvalidArgument("poo: option noise_range must be > 0, got " + std::to_string(noise_range));
  if (!(nu_max > 0.0) || !std::isfinite(nu_max))
    throw InvalidArgument("poo: option nu_max must be > 0, got " + std::to_string(nu_max));
  if (!(rho_max > 0.0 && rho_max < 1.0))
    throw InvalidArgument("poo: option rho_max must be in (0, 1), got " + std::to_string(rho_max));
  // Algorithm 1, init: D_max = ln K / ln(1/rho_max), n = 0, N = 1, S = {(nu_max, rho_max)}.
  d_max_ = std::log(static_cast<double>(options.children)) / std::log(1.0 / rho_max);
  add_instance(rho_max);
}

void Poo::add_instance(double rho) {
  instances_.emplace_back(space().dim(), opt_.children, nu_max_, rho, kFirstHorizon,
                          hoo_truncation_depth(nu_max_, rho, kFirstHorizon), tree_detail::cardinalities(space()));
  instances_.back().set_noise_range(noise_range_);
}

bool Poo::decide() {
  while (true) {
    if (work_pos_ < work_.size()) {
      Work& w = work_[work_pos_];
      if (w.evaluations == 0) {
        ++work_pos_;
        continue;
      }
      --w.evaluations;
      HooTree& inst = instances_[w.instance];
      // Each instance runs anytime HOO: its horizon doubles when its pulls reach it.
      if (static_cast<double>(inst.pulls() + 1) > inst.horizon()) {
        const double n = 2.0 * inst.horizon();
        inst.set_horizon(n, hoo_truncation_depth(nu_max_, inst.rho(), n));
      }
      push_step(Step{inst.select(), 1, w.instance});
      return true;
    }
    work_.clear();
    work_pos_ = 0;
    // "while N < (1/2) D_max ln(n / ln n)": start N new instances, each catching up with n/N
    // evaluations; n <- 2n, N <- 2N. The new rhos rho_max^(2N/(2i+1)), i = 0..N-1, fill the grid
    // uniform in 1/ln(1/rho) (i from 0 keeps every rho <= rho_max); RhoGrid::Printed takes the
    // pseudo-code's i = 1..N.
    auto enough = [&] {
      const double n = static_cast<double>(n_);
      return n < 3.0 || static_cast<double>(N_) >= 0.5 * d_max_ * std::log(n / std::log(n));
    };
    // One pass of the while body at a time: its evaluations are performed before the condition is
    // tested again, as in Algorithm 1, so instances are created only as the budget reaches them
    // (rho_max near 1 makes D_max huge: all passes at once built millions of instances). With a
    // deterministic objective the passes' pulls of points already evaluated cost nothing, so n
    // outruns the evaluations: no pass makes N exceed the points actually asked (under noise
    // N <= n / 3 <= them, Algorithm 1 unchanged).
    const double asked = static_cast<double>(history().size() + pending().size());
    if (!enough() && static_cast<double>(2 * N_) <= std::max(asked, 1.0)) {
      const std::uint64_t first = grid_ == RhoGrid::Printed ? 1 : 0;
      for (std::uint64_t i = first; i < first + N_; ++i) {
        add_instance(std::pow(rho_max_, 2.0 * static_cast<double>(N_) / static_cast<double>(2 * i + 1)));
        work_.push_back(Work{static_cast<std::uint32_t>(instances_.size() - 1), n_ / N_});
      }
      n_ *= 2;
      N_ *= 2;
      continue;
    }
    // "for s in S: perform a function evaluation with A(s)"; n <- n + N.
    for (std::size_t s = 0; s < instances_.size(); ++s) work_.push_back(Work{static_cast<std::uint32_t>(s), 1});
    n_ += instances_.size();
  }
}

void Poo::record(const Step& step, double y) { instances_[step.tag].update(step.node, y); }

Vector Poo::step_point(const Step& step) const {
  return tree_detail::hoo_point(instances_[step.tag], step.node, opt_.representative == Representative::Random,
                                derive_seed(seed(), kPointStream + step.tag));
}

std::size_t Poo::best_instance() const {
  // Algorithm 1, output: s* = argmax_s mu^[s], the average reward of instance s.
  std::size_t best = 0;
  for (std::size_t s = 1; s < instances_.size(); ++s)
    if (instances_[s].pulls() > 0 && (instances_[best].pulls() == 0 || instances_[s].average_reward() > instances_[best].average_reward()))
      best = s;
  return best;
}

Vector Poo::recommend_unit() const {
  const std::size_t s = best_instance();
  if (instances_[s].pulls() == 0) return Optimizer::recommend_unit();
  // Algorithm 1: "a random point evaluated by A(s*)" (recommend: random), or its most played node;
  // on a deterministic objective (auto) the best evaluated point, exact there.
  const Hoo::Output output = output_ == Hoo::Output::Auto ? (noisy() ? Hoo::Output::MostPlayed : Hoo::Output::Best) : output_;
  if (output == Hoo::Output::Best) return Optimizer::recommend_unit();
  return tree_detail::hoo_output(instances_[s], output, opt_.representative == Representative::Random,
                                 derive_seed(seed(), kPointStream + s), seed());
}

namespace {

struct PooSettings {
  TreeOptions tree;
  double nu_max = 1.0;
  double rho_max = 0.9;
  Hoo::Output recommend = Hoo::Output::Auto;
  double noise_range = 1.0;
  Poo::RhoGrid rho_grid = Poo::RhoGrid::Dyadic;
};

const OptionTable<PooSettings>& poo_options() {
  static const auto table =
      OptionTable<PooSettings>()
          .include(tree_option_table(), &PooSettings::tree)
          .real("nu_max", &PooSettings::nu_max, NumberRange::above(0.0), "nu_max > 0: the nu of every HOO instance")
          .real("rho_max", &PooSettings::rho_max, NumberRange::open(0.0, 1.0),
                "rho_max in (0,1): the largest rho of the grid")
          .choice("recommend", &PooSettings::recommend, kHooOutputNames,
                  "output from the instance of best average reward: its most played path's end, or a random point "
                  "it evaluated (the paper); best: the best evaluated point; auto: best on a deterministic objective, "
                  "most-played on a noisy one")
          .real("noise_range", &PooSettings::noise_range, NumberRange::above(0.0),
                "b~ > 0 of every HOO instance: confidence width b~ sqrt(2 ln n / T) (1: the paper)")
          .choice("rho_grid", &PooSettings::rho_grid, kRhoGridNames,
                  "rhos rho_max^(2N/(2i+1)) of a round's N new instances: i = 0..N-1 (dyadic, all <= rho_max) or "
                  "i = 1..N as printed (the last exceeds rho_max)");
  return table;
}

}  // namespace

AlgorithmInfo poo_info() {
  AlgorithmInfo info;
  info.name = "poo";
  info.family = "tree";
  info.summary = "POO (Grill, Valko & Munos, NIPS 2015): HOO instances over a grid of rho, unknown smoothness";
  info.options = poo_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    const PooSettings o = poo_options().read(v);
    return std::make_unique<Poo>(space, direction, o.tree, context, o.nu_max, o.rho_max, o.recommend, o.noise_range,
                                 o.rho_grid);
  };
  return info;
}

}  // namespace optimist
