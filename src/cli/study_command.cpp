#include "cli/study_command.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <map>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <set>

#include "cli/config.hpp"
#include "cli/count_check.hpp"
#include "cli/format.hpp"
#include "cli/settings.hpp"
#include "cli/study_support.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/external_objective.hpp"
#include "optimist/algorithms/registry.hpp"

namespace optimist::cli {

namespace {

std::string fmt_time(std::optional<double> unix_s) {
  if (!unix_s) return "-";
  char buf[32];
  const auto t = static_cast<std::time_t>(*unix_s);
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  return buf;
}

// A running trial asked by hand is held under a lease, not by heartbeats: say until when, or that
// the lease is over (a trial is failed as stale by an ask, not by reading).
std::string held(const TrialRecord& t, double now, double grace_period_s) {
  const std::optional<double> until = t.held_until(grace_period_s);
  if (!until) {
    // A worker's trial whose heartbeats stopped (the worker died) looked alive until the next ask.
    const std::optional<double> beat = t.last_beat();
    if (t.state == TrialState::Running && beat && now - *beat > grace_period_s)
      return "  (no heartbeat for " + fmt_duration(now - *beat) + ": its worker stopped; failed as stale by the next ask)";
    return "";
  }
  if (std::isinf(*until)) return "  (held until told)";
  if (*until < now) return "  (lease ended " + fmt_time(until) + ": failed as stale by the next ask)";
  return "  (held until " + fmt_time(until) + ")";
}

// list, show and export only read: no schema is created in another application's database, and
// no write lock is waited for.
StudyOptions reading() {
  StudyOptions o;
  o.storage.read_only = true;
  return o;
}

StudyObjective objective_of(const ObjectiveFlags& f, bool need_space) {
  StudyObjective o;
  if (!f.problem.empty() && !f.objective_command.empty())
    throw InvalidArgument("give --problem or --objective-command, not both");
  f.check_problem_flags();
  if (!f.problem.empty()) {
    o.problem = make_problem(f.problem, f.dim);
    if (!std::isfinite(f.noise) || f.noise < 0.0) throw InvalidArgument("--noise must be finite and >= 0, got " + format_double(f.noise));
    o.noise = f.noise;
  } else if (!f.objective_command.empty()) {
    o.command = f.objective_command;
    split_command_line(o.command);  // refuses a malformed command now rather than in a worker
    // Finite, as `optimist run` takes it: an infinite one was stored as null, on which workers failed.
    if (f.objective_timeout && !(std::isfinite(*f.objective_timeout) && *f.objective_timeout > 0.0))
      throw InvalidArgument("--objective-timeout must be a positive number of seconds, got " + format_double(*f.objective_timeout));
    o.timeout_s = f.objective_timeout;
    if (need_space && (f.space.empty() || f.direction.empty()))
      throw InvalidArgument("--objective-command needs --space FILE and --direction maximize|minimize");
  }
  return o;
}

int create(const StudyCommand& cmd) {
  const StudyObjective objective = objective_of(cmd.objective, true);
  StudyConfig c;
  c.name = cmd.name;
  if (objective.problem) {
    c.space = objective.problem->space;
    c.direction = objective.problem->direction;
    c.f_star = objective.problem->f_star;
  } else {
    if (cmd.objective.space.empty() || cmd.objective.direction.empty())
      throw InvalidArgument("study create needs --problem NAME, or --space FILE and --direction maximize|minimize");
    try {
      c.space = Space::from_json(load_config(cmd.objective.space, "space file"));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string("--space: ") + e.what());
    }
    c.direction = parse_direction(cmd.objective.direction);
  }
  c.algorithm = cmd.algorithm;
  std::map<std::string, std::string> set_before;
  for (const auto& kv : cmd.set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw InvalidArgument("--set expects KEY=VALUE, got '" + kv + "'");
    const std::string key = kv.substr(0, eq);
    if (const auto [it, first] = set_before.emplace(key, kv); !first)  // as `optimist run`: named, not resolved by order
      throw InvalidArgument("option '" + key + "' is set twice: --set " + it->second + " and --set " + kv + "; give it once");
    c.options[key] = parse_set_value(kv.substr(eq + 1));
  }
  c.seed = cmd.seed;
  c.budget = cmd.budget;
  // 0 would start no heartbeat thread, and live trials would be failed as stale after the grace.
  if (!(std::isfinite(cmd.heartbeat) && cmd.heartbeat > 0.0))
    throw InvalidArgument("--heartbeat must be a finite number of seconds > 0, got " + format_double(cmd.heartbeat));
  if (!(std::isfinite(cmd.grace) && cmd.grace > 0.0))
    throw InvalidArgument("--grace must be a finite number of seconds > 0, got " + format_double(cmd.grace));
  c.settings.heartbeat_interval_s = cmd.heartbeat;
  c.settings.grace_period_s = cmd.grace;
  c.settings.requeue_stale = !cmd.no_requeue;
  c.settings.noisy = cmd.noisy || objective.noise > 0.0;
  if (objective.problem || !objective.command.empty()) c.settings.objective = objective.to_json();
  const Study s = Study::create(cmd.storage, c);
  if (const std::string w = c.settings.heartbeat_margin_warning(); !w.empty())
    std::fprintf(stderr, "optimist: warning: %s\n", w.c_str());
  std::printf("created study '%s' in %s: %s, %zu parameters, %s, budget %s\n", printable(s.name()).c_str(),
              redact_url(cmd.storage).c_str(),
              s.record().algorithm.c_str(), s.space().dim(), to_string(s.record().direction).c_str(),
              c.budget ? std::to_string(*c.budget).c_str() : "unlimited");
  return 0;
}

int list(const StudyCommand& cmd) {
  require_existing_database(cmd.storage);
  Storage storage(cmd.storage, reading().storage);
  const auto studies = storage.list_studies();
  if (studies.empty()) {
    std::printf("no studies in %s\n", redact_url(cmd.storage).c_str());
    return 0;
  }
  std::printf("%-20s %-10s %-9s %7s %7s %7s %8s %7s %12s  %s\n", "name", "algorithm", "direction", "budget", "waiting",
              "running", "complete", "failed", "best", "last activity");
  for (const auto& s : studies) {
    auto count = [&](TrialState st) { return s.counts.count(st) ? s.counts.at(st) : 0; };
    std::printf("%-20s %-10s %-9s %7s %7zu %7zu %8zu %7zu %12s  %s\n", printable(s.study.name).c_str(), s.study.algorithm.c_str(),
                to_string(s.study.direction).c_str(), s.study.budget ? std::to_string(*s.study.budget).c_str() : "-",
                count(TrialState::Waiting), count(TrialState::Running), count(TrialState::Complete), count(TrialState::Failed),
                fmt_num(s.best_value, 6).c_str(), fmt_time(s.last_activity).c_str());
  }
  return 0;
}

// The algorithm's answer given every finished trial (Study::recommend) and its value, as the summary
// of `optimist run` and the recommend line of `study export` give them: a problem's noise-free
// value, else the value observed there. Computing it replays the history into the algorithm.
void print_recommendation(Study& study, const std::vector<TrialRecord>& trials, const std::optional<TrialRecord>& best) {
  const StudyRecord& r = study.record();
  std::optional<Vector> x;
  try {
    x = study.recommend();
  } catch (const std::exception& e) {  // e.g. an algorithm this build does not have
    std::cout << "recommended n/a: " << printable(e.what()) << "\n";
    return;
  }
  if (!x) return;  // no successful trial yet
  std::optional<StudyObjective> objective;
  try {
    objective = StudyObjective::from_study(r);
  } catch (const InvalidArgument&) {
    // A study made from a library or by hand: the value observed at x.
  }
  const auto f = recommended_value(*x, trials, objective ? &*objective : nullptr);
  const std::string value = !f ? "not evaluated there"
                            : objective && objective->problem ? "f = " + fmt_num(f, 8) + " (noise-free)"
                                                              : "y = " + fmt_num(f, 8) + " (observed there)";
  std::cout << "recommended " << value << " at " << fmt_point(*x, r.space) << ": the algorithm's answer"
            << (best && best->x == *x ? ", the best trial's point" : ", not the best trial's point") << "\n";
}

int show(const StudyCommand& cmd) {
  require_existing_database(cmd.storage);
  Study study = Study::load(cmd.storage, cmd.name, reading());
  const StudyRecord& r = study.record();
  const auto trials = study.trials();
  std::map<TrialState, std::size_t> counts;
  for (const auto& t : trials) ++counts[t.state];
  // Names, commands and errors come from the database: printable() keeps control sequences out
  // of the terminal (JSON's dump escapes those inside strings already).
  std::cout << "study      " << printable(r.name) << "  (" << redact_url(cmd.storage) << ")\n"
            << "algorithm  " << printable(r.algorithm) << "  " << r.options.dump() << "\n"
            << "objective  " << (r.settings.objective.empty() ? std::string("none recorded (trials asked from a library, Python or `study ask`)")
                                                            : r.settings.objective.dump())
            << ", " << to_string(r.direction) << "\n"
            << "space      " << r.space.to_json().dump() << "\n"
            << "budget     " << (r.budget ? std::to_string(*r.budget) : "unlimited") << " (" << study.budget_used() << " used)\n"
            << "heartbeat  every " << fmt_num(r.settings.heartbeat_interval_s) << " s, stale after "
            << fmt_num(r.settings.grace_period_s) << " s, " << (r.settings.requeue_stale ? "re-queued" : "not re-queued") << "\n"
            << "trials     " << counts[TrialState::Waiting] << " waiting, " << counts[TrialState::Running] << " running, "
            << counts[TrialState::Complete] << " complete, " << counts[TrialState::Failed] << " failed\n";
  // What `auto` chose and why (its choice depends only on the study's settings).
  try {
    const nlohmann::json decisions = make_study_optimizer(r)->decisions();
    if (decisions.contains("algorithm"))
      std::cout << "chose      " << decisions.at("algorithm").get<std::string>() << " "
                << decisions.value("options", nlohmann::json::object()).dump() << ": "
                << decisions.value("reason", std::string()) << "\n";
    if (decisions.contains("resolved"))  // options left at "auto" and what they are for this study
      std::cout << "auto opts  " << decisions.at("resolved").dump() << "\n";
  } catch (const std::exception&) {
    // An algorithm this build does not have: the line above says which.
  }
  const auto best = study.best();
  if (best)
    std::cout << "best       " << fmt_num(best->value, 8) << " at " << fmt_point(best->x, r.space) << " (trial " << best->number
              << ")\n";
  print_recommendation(study, trials, best);
  std::vector<double> values;
  for (const auto& t : trials)
    if (t.state == TrialState::Complete && t.value) values.push_back(*t.value);
  if (auto note = equal_values_note(values)) std::cout << "note       " << *note << "\n";
  const std::size_t shown = cmd.all_trials ? trials.size() : std::min<std::size_t>(trials.size(), 10);
  const double now = study.storage().now();
  if (shown > 0) std::cout << (cmd.all_trials ? "\n" : "\nlast " + std::to_string(shown) + (shown == 1 ? " trial" : " trials") + " (--trials: all)\n");
  for (std::size_t k = trials.size() - shown; k < trials.size(); ++k) {
    const auto& t = trials[k];
    // A trial given back is no failure of its point: said so, whatever its reason reads.
    const std::string error = t.given_back && t.error.rfind("given back", 0) != 0 ? "given back: " + t.error : t.error;
    std::cout << "  " << std::setw(5) << t.number << "  " << std::left << std::setw(9) << to_string(t.state) << std::right
              << std::setw(14) << (t.value ? fmt_num(t.value, 8) : std::string("")) << "  " << fmt_point(t.x, r.space) << "  "
              << printable(t.worker) << (error.empty() ? "" : "  " + printable(error)) << held(t, now, r.settings.grace_period_s) << "\n";
  }
  return 0;
}

}  // namespace

