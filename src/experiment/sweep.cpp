// Parsing and checking a sweep specification (docs/bench.md, "Custom sweeps").
#include "optimist/experiment/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "core/text.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/json_text.hpp"
#include "optimist/core/types.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::experiment {

namespace {

using json = nlohmann::json;

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
  return s;
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void bad(const std::string& key, const json& value, const std::string& expected) const {
    throw InvalidArgument("'" + key + "' in " + source_ + " must be " + expected + ", got " + quoted_value(value));
  }

  void only_keys(const json& obj, const std::string& where, const std::vector<std::string>& keys) const {
    for (const auto& [key, value] : obj.items()) {
      (void)value;
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        throw InvalidArgument("unknown key '" + (where.empty() ? key : where + "." + key) + "' in " + source_ +
                              "; valid keys: " + join(keys));
    }
  }

  std::string text(const json& v, const std::string& key) const {
    if (!v.is_string() || v.get_ref<const std::string&>().empty()) bad(key, v, "a non-empty string");
    return v.get<std::string>();
  }

  // TOML integers arrive as signed numbers, JSON ones as unsigned: accept both, nothing looser.
  std::uint64_t count(const json& v, const std::string& key, bool allow_zero = false) const {
    const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    if (!ok || (!allow_zero && v.get<std::uint64_t>() == 0))
      bad(key, v, allow_zero ? "a non-negative integer" : "a positive integer");
    return v.get<std::uint64_t>();
  }

