#include "optimist/experiment/minimize.hpp"

#include <cmath>
#include <filesystem>
#include <memory>
#include <system_error>

#include "optimist/core/trace.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/experiment/run_setup.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist {

namespace {

void check_number(const char* what, const std::optional<double>& v, bool positive) {
  if (v && (!std::isfinite(*v) || (positive && *v <= 0)))
    throw InvalidArgument(std::string(what) + " must be a finite number" + (positive ? " > 0" : "") + ", got " + format_double(*v));
}

// The run recorded in `trace` must be this one: the same algorithm, resolved options, seed, space,
// direction and declared noise (what Python's minimize checks too).
void check_same_run(const std::string& path, const Trace& trace, const experiment::RunSpec& spec, const Problem& problem) {
  const std::string where = "resume: '" + path + "'";
  if (!trace.meta.has_seed) throw InvalidArgument(where + " has no seed in its meta line; it cannot be continued as the same run");
  const experiment::RunSpec recorded = experiment::recorded_run(trace.meta);
  if (recorded.algorithm != spec.algorithm || recorded.seed != spec.seed)
    throw InvalidArgument(where + " is a run of " + recorded.algorithm + " with seed " + std::to_string(recorded.seed) +
                          "; this call runs " + spec.algorithm + " with seed " + std::to_string(spec.seed));
  const nlohmann::json there = resolve_options(recorded.optimizer_spec()), here = resolve_options(spec.optimizer_spec());
  if (there != here) throw InvalidArgument(where + " was run with other options: " + there.dump() + " there, " + here.dump() + " here");
  if (trace.meta.space != problem.space.to_json())
    throw InvalidArgument(where + ": its search space differs from this run's: " +
                          space_difference(trace.meta.space, problem.space.to_json()));
  if (trace.meta.direction != problem.direction)
    throw InvalidArgument(where + " is a run to " + to_string(trace.meta.direction) + ", this one is to " + to_string(problem.direction));
  if (recorded.noise != 0.0 || recorded.noisy != spec.noisy)
    throw InvalidArgument(where + " is a run with noisy = " + (recorded.noisy ? "true" : "false") + ", this one has noisy = " +
                          (spec.noisy ? "true" : "false"));
}

MinimizeResult run(const std::function<double(const Vector&)>& f, const Space& space, Direction direction,
                   const MinimizeOptions& o) {
  if (!f) throw InvalidArgument("minimize: the function is empty");
  if (o.budget == 0) throw InvalidArgument("budget must be >= 1, got 0");
  check_number("time_limit_s", o.time_limit_s, true);
  check_number("target", o.target, false);
  if (!o.options.is_object()) throw InvalidArgument("options must be a JSON object of algorithm options, got " + o.options.dump());
  for (const char* key : {"name", "seed", "budget"})
    if (o.options.contains(key))
      throw InvalidArgument(std::string("options: '") + key + "' is set by MinimizeOptions (" +
                            (std::string(key) == "name" ? "algorithm" : key) + "), not among the algorithm's options");

  const Problem problem = user_problem(o.name, space, direction);  // for the trace's meta line

  experiment::RunSpec spec;
  spec.algorithm = o.algorithm;
  spec.options = o.options;
  spec.seed = o.seed;
  spec.noisy = o.noisy;
  spec.budget = o.budget;
  RunOptions driver;
  driver.budget = o.budget;
  driver.time_limit_s = o.time_limit_s;
  driver.target = o.target;
  driver.on_failure = o.on_failure;
  driver.on_progress = o.on_progress;
  driver.should_stop = o.should_stop;

  std::optional<Trace> earlier;
  if (!o.resume.empty()) {
    earlier = read_trace(o.resume);
    check_same_run(o.resume, *earlier, spec, problem);
    spec.horizon = experiment::recorded_run(earlier->meta).horizon;  // it plans for the first run's budget
    try {
      driver.resume_from = evaluations_from_trace(*earlier, space);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("resume: '" + o.resume + "': " + e.what());
    }
    if (driver.resume_from.size() > o.budget)
      throw InvalidArgument("resume: '" + o.resume + "' holds " + std::to_string(driver.resume_from.size()) +
                            " evaluations, more than the budget of " + std::to_string(o.budget) + "; raise the budget");
  }
  experiment::PreparedRun prepared = experiment::prepare_run(problem, spec, driver, earlier ? &earlier->meta : nullptr);
  Objective objective;
  objective.function = f;
  objective.direction = direction;
  objective.name = o.name;

  std::unique_ptr<TraceWriter> writer;
  if (!o.trace.empty()) {
    const std::filesystem::path parent = std::filesystem::path(o.trace).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    writer = std::make_unique<TraceWriter>(o.trace, prepared.meta, space, driver.resume_from, nullptr, o.resume);
    driver.trace = writer.get();
  }
  MinimizeResult result;
  static_cast<RunSummary&>(result) = optimize(*prepared.optimizer, objective, driver);
  result.algorithm = o.algorithm;
  result.seed = o.seed;
  result.decisions = prepared.optimizer->decisions();
  if (writer) result.kept_trace = writer->kept_as();
  return result;
}

}  // namespace

MinimizeResult minimize(const std::function<double(const Vector&)>& f, const Space& space, const MinimizeOptions& options) {
  return run(f, space, Direction::Minimize, options);
}

MinimizeResult maximize(const std::function<double(const Vector&)>& f, const Space& space, const MinimizeOptions& options) {
  return run(f, space, Direction::Maximize, options);
}

}  // namespace optimist
