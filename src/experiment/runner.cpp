#include "optimist/experiment/runner.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
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
/// or nothing when it is a trace of this run. Traces written before RunContext compare by the
/// seed and horizon recorded_run() reads from their options.
std::optional<std::string> settings_mismatch(const TraceMeta& m, const SweepRun& run) {
  const auto differ = [](const std::string& field, const std::string& found, const std::string& wanted) {
    return std::optional<std::string>(field + " " + found + ", but the sweep asks for " + wanted);
  };
  const RunSpec wanted = run_spec(*run.algorithm, *run.problem, run.seed);
  const RunSpec found = recorded_run(m);
  const bool peer = !run.algorithm->peer.empty();
  if (m.problem != run.problem->name) return differ("problem", m.problem, run.problem->name);
  if (run.problem->dim != 0 && m.dim != run.problem->dim)
    return differ("dim", std::to_string(m.dim), std::to_string(run.problem->dim));
  if (found.seed != wanted.seed) return differ("seed", std::to_string(found.seed), std::to_string(wanted.seed));
  if (found.noise != wanted.noise) return differ("noise", format_double(found.noise), format_double(wanted.noise));
  if (found.context().noisy != wanted.context().noisy)
    return differ("noisy", found.context().noisy ? "true" : "false", wanted.context().noisy ? "true" : "false");
  if (found.budget != wanted.budget) return differ("budget", std::to_string(found.budget), std::to_string(wanted.budget));
  if (found.algorithm != wanted.algorithm) return differ("algorithm", found.algorithm, wanted.algorithm);
  // Traces written before the key existed, and peers', asked one point at a time.
  const nlohmann::json recorded_batch = m.run.is_object() ? m.run.value("batch", nlohmann::json()) : nlohmann::json();
  const std::size_t batch = recorded_batch.is_number_unsigned() ? recorded_batch.get<std::size_t>() : 1;
  if (batch != run.algorithm->batch) return differ("batch", std::to_string(batch), std::to_string(run.algorithm->batch));
  if (peer) return std::nullopt;  // a peer records its sampler's settings; no horizon, no options of ours
  const auto horizon_text = [](const RunContext& c) { return c.horizon ? std::to_string(*c.horizon) : std::string("none"); };
  if (found.context().horizon != wanted.context().horizon)
    return differ("horizon", horizon_text(found.context()), horizon_text(wanted.context()));
  // Recorded options are fully resolved: any option added or renamed since counts as a difference.
  const nlohmann::json found_options = found.optimizer_spec();
  const nlohmann::json wanted_options = resolve_options(wanted.optimizer_spec());
  if (found_options != wanted_options) return differ("options", found_options.dump(), wanted_options.dump());
  return std::nullopt;
}

/// The partial trace of this run (cancelled or killed) to continue from, if there is one that is
/// undamaged, of these settings and within the budget (otherwise it is overwritten).
std::optional<Trace> partial_trace(const SweepRun& run, const std::string& partial, const Space& space,
                                   std::vector<EvaluationRecord>& records) {
  std::error_code ec;
  if (!fs::exists(partial, ec)) return std::nullopt;
  try {
    Trace trace = read_trace(partial);
    if (settings_mismatch(trace.meta, run)) return std::nullopt;
    records = evaluations_from_trace(trace, space);
    if (records.size() > run.problem->budget) {
      records.clear();
      return std::nullopt;
    }
    return trace;
  } catch (const InvalidArgument&) {
    records.clear();
    return std::nullopt;
  }
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
  // A run stopped by Ctrl-C or by a failed objective is never renamed (the latter was, before stop
  // 68, and counted as a result); treat a stray one as unfinished all the same: it is redone.
  if (const std::string reason = trace.recommend->value("stop_reason", ""); reason == "cancelled" || reason == "objective failed")
    return false;
  // A finished trace is summarized as it is: one damaged since (a line lost) would skew the
  // summary silently, so it is checked as --resume checks a trace.
  try {
    const auto records = evaluations_from_trace(trace, make_problem(run.problem->name, run.problem->dim).space);
    if (trace.recommend->value("stop_reason", "") == "budget" && records.size() != run.problem->budget)
      throw InvalidArgument("it holds " + std::to_string(records.size()) + " evaluations but says its budget of " +
                            std::to_string(run.problem->budget) + " was used");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("'" + run.trace_path + "' is damaged: " + e.what() +
                          "; delete it (the run is redone) or write this sweep to another --out folder");
  }
  return true;
}

