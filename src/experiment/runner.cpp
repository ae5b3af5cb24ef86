#include "optimist/experiment/runner.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "optimist/core/driver.hpp"
#include "optimist/core/registry.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::experiment {

namespace fs = std::filesystem;

std::vector<SweepRun> plan_runs(const SweepSpec& spec, const std::string& out_dir) {
  std::vector<SweepRun> runs;
  runs.reserve(spec.run_count());
  for (const auto& p : spec.problems)
    for (const auto& a : spec.algorithms)
      for (std::size_t k = 0; k < spec.seeds; ++k) {
        const std::uint64_t seed = spec.first_seed + k;
        const fs::path path =
            fs::path(out_dir) / "traces" / p.label / a.label / ("seed-" + std::to_string(seed) + ".jsonl");
        runs.push_back({&p, &a, seed, path.string()});
      }
  return runs;
}

std::string temporary_path(const std::string& trace_path) { return trace_path + ".partial"; }

namespace {

/// How a trace's meta differs from the run's settings ("budget 8, but the sweep asks for 9"),
/// or nothing when it is a trace of this run.
std::optional<std::string> settings_mismatch(const TraceMeta& m, const SweepRun& run) {
  const auto differ = [](const std::string& field, const std::string& found, const std::string& wanted) {
    return std::optional<std::string>(field + " " + found + ", but the sweep asks for " + wanted);
  };
  if (m.problem != run.problem->name) return differ("problem", m.problem, run.problem->name);
  if (run.problem->dim != 0 && m.dim != run.problem->dim)
    return differ("dim", std::to_string(m.dim), std::to_string(run.problem->dim));
  if (m.seed != run.seed) return differ("seed", std::to_string(m.seed), std::to_string(run.seed));
  if (m.noise != run.problem->noise) return differ("noise", format_double(m.noise), format_double(run.problem->noise));
  if (m.budget != run.problem->budget)
    return differ("budget", std::to_string(m.budget), std::to_string(run.problem->budget));
  if (m.algorithm != run.algorithm->name) return differ("algorithm", m.algorithm, run.algorithm->name);
  const nlohmann::json wanted = resolve_options(optimizer_spec(*run.algorithm, *run.problem, run.seed));
  if (m.options != wanted) return differ("options", m.options.dump(), wanted.dump());
  return std::nullopt;
}

/// The evaluations of a partial trace of this run (cancelled or killed) to continue from; empty
/// when there is none, or it is damaged or of other settings (then it is overwritten).
std::vector<EvaluationRecord> earlier_evaluations(const SweepRun& run, const std::string& partial, const Space& space,
                                                  TraceMeta& meta) {
  std::error_code ec;
  if (!fs::exists(partial, ec)) return {};
  std::vector<EvaluationRecord> records;
  try {
    const Trace trace = read_trace(partial);
    if (settings_mismatch(trace.meta, run)) return {};
    records = evaluations_from_trace(trace, space);
    if (records.size() > run.problem->budget) return {};
    record_resume(meta, trace.meta, records.size());
  } catch (const InvalidArgument&) {
    return {};
  }
  return records;
}

}  // namespace

bool is_finished(const SweepRun& run) {
  std::error_code ec;
  if (!fs::exists(run.trace_path, ec)) return false;
  const Trace trace = read_trace(run.trace_path);
  if (!trace.complete()) return false;
  if (const auto why = settings_mismatch(trace.meta, run))
    throw InvalidArgument("'" + run.trace_path + "' is a finished run with " + *why +
                          "; write this sweep to another --out folder (or delete the old trace)");
  // A run stopped by Ctrl-C never gets renamed; treat a stray one as unfinished all the same.
  return trace.recommend->value("stop_reason", "") != "cancelled";
}

bool execute_run(const SweepRun& run, const std::function<bool()>& should_stop) {
  const SweepProblem& p = *run.problem;
  // The same construction as `optimist run` (src/cli/run_command.cpp), so the traces agree.
  const Problem problem = make_problem(p.name, p.dim);
  const nlohmann::json spec = optimizer_spec(*run.algorithm, p, run.seed);
  const nlohmann::json resolved = resolve_options(spec);
  const auto optimizer = make_optimizer(spec, problem.space, problem.direction);

  RunOptions options;
  options.budget = p.budget;
  options.should_stop = should_stop;
  TraceMeta meta = problem.trace_meta(run.algorithm->name, resolved, run.seed, p.noise, p.budget);
  meta.run = options.settings_json();

  const std::string partial = temporary_path(run.trace_path);
  options.resume_from = earlier_evaluations(run, partial, problem.space, meta);
  const Objective objective =
      problem.objective(p.noise, derive_seed(run.seed, kNoiseStream), options.resume_from.size());
  std::error_code ec;
  fs::create_directories(fs::path(run.trace_path).parent_path(), ec);
  if (ec) throw InvalidArgument("cannot create folder for '" + run.trace_path + "': " + ec.message());
  RunSummary summary;
  try {
    TraceWriter writer(partial, meta, problem.space, options.resume_from);
    options.trace = &writer;
    summary = optimize(*optimizer, objective, options);
  } catch (...) {
    fs::remove(partial, ec);
    throw;
  }
  // The writer is closed: the file is complete. Rename is atomic within one file system, so
  // trace_path never holds a partial trace.
  if (summary.reason == StopReason::Cancelled) return false;  // the partial trace keeps what was paid for
  fs::rename(partial, run.trace_path);
  return true;
}

SweepOutcome run_sweep(const SweepSpec& spec, const std::string& out_dir, const RunnerOptions& options) {
  const std::vector<SweepRun> runs = plan_runs(spec, out_dir);
  SweepOutcome out;
  out.progress.total = runs.size();
  std::vector<const SweepRun*> todo;
  for (const auto& r : runs) {
    if (is_finished(r)) ++out.progress.skipped;
    else todo.push_back(&r);
  }
  const auto start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> cancelled{false};
  const auto stop = [&] {
    if (!cancelled && options.should_stop && options.should_stop()) cancelled = true;
    return cancelled.load();
  };
  const auto report = [&] {  // under mutex
    out.progress.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::size_t left = todo.size() - out.progress.done;
    out.progress.eta_s = out.progress.done > 0
                             ? out.progress.elapsed_s / static_cast<double>(out.progress.done) * static_cast<double>(left)
                             : -1.0;
    if (options.on_progress) options.on_progress(out.progress);
  };
  {
    std::lock_guard lock(mutex);
    report();
  }
  const auto worker = [&] {
    for (;;) {
      if (stop()) return;
      const std::size_t k = next++;
      if (k >= todo.size()) return;
      std::string error;
      bool finished = false;
      try {
        finished = execute_run(*todo[k], stop);
      } catch (const std::exception& e) {
        error = todo[k]->trace_path + ": " + e.what();
      }
      std::lock_guard lock(mutex);
      if (!error.empty()) {
        out.errors.push_back(error);
        ++out.progress.failed;
      }
      if (finished || !error.empty()) {
        ++out.progress.done;
        report();
      }
    }
  };
  std::size_t jobs = options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, std::max<std::size_t>(todo.size(), 1));
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::jthread> threads;
    for (std::size_t j = 0; j < jobs; ++j) threads.emplace_back(worker);
  }
  out.cancelled = cancelled.load();
  return out;
}

}  // namespace optimist::experiment
