#include "cli/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "cli/config.hpp"
#include "cli/count_check.hpp"
#include "core/text.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/json_text.hpp"
#include "optimist/experiment/run_setup.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

namespace {

/// Where a value came from, for error messages: "--budget" or "'budget' in run.toml".
struct Value {
  nlohmann::json json;
  std::string label;
  bool from_file = false;  ///< a config file's (or a trace's) value, not a flag typed by the user
};

[[noreturn]] void bad(const Value& v, const std::string& expected) {
  throw InvalidArgument(v.label + " must be " + expected + ", got " + quoted_value(v.json));
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
  return s;
}

// Integers are accepted as JSON integers (config) or as decimal text (flags), nothing looser:
// "1e3", "10.0" and "12abc" are rejected rather than silently truncated.
std::optional<std::uint64_t> to_unsigned(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  // TOML integers arrive as signed 64-bit numbers.
  if (j.is_number_integer()) return j.get<std::int64_t>() >= 0 ? std::optional(j.get<std::uint64_t>()) : std::nullopt;
  if (!j.is_string()) return std::nullopt;
  const std::string& s = j.get_ref<const std::string&>();
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (!j.is_string()) return std::nullopt;
  const std::string& s = j.get_ref<const std::string&>();
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string as_string(const Value& v) {
  if (!v.json.is_string() || v.json.get_ref<const std::string&>().empty()) bad(v, "a non-empty string");
  return v.json.get<std::string>();
}

std::size_t as_positive(const Value& v) {
  const auto n = to_unsigned(v.json);
  if (!n || *n == 0) bad(v, "a positive integer");
  return static_cast<std::size_t>(*n);
}

double as_finite(const Value& v, const std::string& expected) {
  const auto x = to_double(v.json);
  if (!x || !std::isfinite(*x)) bad(v, expected);
  return *x;
}

bool as_bool(const Value& v) {
  if (v.json.is_boolean()) return v.json.get<bool>();
  if (v.json.is_string()) {
    const std::string& t = v.json.get_ref<const std::string&>();
    if (t == "true") return true;
    if (t == "false") return false;
  }
  bad(v, "true or false");
}

class Sources {
 public:
  Sources(const std::map<std::string, std::string>& flags, nlohmann::json config, std::string path)
      : flags_(flags), config_(std::move(config)), path_(std::move(path)) {}

  /// The flag's value if given, else the config file's, else nothing.
  std::optional<Value> get(const std::string& key) const {
    if (const auto it = flags_.find(key); it != flags_.end()) return Value{it->second, flag_name(key)};
    if (const auto it = config_.find(key); it != config_.end())
      return Value{*it, "'" + key + "' in " + path_, true};
    return std::nullopt;
  }

  Value require(const std::string& key, const std::string& hint) const {
    if (auto v = get(key)) return *v;
    throw InvalidArgument(flag_name(key) + " is required" +
                          (config_.is_object() && !path_.empty() ? " (or '" + key + "' in " + path_ + ")" : "") +
                          "; " + hint);
  }

 private:
  const std::map<std::string, std::string>& flags_;
  nlohmann::json config_;
  std::string path_;
};

std::vector<std::string> problem_names() {
  std::vector<std::string> names;
  for (const auto& p : problems()) names.push_back(p.name);
  return names;
}

void add_option(nlohmann::json& options, const std::string& key, nlohmann::json value,
                const std::string& origin) {
  // "name", "seed" and "budget" belong to the run, not to the algorithm: one source of truth each.
  if (key == "name" || key == "seed" || key == "budget")
    throw InvalidArgument("option '" + key + "' (" + origin + ") cannot be set as an algorithm option; use --" +
                          (key == "name" ? "algorithm" : key));
  options[key] = std::move(value);
}

FailurePolicy parse_failure_policy(const Value& v) {
  const std::string p = v.json.is_string() ? v.json.get<std::string>() : "";
  if (p == "stop") return FailurePolicy::Stop;
  if (p == "mark-failed" || p == "mark_failed") return FailurePolicy::MarkFailed;
  bad(v, "one of: stop, mark-failed");
}

std::optional<double> positive_seconds(const Sources& src, const char* key) {
  const auto v = src.get(key);
  if (!v) return std::nullopt;
  const double t = as_finite(*v, "a positive number of seconds");
  if (t <= 0) bad(*v, "a positive number of seconds");
  return t;
}

// A file written where a config file says: only below the current folder (docs/security.md). A
// config file received from someone else cannot overwrite ~/.bashrc; --out on the command line can
// name any path.
std::string output_path_from_file(const Value& v) {
  const std::string path = as_string(v);
  const std::filesystem::path p(path);
  if (p.is_absolute()) bad(v, "a path relative to the current folder (a config file cannot name an absolute path; give --out)");
  for (const auto& part : p)
    if (part == "..") bad(v, "a path below the current folder, without '..' (a config file cannot write elsewhere; give --out)");
  return path;
}

// One point (an object by name, or an array of numbers and choice strings) or a list of points:
// the list of points. A flag's text is JSON (run_command joins repeated --x0 into a list).
nlohmann::json as_points(const Value& v) {
  const std::string expected = "a point (a JSON array in parameter order, or an object by name) or a list of points";
  nlohmann::json j = v.json;
  if (!v.from_file && j.is_string()) {
    j = nlohmann::json::parse(j.get<std::string>(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) bad(v, expected);
  }
  const auto scalar = [](const nlohmann::json& e) { return e.is_number() || e.is_string(); };
  if (j.is_object() || (j.is_array() && !j.empty() && std::all_of(j.begin(), j.end(), scalar)))
    return nlohmann::json::array({j});
  if (!j.is_array()) bad(v, expected);
  for (const auto& point : j)
    if (!point.is_object() && !point.is_array()) bad(v, expected);
  return j;
}

// The settings of the driver and the trace path, the same for a new and a resumed run.
void apply_driver_settings(const Sources& src, RunSettings& s) {
  if (auto v = src.get("out")) s.out = v->from_file ? output_path_from_file(*v) : as_string(*v);
  if (auto t = positive_seconds(src, "time_limit")) s.time_limit = t;
  if (auto v = src.get("target")) s.target = as_finite(*v, "a finite number");
  if (auto v = src.get("batch")) s.batch = as_positive(*v);
  if (auto v = src.get("on_failure")) s.on_failure = parse_failure_policy(*v);
  if (auto v = src.get("x0")) s.x0 = as_points(*v);
}

// --jobs, --storage, --study and --quiet: how the run is carried out, not what it computes.
void apply_study_settings(const Sources& src, RunSettings& s) {
  if (auto v = src.get("jobs")) {
    s.jobs = as_positive(*v);
    if (*s.jobs > kMaxJobs) bad(*v, "a whole number from 1 to " + std::to_string(kMaxJobs) + " (more in flight: start more `optimist worker`s)");
  }
  if (auto v = src.get("storage")) {
    s.storage = as_string(*v);
    // A SQLite file a config file names follows --out's rule: below the current folder.
    constexpr std::string_view kSqlite = "sqlite:///";
    if (v->from_file && s.storage.rfind(kSqlite, 0) == 0) {
      const std::filesystem::path p(s.storage.substr(kSqlite.size()));
      bool below = !p.is_absolute();
      for (const auto& part : p) below = below && part != "..";
      if (!below) bad(*v, "a SQLite file below the current folder, e.g. sqlite:///studies/run.db (a config file cannot write elsewhere; give --storage)");
    }
  }
  if (auto v = src.get("study")) {
    s.study = as_string(*v);
    if (s.storage.empty()) bad(*v, "given with a storage (--storage URL, or 'storage' in the config file): it names a study there");
  }
  if (auto v = src.get("quiet")) s.quiet = as_bool(*v);
}

}  // namespace

const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = {"problem", "dim",    "algorithm", "budget",
                                                "seed",    "noise",  "noisy",     "out",       "time_limit",
                                                "target",  "batch",  "on_failure", "options",
                                                "objective_command", "space", "direction", "objective_timeout",
                                                "jobs", "storage", "study", "quiet", "x0"};
  return keys;
}

std::string flag_name(const std::string& key) {
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

nlohmann::json parse_set_value(const std::string& text) {
  // Only scalars and arrays are taken as JSON; anything else (e.g. a bare word) is a string.
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || j.is_object()) return text;
  return j;
}

RunSettings resolve_settings(const std::map<std::string, std::string>& flags,
                             const std::vector<std::string>& set_args,
                             const std::optional<std::string>& config_path) {
  if (!config_path) return resolve_settings(flags, set_args, nlohmann::json::object(), std::nullopt);
  return resolve_settings(flags, set_args, load_config(*config_path), config_path);
}

RunSettings resolve_settings(const std::map<std::string, std::string>& flags,
                             const std::vector<std::string>& set_args, const nlohmann::json& config,
                             const std::optional<std::string>& config_path) {
  if (!config.is_object()) throw InvalidArgument("a config must be an object/table of settings, got " + config.dump());
  if (config_path) {
    for (const auto& [key, value] : config.items()) {
      (void)value;
      const auto& keys = config_keys();
      // A run to continue and the trust in a stored command are the caller's, each time: flags only.
      if (key == "resume" || key == "trust_command" || key == "trust-command")
        throw InvalidArgument("'" + key + "' in config file '" + *config_path + "' is not read from a config file: give --" +
                              (key == "resume" ? std::string("resume TRACE") : std::string("trust-command")) +
                              " on the command line");
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        throw InvalidArgument("unknown key '" + key + "'" + did_you_mean(key, keys) + " in config file '" + *config_path +
                              "'; valid keys: " + join(keys));
    }
  } else if (!config.empty()) {
    throw InvalidArgument("config values given without the config file's name");
  }
  const Sources src(flags, config, config_path.value_or(""));
  RunSettings s;

  if (auto v = src.get("objective_command")) s.objective_command = as_string(*v);
  if (s.objective_command.empty()) {
    s.problem = as_string(src.require("problem", "valid problems: " + join(problem_names()) +
                                                     "; or optimize your own program with --objective-command"));
    for (const char* key : {"space", "direction", "objective_timeout"})
      if (auto v = src.get(key)) bad(*v, "given only with --objective-command (it would be ignored)");
  } else {
    if (auto v = src.get("problem"))
      bad(*v, "absent when --objective-command is given (one objective per run)");
    for (const char* key : {"dim", "noise"})
      if (auto v = src.get(key)) bad(*v, "absent with --objective-command (the --space file sets the dimension)");
    s.space = as_string(src.require("space", "the parameters of the objective command: a JSON or TOML file with a "
                                             "'parameters' list (see docs/hpo.md)"));
    const Value d = src.require("direction", "'maximize' or 'minimize' the value the command prints");
    const std::string dir = d.json.is_string() ? d.json.get<std::string>() : "";
    if (dir == "maximize" || dir == "max") s.direction = Direction::Maximize;
    else if (dir == "minimize" || dir == "min") s.direction = Direction::Minimize;
    else bad(d, "one of: maximize (or max), minimize (or min)");
    s.objective_timeout = positive_seconds(src, "objective_timeout");
  }
  // No algorithm named: `auto` chooses one from the space and the budget (docs/robust.md).
  if (auto v = src.get("algorithm")) s.algorithm = as_string(*v);
  else s.algorithm = "auto";
  s.budget = as_positive(src.require("budget", "the number of evaluations, a positive integer"));
  if (auto v = src.get("dim")) s.dim = as_positive(*v);
  if (auto v = src.get("seed")) {
    const auto seed = to_unsigned(v->json);
    if (!seed) bad(*v, "a non-negative integer below 2^64");
    s.seed = *seed;
  }
  if (auto v = src.get("noise")) {
    s.noise = as_finite(*v, "a non-negative number (the noise standard deviation)");
    if (s.noise < 0) bad(*v, "a non-negative number (the noise standard deviation)");
  }
  if (auto v = src.get("noisy")) s.noisy = as_bool(*v);
  apply_driver_settings(src, s);
  apply_study_settings(src, s);

  if (const auto it = config.find("options"); it != config.end()) {
    if (!it->is_object())
      throw InvalidArgument("'options' in " + *config_path + " must be a table/object of algorithm options, got " +
                            it->dump());
    for (const auto& [key, value] : it->items())
      add_option(s.options, key, value, "'options' in " + *config_path);
  }
  // A key set twice is a mistake to name (an edited command line), not one to resolve by order.
  std::map<std::string, std::string> set_before;
  for (const auto& arg : set_args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InvalidArgument("--set expects key=value, got '" + arg + "'");
    const std::string key = arg.substr(0, eq);
    if (const auto [it, first] = set_before.emplace(key, arg); !first)
      throw InvalidArgument("option '" + key + "' is set twice: --set " + it->second + " and --set " + arg + "; give it once");
    add_option(s.options, key, parse_set_value(arg.substr(eq + 1)), "--set " + arg);
  }
  return s;
}

}  // namespace optimist::cli