bool execute_run(const SweepRun& run, const std::function<bool()>& should_stop) {
  const SweepProblem& p = *run.problem;
  const Problem problem = make_problem(p.name, p.dim);
  RunOptions options;
  options.budget = p.budget;
  options.batch_size = run.algorithm->batch;
  options.should_stop = should_stop;
  const std::string partial = temporary_path(run.trace_path);
  const std::optional<Trace> earlier = partial_trace(run, partial, problem.space, options.resume_from);
  // The same construction as `optimist run` (prepare_run), so the traces agree.
  PreparedRun prepared = prepare_run(problem, run_spec(*run.algorithm, p, run.seed), options,
                                     earlier ? &earlier->meta : nullptr);
  const auto& optimizer = prepared.optimizer;
  const Objective& objective = prepared.objective;
  const TraceMeta& meta = prepared.meta;
  std::error_code ec;
  fs::create_directories(fs::path(run.trace_path).parent_path(), ec);
  if (ec) throw InvalidArgument("cannot create folder for '" + run.trace_path + "': " + ec.message());
  RunSummary summary;
  // Outside the try: a partial trace that another process writes (its lock refuses us) is not ours
  // to remove.
  auto writer = std::make_unique<TraceWriter>(partial, meta, problem.space, options.resume_from, nullptr, partial);
  try {
    options.trace = writer.get();
    summary = optimize(*optimizer, objective, options);
  } catch (...) {
    writer.reset();
    fs::remove(partial, ec);
    throw;
  }
  writer.reset();
  // The writer is closed: the file is complete. Rename is atomic within one file system, so
  // trace_path never holds a partial trace.
  if (summary.reason == StopReason::Cancelled) return false;  // the partial trace keeps what was paid for
  // A run whose objective failed is not a result (its regret, summed over fewer evaluations, looked
  // better the earlier it failed): its partial trace stays, the run is an error (exit 1), and a
  // rerun continues it, as `optimist run --resume` does.
  if (summary.reason == StopReason::ObjectiveFailed)
    throw std::runtime_error("the objective failed after " + std::to_string(summary.evaluations.size()) + " evaluations (" +
                             summary.message + "); its trace is kept as '" + partial + "': rerun the sweep to continue it");
  fs::rename(partial, run.trace_path);
  return true;
}

bool execute_peer_run(const SweepRun& run, const PeerRunner& peer, const std::function<bool()>& should_stop) {
  if (!peer)
    throw InvalidArgument("algorithm '" + run.algorithm->label + "' is a peer (" + run.algorithm->peer +
                          "): it is run by optimist bench (bench/optuna_peers.py)");
  const std::string partial = temporary_path(run.trace_path);
  std::error_code ec;
  fs::create_directories(fs::path(run.trace_path).parent_path(), ec);
  if (ec) throw InvalidArgument("cannot create folder for '" + run.trace_path + "': " + ec.message());
  fs::remove(partial, ec);  // a peer's run is not resumed: it starts afresh
  try {
    peer(run, partial);
  } catch (const std::exception&) {
    if (!should_stop || !should_stop()) throw;
    fs::remove(partial, ec);
    fs::remove(partial + ".tmp", ec);  // the script's own temporary file, if it was cut short
    return false;
  }
  const Trace trace = read_trace(partial);
  if (!trace.complete()) throw InvalidArgument("the peer wrote an incomplete trace '" + partial + "'");
  if (const auto why = settings_mismatch(trace.meta, run))
    throw InvalidArgument("the peer's trace '" + partial + "' records " + *why);
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
        finished = todo[k]->algorithm->peer.empty() ? execute_run(*todo[k], stop)
                                                    : execute_peer_run(*todo[k], options.run_peer, stop);
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
