#include "cli/run_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "cli/config.hpp"
#include "cli/count_check.hpp"
#include "cli/format.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "cli/run_study.hpp"
#include "cli/settings.hpp"
#include "cli/summary.hpp"
#include "optimist/core/external_objective.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/experiment/run_setup.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

namespace {

struct FlagDoc {
  const char* key;
  const char* metavar;
  const char* help;
};

constexpr FlagDoc kFlags[] = {
    {"problem", "NAME", "benchmark problem (see 'optimist list problems')"},
    {"dim", "D", "dimension (default: the problem's default)"},
    {"algorithm", "NAME", "optimization algorithm (see 'optimist list algorithms'; default auto: chosen from the space and budget)"},
    {"budget", "N", "number of evaluations, failed ones included"},
    {"seed", "S", "random seed of the algorithm; the noise seed derives from it (default 0)"},
    {"noise", "SIGMA", "standard deviation of Gaussian noise added to observations (default 0)"},
    {"out", "TRACE.jsonl", "write the trace (JSON Lines) to this file; parent folders are created"},
    {"time_limit", "SECONDS", "ask for no new point after this wall time"},
    {"target", "VALUE", "stop once an observed value reaches VALUE"},
    {"batch", "Q", "points per ask (evaluated in order; default 1)"},
    {"on_failure", "stop|mark-failed", "when the objective fails: end the run (default) or record and go on"},
    {"objective_command", "CMD", "instead of --problem: your program, kept running, reading one JSON line "
                                 "{\"x\": [...], \"params\": {...}} per evaluation and printing {\"y\": value}"},
    {"space", "FILE", "with --objective-command: the parameters (.json or .toml, a 'parameters' list)"},
    {"direction", "maximize|minimize", "with --objective-command: what to do with the printed value"},
    {"objective_timeout", "SECONDS", "with --objective-command: fail an evaluation not answered in time"},
};

std::unique_ptr<TraceWriter> open_trace(const RunSettings& s, const Problem& problem, TraceMeta meta,
                                        const RunOptions& options, TraceLock* held) {
  const std::filesystem::path parent = std::filesystem::path(s.out).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      throw InvalidArgument("--out: cannot create folder '" + parent.string() + "': " + ec.message());
  }
  meta.objective_command = s.objective_command;
  auto writer = std::make_unique<TraceWriter>(s.out, meta, problem.space, options.resume_from, held);
  std::cerr << kept_trace_line(s.out, writer->kept_as());
  return writer;
}

/// The user's program as a Problem (for the trace and summary): its name and direction, the space
/// from `space_json` (a resumed trace's) or else from the --space file. No function: the
/// Objective comes from external_command_objective.
Problem external_problem(const RunSettings& s, const nlohmann::json* space_json) {
  Space space;
  try {
    space = Space::from_json(space_json ? *space_json : load_config(s.space, "space file"));
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    throw InvalidArgument((space_json ? "the trace's space: " : "--space: ") + what);
  }
  return user_problem(s.objective_command, space, *s.direction);
}

Objective external_command_objective(const RunSettings& s, const Problem& problem) {
  ExternalCommand command;
  command.argv = split_command_line(s.objective_command);
  command.timeout_s = s.objective_timeout;
  // No noise_free: the driver would ask the program twice per point.
  return external_objective(command, problem.space, problem.direction, problem.name);
}

/// The evaluations of a trace to resume, checked against the problem it is resumed on.
std::vector<EvaluationRecord> earlier_evaluations(const Trace& trace, const std::string& path, const Problem& problem,
                                                  std::size_t budget) {
  if (trace.meta.space != problem.space.to_json())
    throw InvalidArgument("--resume: the search space in '" + path + "' differs from problem '" + problem.name +
                          "' in this build (" + space_difference(trace.meta.space, problem.space.to_json()) +
                          "); the run cannot be continued");
  if (trace.meta.direction != problem.direction)
    throw InvalidArgument("--resume: '" + path + "' is a run to " + to_string(trace.meta.direction) + ", problem '" +
                          problem.name + "' is to " + to_string(problem.direction));
  std::vector<EvaluationRecord> records;
  try {
    records = evaluations_from_trace(trace, problem.space);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("--resume: '" + path + "': " + e.what());
  }
  if (records.size() > budget)
    throw InvalidArgument("the budget " + std::to_string(budget) + " (--budget, or else the trace's meta) is below the " +
                          std::to_string(records.size()) + " evaluations already in '" + path + "'");
  return records;
}

}  // namespace

