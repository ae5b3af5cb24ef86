#include "optimist/algorithms/auto/auto.hpp"

#include <algorithm>

namespace optimist {

namespace {

// gp-ei's best value found is better than or level with GO-UCB's up to 40 parameters (20-D and 40-D
// synthetic tasks, budgets 50-100) and far behind at 100 (docs/robust.md, "auto above 12 parameters").
constexpr std::size_t kGpEiMaxDimension = 40;

std::string count_text(std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

AutoChoice AutoOptimizer::first_choice(const Space& space, const RunContext& context) {
  const std::size_t d = space.dim();
  std::size_t continuous = 0, discrete = 0;
  for (const auto& p : space.parameters()) (p.kind == ParameterKind::Continuous ? continuous : discrete) += 1;
  const std::string shape = count_text(d, "parameter") + " (" + std::to_string(continuous) + " continuous, " +
                            std::to_string(discrete) + " integer or categorical)";
  const std::optional<std::size_t> h = context.horizon;
  // Too few evaluations for a GP's design: GO-UCB sizes its uniform Phase I to the budget (Theorem
  // 4.1's n >= sqrt(N - n)) and models the rest; never worse than Sobol points there (docs/robust.md).
  if (h && *h < 2) return {"sobol", nlohmann::json::object(), "budget " + std::to_string(*h) + ": one Sobol point"};
  if (h && *h <= d + 2)
    return {"go-ucb", nlohmann::json::object(),
            "budget " + std::to_string(*h) + " <= d + 2 for " + shape +
                ": too few for a GP's design; GO-UCB spends about sqrt(budget) points on its uniform start and the rest on its model"};
  if (d <= kGpEiMaxDimension)
    return {"gp-ei", nlohmann::json::object(), shape + ": a Gaussian process with log-EI (docs/robust.md)"};
  if (h)
    return {"go-ucb", nlohmann::json::object(),
            shape + ", budget " + std::to_string(*h) + ": GO-UCB with its additive network, the best measured above " +
                std::to_string(kGpEiMaxDimension) + " dimensions"};
  return {"turbo", nlohmann::json::object(), shape + ", no horizon: TuRBO's trust regions (GO-UCB needs a horizon)"};
}

AutoOptimizer::AutoOptimizer(const Space& space, Direction direction, const RunContext& context)
    : Optimizer("auto", space, direction, context) {
  AutoChoice c = first_choice(space, context);
  // Beyond the chosen algorithm's dimension limit (docs/reliability.md, "Limits") auto still runs:
  // random search has none.
  const std::size_t max_dim = algorithm_info(c.algorithm).limits.max_dim;
  if (max_dim > 0 && space.dim() > max_dim)
    c = {"random", nlohmann::json::object(),
         std::to_string(space.dim()) + " parameters, above " + c.algorithm + "'s limit of " + std::to_string(max_dim) +
             ": random search"};
  start(c);
}

std::optional<AutoChoice> AutoOptimizer::next_choice(std::size_t told) const {
  (void)told;
  return std::nullopt;
}

void AutoOptimizer::start(const AutoChoice& c) {
  nlohmann::json spec = c.options;
  spec["name"] = c.algorithm;
  inner_ = make_optimizer(spec, space(), direction(), context());
  choices_.push_back(c);
  choices_.back().from = history().size();
  choices_.back().resolved = inner_->decisions().value("resolved", nlohmann::json::object());
  // The new algorithm learns everything so far, in order, as an optimizer fed a trace does.
  inner_trial_.clear();
  for (const auto& obs : history()) {
    if (obs.failed) inner_->tell_failed(obs.trial.x, obs.error);
    else inner_->tell(obs.trial.x, obs.value);
  }
  for (const auto& t : pending()) inner_trial_.emplace(t.id, inner_->add_pending(t.x));
}

bool AutoOptimizer::supports_batch() const { return inner_->supports_batch(); }

nlohmann::json AutoOptimizer::diagnostics() const {
  nlohmann::json j = inner_->diagnostics();
  j["auto_algorithm"] = choice().algorithm;
  return j;
}

nlohmann::json AutoOptimizer::decisions() const {
  const AutoChoice& c = choices_.front();
  nlohmann::json j = {{"algorithm", c.algorithm}, {"options", c.options}, {"reason", c.reason}};
  if (!c.resolved.empty()) j["resolved"] = c.resolved;
  return j;
}

std::vector<Vector> AutoOptimizer::propose(std::size_t n) {
  if (auto next = next_choice(history().size())) start(*next);
  const std::vector<Trial> trials = inner_->ask(n);
  std::vector<Vector> out;
  for (std::size_t k = 0; k < trials.size(); ++k) {
    inner_trial_.emplace(next_trial_id() + k, trials[k]);
    out.push_back(trials[k].unit);
  }
  return out;
}

void AutoOptimizer::observe(const Observation& obs, double y) {
  (void)y;
  const auto it = inner_trial_.find(obs.trial.id);
  if (it == inner_trial_.end()) {
    inner_->tell(obs.trial.x, obs.value);  // told without an ask (warm start, replay)
    return;
  }
  inner_->tell(it->second, obs.value);
  inner_trial_.erase(it);
}

void AutoOptimizer::observe_pending(const Trial& trial) { inner_trial_.emplace(trial.id, inner_->add_pending(trial.x)); }

void AutoOptimizer::observe_withdrawn(const Trial& trial) {
  const auto it = inner_trial_.find(trial.id);
  if (it == inner_trial_.end()) return;
  inner_->withdraw(it->second);
  inner_trial_.erase(it);
}

void AutoOptimizer::observe_failure(const Observation& obs) {
  const auto it = inner_trial_.find(obs.trial.id);
  if (it == inner_trial_.end()) {
    inner_->tell_failed(obs.trial.x, obs.error);
    return;
  }
  inner_->tell_failed(it->second, obs.error);
  inner_trial_.erase(it);
}

Vector AutoOptimizer::recommend_unit() const {
  if (!best()) return Optimizer::recommend_unit();  // refuses in auto's name, not the inner algorithm's
  return space().to_unit(inner_->recommend());
}

AlgorithmInfo auto_info() {
  AlgorithmInfo info;
  info.name = "auto";
  info.family = "meta";
  info.summary = "chooses the algorithm from the space and the budget (docs/robust.md); the default";
  info.batch = true;
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "the budget: with it, budgets of at most d + 2 and more than " + std::to_string(kGpEiMaxDimension) +
                      " parameters get GO-UCB";
  info.create = [](const Space& space, Direction direction, const OptionValues&, const RunContext& context) {
    return std::make_unique<AutoOptimizer>(space, direction, context);
  };
  return info;
}

}  // namespace optimist
