// `auto`: picks one of our algorithms for the run from what is known before it starts (the
// space's dimension and parameter types, the horizon, whether the objective is declared noisy) and
// runs it; it may hand the run to another algorithm later (docs/robust.md). An ordinary ask/tell
// optimizer: deterministic, resumable, conformance-tested like the rest.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/optimizer.hpp"

namespace optimist {

/// One decision of `auto`: the algorithm (with options) it runs from the `from`-th evaluation on,
/// and why.
struct AutoChoice {
  std::string algorithm;
  nlohmann::json options = nlohmann::json::object();
  std::string reason;
  std::size_t from = 0;  ///< the number of evaluations told before it takes over
  /// What the chosen algorithm's own "auto" options resolved to (its decisions()' "resolved").
  nlohmann::json resolved = nlohmann::json::object();
};

class AutoOptimizer : public Optimizer {
 public:
  AutoOptimizer(const Space& space, Direction direction, const RunContext& context);

  /// The first choice for a run of this space and context (a pure function of them).
  static AutoChoice first_choice(const Space& space, const RunContext& context);
  /// The choice in force now, and every choice so far.
  const AutoChoice& choice() const { return choices_.back(); }
  const std::vector<AutoChoice>& choices() const { return choices_; }

  bool supports_batch() const override;
  /// The running algorithm's diagnostics, with "auto_algorithm" naming it.
  nlohmann::json diagnostics() const override;
  /// {"algorithm", "options", "reason"} of the first choice.
  nlohmann::json decisions() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_pending(const Trial& trial) override;
  void observe_withdrawn(const Trial& trial) override;
  void observe_failure(const Observation& obs) override;
  Vector recommend_unit() const override;

 private:
  /// The next choice once `told` evaluations are in, if the rules hand the run over then.
  std::optional<AutoChoice> next_choice(std::size_t told) const;
  /// Makes the algorithm of `c` and tells it the whole history and the pending trials.
  void start(const AutoChoice& c);
  std::unique_ptr<Optimizer> inner_;
  std::vector<AutoChoice> choices_;
  std::map<std::uint64_t, Trial> inner_trial_;  ///< our trial id -> the inner optimizer's trial
};

AlgorithmInfo auto_info();

}  // namespace optimist
