// The settings of `optimist run`, merged from a config file and command-line flags, validated.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/driver.hpp"
#include "optimist/core/trace.hpp"

namespace optimist::cli {

struct RunSettings {
  std::string problem;
  std::size_t dim = 0;  ///< 0: the problem's default
  std::string algorithm;
  std::size_t budget = 0;
  std::uint64_t seed = 0;
  double noise = 0.0;
  /// The objective is declared noisy (--noisy; noise > 0 implies it): algorithms may evaluate a
  /// point again, and a finite space is never exhausted.
  bool noisy = false;
  std::string out;  ///< trace path; empty: no trace
  std::optional<double> time_limit;
  std::optional<double> target;
  std::size_t batch = 1;
  FailurePolicy on_failure = FailurePolicy::Stop;
  nlohmann::json options = nlohmann::json::object();  ///< algorithm options (no name)
  /// The algorithm's planning horizon when it is not the budget: a resumed run keeps its trace's
  /// (experiment::RunSpec::horizon).
  std::optional<std::size_t> horizon;
  // Instead of a problem: the user's program as the objective (docs/hpo.md, "Your own program").
  std::string objective_command;  ///< program and arguments, split like a shell; empty: use `problem`
  std::string space;              ///< search-space file (.json/.toml), required with objective_command
  std::optional<Direction> direction;       ///< required with objective_command
  std::optional<double> objective_timeout;  ///< seconds to wait for one answer
  // The run as a study (docs/studies.md, cli/run_study.hpp): evaluations in parallel, or kept in a
  // storage and continued by running the same command again.
  std::optional<std::size_t> jobs;  ///< evaluations in flight (1-1024); none: one, and no study unless `storage`
  std::string storage;              ///< the study's storage URL; empty: a temporary one (with `jobs`)
  std::string study = "run";        ///< the study's name in `storage`
  bool quiet = false;               ///< no progress display
  /// Start points (--x0, 'x0'), as given: JSON points (an array in parameter order or an object by
  /// name), evaluated first; start_points() reads them in the run's space.
  nlohmann::json x0 = nlohmann::json::array();
};

/// s.x0 as points of `space` (Space::point_from_json); InvalidArgument naming the point.
std::vector<Vector> start_points(const RunSettings& s, const Space& space);

/// Keys a config file may hold (also the keys of `flags`, which use them with '_').
const std::vector<std::string>& config_keys();

/// Merges and validates: `flags` (key -> text as typed on the command line) override the config
/// file's values; `set_args` ("key=value") override its "options". Throws InvalidArgument naming
/// the offending flag or config key, the bad value and what is allowed.
RunSettings resolve_settings(const std::map<std::string, std::string>& flags,
                             const std::vector<std::string>& set_args,
                             const std::optional<std::string>& config_path);
/// The same with the config file already read (load_config): `config_path` names it in messages.
/// A trace path ('out') from a config file must stay below the current folder (relative, no
/// '..'): a config file received from someone else cannot make optimist write elsewhere.
RunSettings resolve_settings(const std::map<std::string, std::string>& flags,
                             const std::vector<std::string>& set_args, const nlohmann::json& config,
                             const std::optional<std::string>& config_path);

/// The settings of `optimist run --resume TRACE`: the trace's meta fixes the problem (or the
/// objective command), algorithm, options, seed, noise, noisy, batch and failure policy; `flags` may set
/// budget (default: the trace's), out (default: the trace itself, rewritten in place),
/// time_limit and target (this session only), batch, on_failure, objective_command (the
/// program moved) and objective_timeout. Throws InvalidArgument naming a flag the trace fixes.
RunSettings resume_settings(const TraceMeta& meta, const std::map<std::string, std::string>& flags,
                            const std::string& trace_path);

/// The value of `--set key=value`: JSON when it parses (numbers, true/false, arrays, quoted
/// strings), otherwise the text itself as a string.
nlohmann::json parse_set_value(const std::string& text);

/// "time_limit" -> "--time-limit".
std::string flag_name(const std::string& key);

}  // namespace optimist::cli
