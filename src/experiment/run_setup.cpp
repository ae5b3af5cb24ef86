#include "optimist/experiment/run_setup.hpp"

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/rng.hpp"

namespace optimist::experiment {

RunContext RunSpec::context() const {
  RunContext c;
  c.seed = seed;
  const std::size_t n = horizon.value_or(budget);
  if (n > 0) c.horizon = n;
  c.noisy = noisy || noise > 0.0;
  return c;
}

nlohmann::json RunSpec::optimizer_spec() const {
  nlohmann::json spec = options.is_null() ? nlohmann::json::object() : options;
  spec["name"] = algorithm;
  return spec;
}

PreparedRun prepare_run(const Problem& problem, const RunSpec& spec, const RunOptions& driver, const TraceMeta* resumed) {
  if (driver.budget != spec.budget)
    throw InvalidArgument("prepare_run: the driver's budget " + std::to_string(driver.budget) +
                          " differs from the run's " + std::to_string(spec.budget));
  PreparedRun run;
  const nlohmann::json resolved = resolve_options(spec.optimizer_spec());
  const RunContext context = spec.context();
  run.optimizer = make_optimizer(resolved, problem.space, problem.direction, context);
  if (problem.f)
    run.objective = problem.objective(spec.noise, derive_seed(spec.seed, kNoiseStream), driver.resume_from.size());
  run.meta = problem.trace_meta(spec.algorithm, resolved, spec.seed, spec.noise, spec.budget);
  run.meta.horizon = context.horizon;
  run.meta.decisions = run.optimizer->decisions();
  run.meta.noisy = context.noisy;
  run.meta.run = driver.settings_json();
  record_start_points(run.meta, problem.space, driver.start_points);
  if (resumed) record_resume(run.meta, *resumed, driver.resume_from.size());
  return run;
}

LegacyRunSettings take_legacy_run_settings(nlohmann::json& options) {
  LegacyRunSettings out;
  if (!options.is_object()) return out;
  // resolve_options added "seed" to every spec before RunContext: its presence marks old options.
  out.legacy = options.contains("seed");
  options.erase("seed");
  if (const auto it = options.find("budget"); it != options.end()) {
    if (it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() >= 0))
      out.horizon = it->get<std::size_t>();
    options.erase(it);
  }
  return out;
}

RunSpec recorded_run(const TraceMeta& meta) {
  RunSpec spec;
  spec.algorithm = meta.algorithm;
  spec.seed = meta.seed;
  spec.noise = meta.noise;
  spec.noisy = meta.noisy;
  spec.budget = meta.budget;
  spec.options = meta.options.is_object() ? meta.options : nlohmann::json::object();
  spec.options.erase("name");
  const LegacyRunSettings old = take_legacy_run_settings(spec.options);
  // An older trace's horizon: its "budget" option, else (an algorithm without one) the budget.
  spec.horizon = old.legacy ? old.horizon : meta.horizon.value_or(0);
  return spec;
}

}  // namespace optimist::experiment
