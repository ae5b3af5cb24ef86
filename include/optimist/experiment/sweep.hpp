// A benchmark sweep: algorithms x problems x seeds, as given by a preset or a JSON/TOML file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optimist/experiment/run_setup.hpp"
#include "optimist/experiment/statistics.hpp"

namespace optimist::experiment {

/// One algorithm of a sweep: a registry name with options, or a peer run by a script of its own.
struct SweepAlgorithm {
  std::string label;  ///< folder and legend name (default: the algorithm's name; a peer's: "<peer>-<name>")
  std::string name;   ///< registry name, or the peer's sampler ("tpe", "random", ...)
  nlohmann::json options = nlohmann::json::object();  ///< without name/seed
  /// Empty for an optimist algorithm; "optuna" for an Optuna sampler run by bench/optuna_peers.py
  /// on the same problems, seeds and noise streams, writing our trace format (docs/bench.md, "Peers").
  std::string peer;
  /// Points per ask, evaluated before the next ask (`optimist run --batch`): what K workers
  /// evaluating in parallel cost per evaluation. Default label: "<name>-q<batch>" when above 1.
  std::size_t batch = 1;
  /// The name a run's trace records: the registry name, or "<peer>-<name>" ("optuna-tpe").
  std::string run_name() const { return peer.empty() ? name : peer + "-" + name; }
};

/// The Optuna samplers bench/optuna_peers.py runs: "tpe", "random", "cmaes", "qmc".
const std::vector<std::string>& optuna_peer_samplers();

/// One problem instance of a sweep: a catalog problem at one dimension, noise and budget.
struct SweepProblem {
  std::string label;  ///< folder and panel name (default: name, plus -noise<b> when noises vary)
  std::string name;
  std::size_t dim = 0;  ///< 0: the problem's default
  double noise = 0.0;   ///< Gaussian noise standard deviation
  std::size_t budget = 0;
  /// The label was written in the sweep; a default label may be kept from the --out folder's
  /// sweep.json when the sweep continues there (keep_folder_labels).
  bool label_given = false;
};

/// The statistic compared across algorithms at the horizon and drawn against t.
enum class Metric {
  CumulativeRegret,    ///< sum_{i<=t} r_i (GO-UCB paper, Fig. 2, 3)
  AveragePhase2Regret, ///< (1/(t-n)) sum_{n<i<=t} r_i (GO-UCB workshop paper, Fig. 1)
  SimpleRegret,        ///< f* - best f up to t (SequOOL paper, Fig. 3-5)
};
std::string to_string(Metric m);

struct SweepSpec {
  std::string name = "custom";
  std::string description;
  std::vector<SweepAlgorithm> algorithms;
  std::vector<SweepProblem> problems;
  std::size_t seeds = 5;          ///< K runs per (problem, algorithm), seeds first_seed..first_seed+K-1
  std::uint64_t first_seed = 0;
  double level = 0.95;            ///< confidence level of the intervals
  /// Student's t (default) or the papers' Wald interval (key `interval`: "t" or "wald")
  IntervalKind interval = IntervalKind::StudentT;
  Metric metric = Metric::CumulativeRegret;
  std::size_t phase1 = 0;         ///< n of AveragePhase2Regret
  std::vector<std::string> plots = {"metric"};  ///< figures: metric, metric_log, simple_regret, suggest_time
  std::string expected_time;      ///< presets: measured wall time with the default seeds on 2 cores

  std::size_t run_count() const { return algorithms.size() * problems.size() * seeds; }
  nlohmann::json to_json() const;
};

/// Builds a sweep from its JSON form (a config file read as JSON, or a preset). `source` names the
/// input in error messages ("sweep.toml", "preset 'tree-noisy'"). Throws InvalidArgument naming the
/// bad key (e.g. "problems[1].dim") and value. Unknown algorithm or problem names are accepted
/// here and reported by check_available(), so that presets can be listed in any build.
SweepSpec parse_sweep(const nlohmann::json& j, const std::string& source);

/// A sweep continuing in a folder keeps the folder's labels: a problem instance whose label was
/// not written takes the label the folder's sweep (`previous`, its sweep.json) gave the same
/// instance (same name, dim, noise, budget), so adding a second instance of a problem (which
/// appends -noise<b>, -d<dim> or -T<budget> to the default labels) does not move the finished runs
/// of the first to a new folder and redo them. A label another instance already has is not taken.
void keep_folder_labels(SweepSpec& spec, const nlohmann::json& previous);

/// Throws InvalidArgument naming every algorithm and problem of the sweep that this build does not
/// have, every dimension a problem does not allow, every invalid algorithm option and every
/// (algorithm, problem) whose run `optimist run` would refuse before its first evaluation (a
/// budget the algorithm cannot plan with, or one beyond its memory; the optimizer is built once
/// for each, with the first seed); and seeds
/// out of range (more than 1,000,000; past 2^64 - 1; from 2^32 with Optuna peers), as parse_sweep
/// does, since a caller may have changed `seeds` since (`--seeds`).
void check_available(const SweepSpec& spec);

/// One run of the sweep as `optimist run` would make it: the algorithm's options, the seed, the
/// problem's noise and budget (the horizon of the algorithms that plan with one).
RunSpec run_spec(const SweepAlgorithm& a, const SweepProblem& p, std::uint64_t seed);

/// The built-in presets.
struct Preset {
  std::string name;
  std::string description;
  nlohmann::json spec;  ///< the same structure as a config file
};
const std::vector<Preset>& presets();
/// Throws InvalidArgument listing the preset names.
SweepSpec preset_sweep(const std::string& name);

}  // namespace optimist::experiment
