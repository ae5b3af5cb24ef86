#include "optimist/experiment/run_setup.hpp"

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/rng.hpp"

namespace optimist::experiment {

RunContext RunSpec::context() const {
  RunContext c;
  c.seed = seed;
  const std::size_t n = horizon.value_or(budget);
  if (n > 0) c.horizon = n;
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
  run.meta.run = driver.settings_json();
  if (resumed) record_resume(run.meta, *resumed, driver.resume_from.size());
  return run;
}

RunSpec recorded_run(const TraceMeta& meta) {
  RunSpec spec;
  spec.algorithm = meta.algorithm;
  spec.seed = meta.seed;
  spec.noise = meta.noise;
  spec.budget = meta.budget;
  spec.options = meta.options.is_object() ? meta.options : nlohmann::json::object();
  spec.options.erase("name");
  // Every trace written before RunContext had "seed" among its options (resolve_options added it).
  const bool legacy = spec.options.contains("seed");
  if (legacy) {
    spec.options.erase("seed");
    if (const auto it = spec.options.find("budget"); it != spec.options.end()) {
      if (it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() >= 0))
        spec.horizon = it->get<std::size_t>();
      spec.options.erase(it);
    }
  } else {
    spec.horizon = meta.horizon.value_or(0);
  }
  return spec;
}

}  // namespace optimist::experiment