  double noise(const json& v, const std::string& key) const {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      bad(key, v, "a non-negative number (the noise standard deviation)");
    return v.get<double>();
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// Six significant digits: labels are folder names for people (format_double keeps every digit).
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Labels become folder names.
bool safe_label(const std::string& s) { return folder_safe_name(s); }

std::vector<SweepAlgorithm> parse_algorithms(const Parser& p, const json& list) {
  if (!list.is_array() || list.empty()) p.bad("algorithms", list, "a non-empty array of algorithms");
  std::vector<SweepAlgorithm> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "algorithms[" + std::to_string(i) + "]";
    const json& e = list[i];
    SweepAlgorithm a;
    if (e.is_string()) {
      a.name = p.text(e, where);
    } else if (e.is_object()) {
      p.only_keys(e, where, {"name", "label", "options", "peer", "batch"});
      if (!e.contains("name")) throw InvalidArgument("'" + where + ".name' is missing in " + p.source());
      a.name = p.text(e.at("name"), where + ".name");
      if (e.contains("peer")) {
        a.peer = p.text(e.at("peer"), where + ".peer");
        if (a.peer != "optuna") p.bad(where + ".peer", e.at("peer"), "\"optuna\" (Optuna's samplers, bench/optuna_peers.py)");
        const auto& ok = optuna_peer_samplers();
        if (std::find(ok.begin(), ok.end(), a.name) == ok.end()) p.bad(where + ".name", e.at("name"), "an Optuna sampler: " + join(ok));
        if (e.contains("options")) p.bad(where + ".options", e.at("options"), "absent for a peer (the sampler runs with its defaults)");
        if (e.contains("batch")) p.bad(where + ".batch", e.at("batch"), "absent for a peer (it asks one point at a time)");
      }
      if (e.contains("batch")) a.batch = p.count(e.at("batch"), where + ".batch");
      if (e.contains("label")) a.label = p.text(e.at("label"), where + ".label");
      if (e.contains("options")) {
        if (!e.at("options").is_object()) p.bad(where + ".options", e.at("options"), "a table/object of options");
        a.options = e.at("options");
        for (const char* reserved : {"name", "seed", "budget"})
          if (a.options.contains(reserved))
            throw InvalidArgument("'" + where + ".options." + reserved + "' in " + p.source() +
                                  " cannot be set: the sweep sets it (use 'name' / 'seeds' / 'budget')");
      }
    } else {
      p.bad(where, e, "an algorithm name or a table {name, label, options, peer, batch}");
    }
    if (a.label.empty()) a.label = a.run_name() + (a.batch > 1 ? "-q" + std::to_string(a.batch) : "");
    if (!safe_label(a.label)) p.bad(where + ".label", a.label, "a folder-safe name (letters, digits, - _ . +)");
    out.push_back(std::move(a));
  }
  return out;
}

struct Defaults {
  std::optional<json> budget;  ///< a count, or an array of counts
  std::optional<std::size_t> dim;
  std::optional<json> noise;
};

std::vector<SweepProblem> parse_problems(const Parser& p, const json& list, const Defaults& d) {
  if (!list.is_array() || list.empty()) p.bad("problems", list, "a non-empty array of problems");
  std::vector<SweepProblem> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "problems[" + std::to_string(i) + "]";
    const json& e = list[i];
    SweepProblem base;
    std::string label;
    json noise = d.noise.value_or(json(0.0));
    std::string noise_key = "noise";
    std::optional<json> budget = d.budget;
    std::string budget_key = "budget";
    base.dim = d.dim.value_or(0);
    if (e.is_string()) {
      base.name = p.text(e, where);
    } else if (e.is_object()) {
      p.only_keys(e, where, {"name", "label", "dim", "noise", "budget"});
      if (!e.contains("name")) throw InvalidArgument("'" + where + ".name' is missing in " + p.source());
      base.name = p.text(e.at("name"), where + ".name");
      if (e.contains("label")) label = p.text(e.at("label"), where + ".label");
      if (e.contains("dim")) base.dim = p.count(e.at("dim"), where + ".dim");
      if (e.contains("budget")) budget = e.at("budget"), budget_key = where + ".budget";
      if (e.contains("noise")) noise = e.at("noise"), noise_key = where + ".noise";
    } else {
      p.bad(where, e, "a problem name or a table {name, label, dim, noise, budget}");
    }
    // A problem's default dimension is its dimension: "branin" and "branin" with dim 2 are one
    // task (they share an unknown f*, and the duplicate check sees them). A name this build does
    // not have stays at 0 for check_available to name.
    if (base.dim == 0) {
      try {
        base.dim = problem_info(base.name).default_dim;
      } catch (const InvalidArgument&) {
      }
    }
    if (!budget)
      throw InvalidArgument("'" + where + ".budget' is missing in " + p.source() +
                            " (give it per problem or as a top-level 'budget')");
    const json budgets = budget->is_array() ? *budget : json::array({*budget});
    if (budgets.empty()) p.bad(budget_key, *budget, "a positive integer or a non-empty array of them");
    const json noises = noise.is_array() ? noise : json::array({noise});
    if (noises.empty()) p.bad(noise_key, noise, "a number or a non-empty array of numbers");
    if (!label.empty() && noises.size() * budgets.size() > 1)
      throw InvalidArgument("'" + where + ".label' in " + p.source() +
                            " cannot name several noise levels or budgets; drop it (labels are made per instance)");
    // A list of noise levels or budgets makes one problem instance per combination.
    for (std::size_t b = 0; b < budgets.size(); ++b)
      for (std::size_t k = 0; k < noises.size(); ++k) {
        SweepProblem inst = base;
        inst.budget = p.count(budgets[b], budget->is_array() ? budget_key + "[" + std::to_string(b) + "]" : budget_key);
        inst.noise = p.noise(noises[k], noise.is_array() ? noise_key + "[" + std::to_string(k) + "]" : noise_key);
        inst.label = label;
        inst.label_given = !label.empty();
        out.push_back(std::move(inst));
      }
  }
  // Default labels: the name, plus what tells apart instances of the same problem.
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].label_given) continue;
    bool dims = false, noises = false, budgets = false;
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (j == i || out[j].name != out[i].name) continue;
      dims |= out[j].dim != out[i].dim;
      noises |= out[j].noise != out[i].noise;
      budgets |= out[j].budget != out[i].budget;
    }
    std::string label = out[i].name;
    if (dims) label += "-d" + std::to_string(out[i].dim);
    if (noises) label += "-noise" + short_number(out[i].noise);
    if (budgets) label += "-T" + std::to_string(out[i].budget);
    out[i].label = label;
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!safe_label(out[i].label))
      p.bad("problems[" + std::to_string(i) + "].label", out[i].label, "a folder-safe name (letters, digits, - _ . +)");
  return out;
}

template <class T>
void unique_labels(const std::vector<T>& items, const std::string& what, const std::string& source) {
  std::set<std::string> seen;
  for (const auto& item : items)
    if (!seen.insert(item.label).second)
      throw InvalidArgument("two " + what + " in " + source + " have the label '" + item.label +
                            "'; give them distinct 'label's");
}

// The most runs per (problem, algorithm): `--seeds`' limit (more would not fit in memory).
constexpr std::uint64_t kMaxSeeds = 1000000;