void ObjectiveFlags::check_problem_flags() const {
  if (noise_given() && !(std::isfinite(noise) && noise >= 0.0))
    throw InvalidArgument("--noise must be finite and >= 0, got " + format_double(noise));
  if (!objective_command.empty() && (noise_given() || dim_given()))
    throw InvalidArgument(std::string(noise_given() ? "--noise" : "--dim") +
                          " must be absent with --objective-command (it applies to --problem)");
  if (command_flag && command_flag->count() > 0 && objective_command.find_first_not_of(" \t\n") == std::string::npos)
    throw InvalidArgument("--objective-command must be a non-empty command, got '" + objective_command + "'");
  if (!problem.empty())
    for (const auto& [flag, given] : {std::pair<const char*, bool>{"--space", !space.empty()},
                                      {"--direction", !direction.empty()},
                                      {"--objective-timeout", objective_timeout.has_value()}})
      if (given)
        throw InvalidArgument(std::string(flag) + " must be given only with --objective-command: --problem '" + problem +
                              "' fixes it (it would be ignored)");
}

void ObjectiveFlags::add_to(CLI::App& app, bool with_space) {
  app.add_option("--problem", problem, "benchmark problem (see 'optimist list problems')")->type_name("NAME");
  dim_flag = app.add_option("--dim", dim, "with --problem: the dimension (default: the problem's)")->type_name("D");
  noise_flag = app.add_option("--noise", noise, "with --problem: Gaussian noise sd added to observations")->type_name("SIGMA");
  command_flag = app.add_option("--objective-command", objective_command,
                 "your program, kept running, reading one JSON line {\"x\": [...], \"params\": {...}} per evaluation and "
                 "printing {\"y\": value}")
      ->type_name("CMD");
  app.add_option("--objective-timeout", objective_timeout, "fail an evaluation not answered in time")->type_name("SECONDS");
  if (with_space) {
    app.add_option("--space", space, "with --objective-command: the parameters (.json or .toml)")->type_name("FILE");
    app.add_option("--direction", direction, "with --objective-command: maximize or minimize")->type_name("DIR");
  }
}