namespace optimist::cli {

RunSettings resume_settings(const TraceMeta& meta, const std::map<std::string, std::string>& flags,
                            const std::string& trace_path) {
  const std::string origin = "the trace '" + trace_path + "'";
  for (const char* key : {"problem", "dim", "algorithm", "seed", "noise", "noisy", "space", "direction", "batch", "x0"})
    if (flags.count(key) > 0)
      throw InvalidArgument(flag_name(key) + " cannot be combined with --resume: " + origin + " fixes it");
  if (!meta.has_seed)
    throw InvalidArgument("the meta line of " + origin + " has no \"seed\"; the run cannot be continued as the same "
                          "run (start a new one, or restore the seed)");
  if (meta.options.contains("name") && meta.options.at("name") != meta.algorithm) {
    // The options were resolved for the algorithm they name; running them under another is garbage.
    std::string message = "the meta of " + origin;
    message += " names the algorithm '";
    message += meta.algorithm;
    message += "' but its options are those of ";
    message += meta.options.at("name").dump();
    message += "; restore one of the two";
    throw InvalidArgument(message);
  }
  RunSettings s;
  // recorded_run also reads traces written before RunContext (seed and horizon among the options).
  const experiment::RunSpec recorded = experiment::recorded_run(meta);
  s.algorithm = recorded.algorithm;
  s.seed = recorded.seed;
  s.noise = recorded.noise;
  if (!std::isfinite(s.noise) || s.noise < 0)
    throw InvalidArgument("the meta of " + origin + " has \"noise\" " + format_double(s.noise) + "; expected a number >= 0");
  s.noisy = recorded.noisy;
  s.dim = meta.dim;
  s.options = recorded.options;
  s.horizon = recorded.horizon;
  s.budget = recorded.budget;
  s.out = trace_path;
  if (meta.objective_command.empty()) {
    s.problem = meta.problem;
    for (const char* key : {"objective_command", "objective_timeout"})
      if (flags.count(key) > 0)
        throw InvalidArgument(flag_name(key) + " cannot be combined with --resume of " + origin + ": it is a run of problem '" +
                              meta.problem + "'");
  } else {
    s.objective_command = meta.objective_command;
    s.direction = meta.direction;
  }
  // The trace's driver settings that shape the run; the time limit and target apply per session.
  const std::map<std::string, std::string> no_flags;
  const Sources trace_run(no_flags, meta.run, "the meta of " + origin);
  if (auto v = trace_run.get("batch")) s.batch = as_positive(*v);
  if (auto v = trace_run.get("on_failure")) s.on_failure = parse_failure_policy(*v);
  if (auto v = trace_run.get("x0")) s.x0 = as_points(*v);
  // A run with K evaluations in flight continues with K (its trace's "jobs"); --jobs changes K, and
  // continues a sequential or batch run with K in flight.
  if (auto v = trace_run.get("jobs")) {
    s.jobs = as_positive(*v);
    if (*s.jobs > kMaxJobs) bad(*v, "a whole number from 1 to " + std::to_string(kMaxJobs));
  }

  const Sources src(flags, nlohmann::json::object(), "");
  apply_study_settings(src, s);
  if (flags.count("jobs") > 0) s.batch = 1;
  if (auto v = src.get("budget")) s.budget = as_positive(*v);
  if (auto v = src.get("objective_command")) s.objective_command = as_string(*v);
  s.objective_timeout = positive_seconds(src, "objective_timeout");
  apply_driver_settings(src, s);
  return s;
}

std::vector<Vector> start_points(const RunSettings& s, const Space& space) {
  return start_points_from_json(s.x0, space, "x0");
}

}  // namespace optimist::cli
