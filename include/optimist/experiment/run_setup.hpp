// Setting up one run, the same way for `optimist run` and the bench runner, so that their traces
// agree: the optimizer from (algorithm, options, RunContext), the benchmark objective with its
// noise stream, and the trace's meta line.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "optimist/core/driver.hpp"
#include "optimist/core/objective.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::experiment {

/// The observation noise of a benchmark problem has its own stream, derived from the run's seed
/// ("noise" in ASCII): reproducible, yet independent of the algorithm's random numbers.
inline constexpr std::uint64_t kNoiseStream = 0x6e6f697365;

/// What a run is, besides the driver's settings.
struct RunSpec {
  std::string algorithm;
  nlohmann::json options = nlohmann::json::object();  ///< the algorithm's options, without "name"
  std::uint64_t seed = 0;
  double noise = 0.0;      ///< sd of the Gaussian noise added to a benchmark problem's values
  /// The objective is declared noisy (RunContext::noisy); noise > 0 implies it.
  bool noisy = false;
  std::size_t budget = 0;  ///< evaluations, failed ones included
  /// The algorithm's planning horizon; unset: the budget; 0: none (an anytime run). It differs from
  /// the budget in a resumed run whose budget was raised: the algorithm keeps planning for the
  /// first budget, exactly as the interrupted run did.
  std::optional<std::size_t> horizon;

  /// {seed, horizon, noisy (noisy || noise > 0)} as the optimizer receives them.
  RunContext context() const;
  /// {"name": algorithm, options...}: what make_optimizer and resolve_options take.
  nlohmann::json optimizer_spec() const;
};

struct PreparedRun {
  std::unique_ptr<Optimizer> optimizer;
  /// The benchmark problem's f plus the run's noise, the k-th evaluation getting the k-th draw
  /// (a resumed run continues the stream); empty when the problem has no function (the user's
  /// program: the caller supplies the objective).
  Objective objective;
  TraceMeta meta;  ///< the trace's first line: resolved options, seed, horizon, driver settings
};

/// Builds the run `spec` of `problem` driven with `driver` (driver.budget is the run's budget;
/// driver.resume_from, the evaluations it continues from, picks the first noise draw). `resumed`:
/// the meta of the trace being continued, whose list of resumes the new meta extends.
/// Throws InvalidArgument on bad options (naming them) or a budget that disagrees with spec's.
PreparedRun prepare_run(const Problem& problem, const RunSpec& spec, const RunOptions& driver,
                        const TraceMeta* resumed = nullptr);

/// Algorithm options written before RunContext may hold the run's "seed" and, for the algorithms
/// that plan with it, its horizon as "budget" (0 meaning none). Removes both from `options`;
/// `legacy` says whether they were there (every older trace's options have "seed").
struct LegacyRunSettings {
  bool legacy = false;
  std::optional<std::size_t> horizon;  ///< the old "budget" option: 0 for none, unset when absent
};
LegacyRunSettings take_legacy_run_settings(nlohmann::json& options);

/// The run a trace records. Traces written before RunContext existed kept the seed and the horizon
/// among the algorithm's options ("seed", and "budget" for the algorithms that plan with it, 0
/// meaning none); they are read from there, so such traces resume and compare like new ones.
RunSpec recorded_run(const TraceMeta& meta);

}  // namespace optimist::experiment