void add_study_command(CLI::App& parent, StudyCommand& cmd) {
  cmd.app = parent.add_subcommand("study", "Create, list, show, export, change and delete studies (shared, persistent optimizations); "
                                            "ask, tell and add trials run by hand");
  cmd.app->require_subcommand(1);
  auto storage = [&](CLI::App* a) {
    a->add_option("--storage", cmd.storage, "sqlite:///file.db or postgresql://user@host[:port]/database")
        ->type_name("URL")
        ->required();
  };
  cmd.create = cmd.app->add_subcommand("create", "Create a study");
  storage(cmd.create);
  cmd.create->add_option("--name", cmd.name, "the study's name (unique in the storage)")->required();
  cmd.objective.add_to(*cmd.create, true);
  cmd.create->add_option("--algorithm", cmd.algorithm, "optimization algorithm (default auto: chosen from the space and budget, docs/robust.md)")->type_name("NAME");
  cmd.create->add_option("--set", cmd.set, "algorithm option (repeatable)")->type_name("KEY=VALUE")->allow_extra_args(false);
  cmd.create->add_option("--seed", cmd.seed, "random seed (default 0)")->type_name("S")->check(count_between(0, UINT64_MAX));
  cmd.create->add_option("--budget", cmd.budget, "trials to run, failed ones included (default: unlimited)")
      ->type_name("N")
      ->check(count_between(1, UINT64_MAX));
  cmd.create->add_option("--heartbeat", cmd.heartbeat, "seconds between a worker's heartbeats (default 10; below --grace, at most half of it to be safe)")->type_name("SECONDS");
  cmd.create->add_option("--grace", cmd.grace, "a running trial silent this long is failed as stale (default 60)")->type_name("SECONDS");
  cmd.create->add_flag("--no-requeue", cmd.no_requeue, "do not queue a stale trial's point again");
  cmd.create->add_flag("--noisy", cmd.noisy,
                       "declare the objective noisy: points may be asked again (default: deterministic, no point is "
                       "asked twice and a finite space ends the study once exhausted); --noise > 0 implies it");
  cmd.list = cmd.app->add_subcommand("list", "List the studies of a storage with their trial counts and best values");
  storage(cmd.list);
  cmd.show = cmd.app->add_subcommand("show", "Show a study: settings, counts, best trial, the algorithm's recommendation "
                                               "(computed by replaying the study's history into the algorithm), last trials");
  storage(cmd.show);
  cmd.show->add_option("--name", cmd.name, "the study")->required();
  cmd.show->add_flag("--trials", cmd.all_trials, "list every trial");
  cmd.export_ = cmd.app->add_subcommand("export", "Write a study's finished trials as a trace (docs/trace-format.md)");
  storage(cmd.export_);
  cmd.export_->add_option("--name", cmd.name, "the study")->required();
  cmd.export_->add_option("--out", cmd.out, "trace file to write")->type_name("TRACE.jsonl")->required();
  cmd.remove = cmd.app->add_subcommand("delete", "Delete a study and its trials");
  storage(cmd.remove);
  cmd.remove->add_option("--name", cmd.name, "the study")->required();
  cmd.remove->add_flag("--force", cmd.force, "delete it even while trials run (their workers then stop, printing what they could not store)");
  cmd.set_ = cmd.app->add_subcommand("set", "Change a study's budget (more trials for a study that used its budget)");
  storage(cmd.set_);
  cmd.set_->add_option("--name", cmd.name, "the study")->required();
  cmd.set_->add_option("--budget", cmd.new_budget, "trials to run in all, failed ones included, or 'unlimited'")
      ->type_name("N")
      ->required();
  add_by_hand_commands(*cmd.app, cmd, storage);
}

