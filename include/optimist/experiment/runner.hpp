// Running a sweep: one independent, deterministic optimization per (problem, algorithm, seed),
// on J worker threads, each writing its trace atomically (resumable).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "optimist/experiment/sweep.hpp"

namespace optimist::experiment {

/// One run of a sweep.
struct SweepRun {
  const SweepProblem* problem = nullptr;
  const SweepAlgorithm* algorithm = nullptr;
  std::uint64_t seed = 0;
  std::string trace_path;  ///< DIR/traces/<problem>/<algorithm>/seed-<seed>.jsonl
};

/// Every run of the sweep under out_dir, problem-major (pointers into spec).
std::vector<SweepRun> plan_runs(const SweepSpec& spec, const std::string& out_dir);

/// Where a run's trace is written until it is complete.
std::string temporary_path(const std::string& trace_path);

/// True when trace_path holds a complete trace of this run (meta line matching the run's
/// settings, recommend line present). A trace of the same path with other settings (e.g. another
/// budget) throws InvalidArgument naming the file and the differing field: use a new folder.
bool is_finished(const SweepRun& run);

/// Runs one optimization exactly as `optimist run` with the same settings would (same optimizer
/// options, seed, noise stream and trace), writing to temporary_path() and renaming it to
/// trace_path once the recommend line is written. A cancelled run (should_stop) leaves no
/// trace under trace_path, keeps its evaluations in temporary_path() and returns false; the next
/// call continues such a partial trace of the same settings (as `optimist run --resume`) instead
/// of evaluating its points again.
bool execute_run(const SweepRun& run, const std::function<bool()>& should_stop = {});

/// Runs a peer's run (SweepAlgorithm::peer): writes its complete trace to the given path (the
/// run's temporary_path()) or throws. `optimist bench` runs bench/optuna_peers.py.
using PeerRunner = std::function<void(const SweepRun& run, const std::string& trace_path)>;

/// A peer's run through `peer`: its trace is written to temporary_path(), checked (complete, the
/// run's settings) and renamed to trace_path. Throws InvalidArgument when peer is empty. A peer
/// that fails once should_stop() is true (a terminal's Ctrl-C reaches the peer's process too)
/// was stopped, not failed: its files are removed and false is returned.
bool execute_peer_run(const SweepRun& run, const PeerRunner& peer, const std::function<bool()>& should_stop = {});

struct SweepProgress {
  std::size_t total = 0;     ///< runs in the sweep
  std::size_t skipped = 0;   ///< already finished before this invocation
  std::size_t done = 0;      ///< finished by this invocation (failed ones included)
  std::size_t failed = 0;
  double elapsed_s = 0.0;
  double eta_s = -1.0;       ///< estimated seconds left; < 0 while unknown
};

struct RunnerOptions {
  std::size_t jobs = 0;  ///< worker threads; 0: std::thread::hardware_concurrency()
  std::function<void(const SweepProgress&)> on_progress{};  ///< after each run (serialized)
  std::function<bool()> should_stop{};                      ///< polled between and within runs
  PeerRunner run_peer{};  ///< runs the peers' runs (empty: a sweep with peers fails on them)
};

struct SweepOutcome {
  SweepProgress progress;
  bool cancelled = false;
  std::vector<std::string> errors;  ///< "<trace path>: <what>" for each run that threw
};

/// Runs every unfinished run of the sweep (check_available first). A run that throws is reported
/// in errors, its temporary trace removed, and the other runs go on.
SweepOutcome run_sweep(const SweepSpec& spec, const std::string& out_dir, const RunnerOptions& options);

}  // namespace optimist::experiment