ResumedRun resume_run(const Trace& trace, const std::map<std::string, std::string>& flags, const std::string& path,
                      bool trust_command) {
  ResumedRun r;
  r.settings = resume_settings(trace.meta, flags, path);
  const RunSettings& s = r.settings;
  if (!s.objective_command.empty() && flags.count("objective_command") == 0) {
    // The command comes only from the trace, a data file that may come from anyone
    // (docs/security.md): run it only when the user confirms it.
    r.command_from_trace = true;
    if (!trust_command)
      throw InvalidArgument("the trace '" + path + "' was written by a run of the command '" + s.objective_command +
                            "'; optimist does not run a command that comes only from a data file. To continue the run, "
                            "name the command: --objective-command '" + s.objective_command +
                            "', or confirm the trace's command with --trust-command");
  }
  const auto& catalog = problems();
  if (s.objective_command.empty() &&
      std::none_of(catalog.begin(), catalog.end(), [&](const ProblemInfo& p) { return p.name == s.problem; }))
    // A trace of a function of one's own (Python or C++ minimize): the CLI has nothing to evaluate.
    throw InvalidArgument("the trace '" + path + "' is a run of '" + printable(s.problem) +
                          "', neither a benchmark problem ('optimist list problems') nor a command: a run of your own "
                          "function continues where the function is, with minimize(..., resume='" + path +
                          "') in Python or MinimizeOptions::resume in C++");
  try {
    r.problem = s.objective_command.empty() ? make_problem(s.problem, s.dim) : external_problem(s, &trace.meta.space);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("the trace '" + path + "': " + e.what());
  }
  r.earlier = earlier_evaluations(trace, path, r.problem, s.budget);
  return r;
}

void add_run_command(CLI::App& parent, RunCommand& cmd) {
  cmd.app = parent.add_subcommand("run", "Optimize a benchmark problem, or your own program, with one algorithm");
  for (const auto& f : kFlags)
    cmd.given[f.key] = cmd.app->add_option(flag_name(f.key), cmd.values[f.key], f.help)->type_name(f.metavar);
  cmd.app->add_option("--set", cmd.set, "algorithm option (repeatable); VALUE is parsed as JSON if it can be")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  cmd.app->add_option("--x0", cmd.x0, "a start point, evaluated first (repeatable, in order): a JSON array in "
                                     "parameter order or an object by name, e.g. '{\"lr\": 0.01, \"layers\": 3}'")
      ->type_name("POINT")
      ->allow_extra_args(false);
  cmd.config_flag = cmd.app->add_option("--config", cmd.config,
                                        "settings file (.json or .toml): the flags' keys with '_' and an "
                                        "'options' table; flags override it, paths in it are relative to "
                                        "the current folder")
                        ->type_name("FILE");
  cmd.resume_flag = cmd.app->add_option("--resume", cmd.resume,
                                        "continue an interrupted run from its trace: its evaluations are told to "
                                        "the algorithm, never repeated; the trace fixes problem, algorithm, options, "
                                        "seed and noise; --budget may extend it; --jobs K continues with K in flight (a --jobs run: "
                                        "its K); written back in place unless --out")
                        ->type_name("TRACE.jsonl");
  cmd.app->add_flag("--trust-command", cmd.trust_command,
                    "with --resume: run the objective command written in the trace without naming it with "
                    "--objective-command (only for a trace you trust: it runs that program)");
  cmd.noisy_flag = cmd.app->add_flag("--noisy", cmd.noisy,
                                     "declare the objective noisy: points may be evaluated again (the default, a "
                                     "deterministic objective, never evaluates a point twice and stops once a finite "
                                     "space is exhausted); --noise > 0 implies it");
  cmd.app->add_flag("-q,--quiet", cmd.quiet, "no progress display");
  cmd.jobs_flag = cmd.app->add_option("--jobs", cmd.jobs, "evaluations in parallel (threads, or child processes of "
                                                          "--objective-command), coordinated by a study in a temporary "
                                                          "SQLite file (docs/studies.md)")
                      ->type_name("K")
                      ->check(count_between(1, kMaxJobs, "more in flight: start more `optimist worker`s"));
  cmd.storage_flag = cmd.app->add_option("--storage", cmd.storage, "keep the run's study in this storage (sqlite:///file.db "
                                                                   "or postgresql://...); running the same command again "
                                                                   "continues it")
                         ->type_name("URL");
  cmd.study_flag = cmd.app->add_option("--study", cmd.study, "with --storage: the study's name (default 'run')")->type_name("NAME");
  cmd.app->footer(
      "Exit codes: 0 done, 1 the objective failed (--on-failure stop), 2 bad input, 130 interrupted.\n"
      "The first Ctrl-C (or SIGTERM) stops after the current evaluation; the trace and summary are still written.");
}

experiment::RunSpec run_spec(const RunSettings& s) {
  experiment::RunSpec spec;
  spec.algorithm = s.algorithm;
  spec.options = s.options;
  spec.seed = s.seed;
  spec.noise = s.noise;
  spec.noisy = s.noisy;
  spec.budget = s.budget;
  spec.horizon = s.horizon;
  return spec;
}