namespace {

// `study set --budget`: the algorithm keeps planning for the budget the study was created with
// (Study::set_budget), so the workers running it agree.
int set_budget(const StudyCommand& cmd) {
  std::optional<std::size_t> budget;
  if (cmd.new_budget != "unlimited") {
    std::size_t n = 0;
    const char* end = cmd.new_budget.data() + cmd.new_budget.size();
    const auto r = std::from_chars(cmd.new_budget.data(), end, n);
    if (cmd.new_budget.empty() || r.ec != std::errc() || r.ptr != end || n == 0)
      throw InvalidArgument("--budget must be a number of trials >= 1 or 'unlimited', got '" + printable(cmd.new_budget) + "'");
    budget = n;
  }
  require_existing_database(cmd.storage);
  StudyOptions o;
  o.heartbeat_thread = false;
  Study study = Study::load(cmd.storage, cmd.name, o);
  const auto text = [](const std::optional<std::size_t>& b) { return b ? std::to_string(*b) : std::string("unlimited"); };
  const std::string before = text(study.record().budget);
  study.set_budget(budget);
  const std::optional<std::size_t> horizon = study.record().settings.horizon;
  std::printf("study '%s': budget %s -> %s (%zu counted so far); its algorithm keeps planning for %s\n",
              printable(cmd.name).c_str(), before.c_str(), text(budget).c_str(), study.budget_used(),
              horizon && *horizon > 0 ? (std::to_string(*horizon) + " trials, the budget it was created with").c_str()
                                      : "no horizon (it was created without a budget)");
  return 0;
}

}  // namespace