// Seeds are first_seed .. first_seed + seeds - 1: past 2^64 - 1 they would wrap to 0, 1, ...,
// runs of other seeds filed as this sweep's. `where` names the input ("in 'sweep.toml'").
void check_seed_range(const SweepSpec& s, const std::string& where) {
  if (s.seeds == 0 || s.seeds > kMaxSeeds)
    throw InvalidArgument("'seeds' " + where + " must be a positive integer up to " + std::to_string(kMaxSeeds) + ", got " +
                          std::to_string(s.seeds));
  const std::string what = "'first_seed' " + std::to_string(s.first_seed) + " with " + std::to_string(s.seeds) + " seeds " + where;
  if (s.seeds - 1 > std::numeric_limits<std::uint64_t>::max() - s.first_seed)
    throw InvalidArgument(what + ": the last seed would be past 2^64 - 1 (18446744073709551615)");
  const bool peers = std::any_of(s.algorithms.begin(), s.algorithms.end(), [](const SweepAlgorithm& a) { return !a.peer.empty(); });
  constexpr std::uint64_t kPeerSeeds = std::uint64_t{1} << 32;  // Optuna's samplers take 32-bit seeds
  if (peers && (s.first_seed >= kPeerSeeds || s.seeds > kPeerSeeds - s.first_seed))
    throw InvalidArgument(what + ": the Optuna peers take seeds below 2^32 (4294967296)");
}

Metric parse_metric(const Parser& p, const json& v) {
  const std::string s = v.is_string() ? v.get<std::string>() : "";
  if (s == "cumulative_regret") return Metric::CumulativeRegret;
  if (s == "average_phase2_regret") return Metric::AveragePhase2Regret;
  if (s == "simple_regret") return Metric::SimpleRegret;
  p.bad("metric", v, "one of: cumulative_regret, average_phase2_regret, simple_regret");
}

}  // namespace

std::string to_string(Metric m) {
  switch (m) {
    case Metric::CumulativeRegret: return "cumulative_regret";
    case Metric::AveragePhase2Regret: return "average_phase2_regret";
    case Metric::SimpleRegret: return "simple_regret";
  }
  return "?";
}

SweepSpec parse_sweep(const json& j, const std::string& source) {
  const Parser p(source);
  if (!j.is_object()) throw InvalidArgument(source + ": the sweep must be a table/object, got " + j.dump());
  p.only_keys(j, "", {"name", "description", "expected_time", "algorithms", "problems", "seeds", "first_seed",
                      "level", "interval", "metric", "phase1", "plots", "budget", "dim", "noise"});
  SweepSpec s;
  if (j.contains("name")) s.name = p.text(j.at("name"), "name");
  if (!safe_label(s.name)) p.bad("name", s.name, "a folder-safe name (letters, digits, - _ . +)");
  if (j.contains("description")) s.description = p.text(j.at("description"), "description");
  if (j.contains("expected_time")) s.expected_time = p.text(j.at("expected_time"), "expected_time");
  if (j.contains("seeds")) s.seeds = p.count(j.at("seeds"), "seeds");
  if (j.contains("first_seed")) s.first_seed = p.count(j.at("first_seed"), "first_seed", true);
  if (j.contains("level")) {
    const json& v = j.at("level");
    if (!v.is_number() || !(v.get<double>() > 0.0 && v.get<double>() < 1.0))
      p.bad("level", v, "a confidence level strictly between 0 and 1 (e.g. 0.95)");
    s.level = v.get<double>();
  }
  if (j.contains("interval")) {
    const json& v = j.at("interval");
    if (v != "t" && v != "wald")
      p.bad("interval", v, "\"t\" (Student's t, the default) or \"wald\" (the papers' 1.96 sd / sqrt(K))");
    s.interval = v == "wald" ? IntervalKind::Wald : IntervalKind::StudentT;
  }
  if (j.contains("metric")) s.metric = parse_metric(p, j.at("metric"));
  if (j.contains("phase1")) s.phase1 = p.count(j.at("phase1"), "phase1");
  if (s.metric == Metric::AveragePhase2Regret && s.phase1 == 0)
    throw InvalidArgument("'phase1' (the Phase I length n, a positive integer) is required in " + source +
                          " with metric average_phase2_regret");
  if (j.contains("plots")) {
    const json& v = j.at("plots");
    if (!v.is_array() || v.empty()) p.bad("plots", v, "a non-empty array of: metric, metric_log, simple_regret, suggest_time");
    s.plots.clear();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string what = v[i].is_string() ? v[i].get<std::string>() : "";
      if (what != "metric" && what != "metric_log" && what != "simple_regret" && what != "suggest_time")
        p.bad("plots[" + std::to_string(i) + "]", v[i], "one of: metric, metric_log, simple_regret, suggest_time");
      s.plots.push_back(what);
    }
  }
  Defaults d;
  if (j.contains("budget")) d.budget = j.at("budget");
  if (j.contains("dim")) d.dim = p.count(j.at("dim"), "dim");
  if (j.contains("noise")) d.noise = j.at("noise");
  if (!j.contains("algorithms")) throw InvalidArgument("'algorithms' is missing in " + source);
  if (!j.contains("problems")) throw InvalidArgument("'problems' is missing in " + source);
  s.algorithms = parse_algorithms(p, j.at("algorithms"));
  s.problems = parse_problems(p, j.at("problems"), d);
  check_seed_range(s, "in " + source);
  unique_labels(s.algorithms, "algorithms", source);
  // Entries that make the same runs ("branin" and "branin" with its default dim 2) get one label.
  for (std::size_t i = 0; i < s.problems.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const SweepProblem &a = s.problems[j], &b = s.problems[i];
      if (a.label == b.label && a.name == b.name && a.dim == b.dim && a.noise == b.noise && a.budget == b.budget)
        throw InvalidArgument("two problems in " + source + " make the same runs (" + a.name + ", dim " +
                              std::to_string(a.dim) + ", noise " + short_number(a.noise) + ", budget " +
                              std::to_string(a.budget) + "); drop one");
    }
  unique_labels(s.problems, "problems", source);
  if (s.metric == Metric::AveragePhase2Regret)
    for (const auto& pr : s.problems)
      if (pr.budget <= s.phase1)
        throw InvalidArgument("problem '" + pr.label + "' in " + source + ": budget " + std::to_string(pr.budget) +
                              " leaves no Phase II after phase1 = " + std::to_string(s.phase1));
  return s;
}