int run_command(const RunCommand& cmd) {
  std::map<std::string, std::string> flags;
  for (const auto& [key, opt] : cmd.given)
    if (opt->count() > 0) flags[key] = cmd.values.at(key);
  if (cmd.noisy_flag->count() > 0) flags["noisy"] = "true";
  if (cmd.quiet) flags["quiet"] = "true";
  if (cmd.jobs_flag->count() > 0) flags["jobs"] = std::to_string(cmd.jobs);
  if (cmd.storage_flag->count() > 0) flags["storage"] = cmd.storage;
  if (cmd.study_flag->count() > 0) flags["study"] = cmd.study;
  if (!cmd.x0.empty()) {
    nlohmann::json points = nlohmann::json::array();
    for (const std::string& text : cmd.x0) {
      nlohmann::json point = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (point.is_discarded() || !(point.is_array() || point.is_object()))
        throw InvalidArgument("--x0 got '" + printable(text) + "'; expected a point: a JSON array in parameter order "
                              "(e.g. '[0.5, 3, \"relu\"]') or an object by name");
      points.push_back(std::move(point));
    }
    flags["x0"] = points.dump();
  }
  std::optional<std::string> config;
  if (cmd.config_flag->count() > 0) config = cmd.config;
  if (cmd.trust_command && cmd.resume_flag->count() == 0)
    throw InvalidArgument("--trust-command goes with --resume: it confirms the command written in the trace");
  std::optional<Trace> resumed;
  std::optional<TraceLock> resume_lock;
  std::optional<ResumedRun> resume;
  if (cmd.resume_flag->count() > 0) {
    if (config) throw InvalidArgument("--config cannot be combined with --resume: the trace '" + cmd.resume + "' fixes the run");
    if (!cmd.set.empty())
      throw InvalidArgument("--set cannot be combined with --resume: the trace '" + cmd.resume + "' fixes the algorithm options");
    if (cmd.storage_flag->count() > 0)
      throw InvalidArgument("--resume cannot be combined with --storage: a run kept in a study continues when "
                            "the same command is run again with the same --storage");
    // Held until the run ends: a second process resuming the same trace is refused, not raced.
    resume_lock.emplace(cmd.resume);
    resumed = read_trace(cmd.resume);
    resume = resume_run(*resumed, flags, cmd.resume, cmd.trust_command);
    if (resume->command_from_trace)
      std::fprintf(stderr, "optimist: running the objective command written in the trace '%s' (--trust-command): %s\n",
                   printable(cmd.resume).c_str(), printable(resume->settings.objective_command).c_str());
  }
  const RunSettings s = resume ? resume->settings : resolve_settings(flags, cmd.set, config);

  Problem problem;
  Objective objective;
  if (resume)
    problem = resume->problem;
  else if (s.objective_command.empty())
    problem = make_problem(s.problem, s.dim);
  else
    problem = external_problem(s, nullptr);
  if (!s.objective_command.empty()) objective = external_command_objective(s, problem);
  if (s.jobs || !s.storage.empty()) {
    StudyRunFlags study_flags{s.jobs.value_or(1), s.storage, s.study, s.quiet};
    if (resume) {
      study_flags.resumed = &resume->earlier;
      study_flags.resumed_meta = &resumed->meta;
      study_flags.resume_lock = &*resume_lock;
    }
    return run_in_study(s, problem, study_flags);
  }
  RunOptions options;
  if (resume) options.resume_from = std::move(resume->earlier);
  options.budget = s.budget;
  options.time_limit_s = s.time_limit;
  options.target = s.target;
  options.batch_size = s.batch;
  options.on_failure = s.on_failure;
  options.start_points = start_points(s, problem.space);
  // Checked before the trace is opened (optimize checks them again): a refused run writes nothing.
  (void)start_points_left(problem.space, s.noisy || s.noise > 0.0, options.start_points, options.resume_from, options.budget);
  const experiment::RunSpec spec = run_spec(s);
  // The same construction as the bench runner's: optimizer, noise stream (the k-th evaluation gets
  // the k-th draw, resumed runs included) and trace meta.
  experiment::PreparedRun prepared = experiment::prepare_run(problem, spec, options, resumed ? &resumed->meta : nullptr);
  if (s.objective_command.empty()) objective = std::move(prepared.objective);
  const auto& optimizer = prepared.optimizer;
  // Resumed in place (--out names the trace read, however spelled): the writer takes over the
  // lock held on it since it was read.
  const auto trace = s.out.empty() ? nullptr
                                   : open_trace(s, problem, std::move(prepared.meta), options,
                                                resume_lock ? &*resume_lock : nullptr);
  options.trace = trace.get();

  std::optional<ProgressDisplay> progress;
  if (!cmd.quiet && !s.quiet) progress.emplace(objective, s.time_limit);
  if (progress) options.on_progress = [&progress](const Progress& p) { progress->update(p); };
  options.should_stop = [] { return InterruptGuard::interrupted(); };

  RunSummary run;
  try {
    const InterruptGuard guard;
    run = optimize(*optimizer, objective, options);
  } catch (...) {
    if (progress) progress->finish();  // end the bar's line before main prints the error
    throw;
  }
  if (progress) progress->finish();
  print_summary(std::cout, s, problem, objective, run, optimizer->decisions());

  if (run.reason == StopReason::ObjectiveFailed) {
    std::fprintf(stderr, "optimist: error: the objective failed: %s\n", run.message.c_str());
    return 1;
  }
  return run.reason == StopReason::Cancelled ? 130 : 0;
}

}  // namespace optimist::cli