int study_command(const StudyCommand& cmd) {
  if (cmd.create->parsed()) return create(cmd);
  if (cmd.list->parsed()) return list(cmd);
  if (cmd.show->parsed()) return show(cmd);
  if (cmd.set_->parsed()) return set_budget(cmd);
  if (cmd.ask->parsed() || cmd.tell->parsed() || cmd.add->parsed()) return by_hand_command(cmd);
  if (cmd.export_->parsed()) {
    require_existing_database(cmd.storage);
    Study study = Study::load(cmd.storage, cmd.name, reading());
    const std::size_t n = export_trace(study, cmd.out);
    std::printf("wrote %zu evaluations of study '%s' to %s\n", n, printable(cmd.name).c_str(), printable(cmd.out).c_str());
    return 0;
  }
  require_existing_database(cmd.storage);
  if (!cmd.force) {
    // A study whose trials run (workers, or experiments asked by hand) is not deleted by mistake:
    // its workers would stop at their next store and the results in flight be printed, not kept.
    Study study = Study::load(cmd.storage, cmd.name, reading());
    std::size_t running = 0;
    std::optional<double> last_beat;
    std::set<std::string> workers;
    for (const TrialRecord& t : study.trials()) {
      if (t.state != TrialState::Running) continue;
      ++running;
      workers.insert(t.worker);
      if (const auto beat = t.last_beat()) last_beat = std::max(last_beat.value_or(*beat), *beat);
    }
    if (running > 0) {
      std::string names;
      for (const auto& w : workers) names += (names.empty() ? "" : ", ") + printable(w);
      const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      throw InvalidArgument("study '" + printable(cmd.name) + "' has " + std::to_string(running) + " running trial(s) (worker(s) " +
                            names + (last_beat ? "; last heartbeat " + fmt_duration(std::max(0.0, now - *last_beat)) + " ago" : "") +
                            "); stop them first, or delete it anyway with --force");
    }
  }
  Storage(cmd.storage).delete_study(cmd.name);
  std::printf("deleted study '%s'\n", printable(cmd.name).c_str());
  return 0;
}

}  // namespace optimist::cli