json SweepSpec::to_json() const {
  json algs = json::array();
  for (const auto& a : algorithms) {
    json e = {{"label", a.label}, {"name", a.name}};
    // sweep.json is a config again (`--config out/sweep.json`): a peer takes no options.
    if (a.peer.empty()) e["options"] = a.options;
    else e["peer"] = a.peer;
    if (a.batch > 1) e["batch"] = a.batch;
    algs.push_back(std::move(e));
  }
  json probs = json::array();
  for (const auto& p : problems)
    probs.push_back({{"label", p.label}, {"name", p.name}, {"dim", p.dim}, {"noise", p.noise}, {"budget", p.budget}});
  json j = {{"name", name},     {"algorithms", algs},
            {"problems", probs}, {"seeds", seeds},
            {"first_seed", first_seed}, {"level", level}, {"interval", to_string(interval)},
            {"metric", to_string(metric)}, {"plots", plots}};
  if (!description.empty()) j["description"] = description;
  if (!expected_time.empty()) j["expected_time"] = expected_time;
  if (metric == Metric::AveragePhase2Regret) j["phase1"] = phase1;
  return j;
}

const std::vector<std::string>& optuna_peer_samplers() {
  static const std::vector<std::string> samplers = {"tpe", "random", "cmaes", "qmc"};
  return samplers;
}

RunSpec run_spec(const SweepAlgorithm& a, const SweepProblem& p, std::uint64_t seed) {
  RunSpec spec;
  spec.algorithm = a.run_name();
  spec.options = a.options.is_object() ? a.options : json::object();
  spec.seed = seed;
  spec.noise = p.noise;
  spec.budget = p.budget;
  return spec;
}

void keep_folder_labels(SweepSpec& spec, const json& previous) {
  if (!previous.is_object() || !previous.contains("problems") || !previous["problems"].is_array()) return;
  for (auto& problem : spec.problems) {
    if (problem.label_given) continue;
    for (const json& old : previous["problems"]) {
      // sweep.json's own format (SweepSpec::to_json); anything else is not this folder's label.
      if (!old.is_object() || !old.value("label", json()).is_string() || old.value("name", json()) != problem.name ||
          old.value("dim", json()) != problem.dim || old.value("budget", json()) != problem.budget ||
          !old.value("noise", json()).is_number() || old["noise"].get<double>() != problem.noise)
        continue;
      const std::string label = old["label"].get<std::string>();
      const bool taken = std::any_of(spec.problems.begin(), spec.problems.end(),
                                     [&](const SweepProblem& other) { return &other != &problem && other.label == label; });
      if (!taken && safe_label(label)) problem.label = label;
      break;
    }
  }
}

void check_available(const SweepSpec& spec) {
  check_seed_range(spec, "of sweep '" + spec.name + "'");  // again: --seeds may have changed the count
  std::set<std::string> registered, catalog;
  for (const auto& a : algorithms()) registered.insert(a.name);
  for (const auto& p : problems()) catalog.insert(p.name);
  std::vector<std::string> missing_algorithms, missing_problems;
  for (const auto& a : spec.algorithms)
    if (a.peer.empty() && !registered.count(a.name) &&
        std::find(missing_algorithms.begin(), missing_algorithms.end(), a.name) == missing_algorithms.end())
      missing_algorithms.push_back(a.name);
  for (const auto& p : spec.problems)
    if (!catalog.count(p.name) &&
        std::find(missing_problems.begin(), missing_problems.end(), p.name) == missing_problems.end())
      missing_problems.push_back(p.name);
  if (!missing_algorithms.empty() || !missing_problems.empty()) {
    // A typo gets the closest name, as `optimist run` gives it.
    const auto with_guesses = [](const std::vector<std::string>& names, const std::set<std::string>& valid) {
      const std::vector<std::string> all(valid.begin(), valid.end());
      std::vector<std::string> shown;
      for (const auto& n : names) shown.push_back("'" + n + "'" + did_you_mean(n, all));
      return join(shown);
    };
    std::string msg = "sweep '" + spec.name + "' names what this build does not have:";
    if (!missing_algorithms.empty()) msg += " algorithms " + with_guesses(missing_algorithms, registered) + ";";
    if (!missing_problems.empty()) msg += " problems " + with_guesses(missing_problems, catalog) + ";";
    msg += " see 'optimist list'";
    throw InvalidArgument(msg);
  }
  // Two entries that make the same runs ("branin" and "branin" with its default dim 2) would pay
  // for every run twice.
  const auto same_runs = [&spec](const std::string& what, const std::string& a, const std::string& b, const std::string& as) {
    throw InvalidArgument(what + " '" + a + "' and '" + b + "' of sweep '" + spec.name + "' make the same runs (" + as +
                          "); drop one");
  };
  std::vector<std::size_t> dims;
  std::vector<Problem> made;
  for (const auto& p : spec.problems) {
    try {
      made.push_back(make_problem(p.name, p.dim));
      dims.push_back(made.back().space.dim());
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("problem '" + p.label + "' of sweep '" + spec.name + "': " + e.what());
    }
  }
  for (std::size_t i = 0; i < spec.problems.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const SweepProblem &a = spec.problems[j], &b = spec.problems[i];
      if (a.name == b.name && dims[i] == dims[j] && a.noise == b.noise && a.budget == b.budget)
        same_runs("problems", a.label, b.label,
                  a.name + ", dim " + std::to_string(dims[i]) + ", noise " + short_number(a.noise) + ", budget " +
                      std::to_string(a.budget));
    }
  // Options are checked once per algorithm: every run of the sweep then starts.
  std::vector<json> resolved;
  for (const auto& a : spec.algorithms) {
    json options = a.options.is_object() ? a.options : json::object();
    options["name"] = a.name;
    if (a.peer.empty()) {  // a peer's script checks its own settings
      try {
        options = resolve_options(options);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument("algorithm '" + a.label + "' of sweep '" + spec.name + "': " + e.what());
      }
    }
    options["peer"] = a.peer;
    options["batch"] = a.batch;
    for (std::size_t j = 0; j < resolved.size(); ++j)
      if (resolved[j] == options)
        same_runs("algorithms", spec.algorithms[j].label, a.label, "the same algorithm, options and batch size");
    resolved.push_back(std::move(options));
  }
  // Each (algorithm, problem) as its runs will be made, as `optimist run` makes its run before the
  // first evaluation: a budget an algorithm cannot plan with (1 for exploration-first), or one that
  // would not fit in memory, is refused here, not by every run after the sweep started. The seed
  // does not change what is checked.
  for (const auto& a : spec.algorithms) {
    if (!a.peer.empty()) continue;
    for (std::size_t i = 0; i < spec.problems.size(); ++i) {
      const SweepProblem& p = spec.problems[i];
      const RunSpec run = run_spec(a, p, spec.first_seed);
      try {
        (void)make_optimizer(run.optimizer_spec(), made[i].space, made[i].direction, run.context());
      } catch (const InvalidArgument& e) {
        throw InvalidArgument("algorithm '" + a.label + "' on problem '" + p.label + "' (budget " + std::to_string(p.budget) +
                              ", " + std::to_string(dims[i]) + " parameters) of sweep '" + spec.name + "': " + e.what());
      }
    }
  }
}

}  // namespace optimist::experiment
