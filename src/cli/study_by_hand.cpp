// `optimist study ask|tell|add`: a study whose trials are run by hand (lab experiments, runs on
// another system), asked and told from the command line (docs/studies.md, "Experiments run by hand").
#include <pwd.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>

#include "cli/format.hpp"
#include "cli/interrupt.hpp"
#include "cli/study_command.hpp"
#include "cli/study_io.hpp"
#include "optimist/study/study.hpp"

namespace optimist::cli {

namespace {

// cli:<user>@<host>: who asked a trial by hand, shown by `study show` and the dashboard.
std::string default_hand_worker() {
  std::string user;
  if (const char* u = std::getenv("USER"); u && *u) user = u;
  else if (const passwd* pw = getpwuid(getuid())) user = pw->pw_name;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return "cli:" + (user.empty() ? std::string("user") : user) + "@" + host;
}

// A command-line handle: no heartbeat thread (the process ends right after), the given worker name.
Study open_study(const StudyCommand& cmd) {
  require_existing_database(cmd.storage);
  StudyOptions o;
  o.worker = cmd.worker_name.empty() ? default_hand_worker() : cmd.worker_name;
  o.heartbeat_thread = false;
  return Study::load(cmd.storage, cmd.name, o);
}

// A value told or added: a finite number, the whole text.
double parse_value(const std::string& text, const std::string& what) {
  const std::optional<double> v = parse_number(text);
  if (!v) throw InvalidArgument(what + " " + not_a_number(text));
  if (!std::isfinite(*v))
    throw InvalidArgument(what + " '" + printable(text) + "' is not finite; report a failed experiment with --failed");
  return *v;
}

std::size_t parse_trial_number(const std::string& text) {
  std::size_t n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
    throw InvalidArgument("--trial must be a trial number (an integer >= 0), got '" + printable(text) + "'");
  return n;
}

std::string budget_text(const StudyRecord& r) { return r.budget ? std::to_string(*r.budget) : "unlimited"; }

// How to ask more of a study whose budget is used: `study set --budget` above what it counted.
std::string raise_budget_hint(const StudyCommand& cmd, std::size_t used) {
  return "to ask more, raise it above " + std::to_string(used) + " with: optimist study set --storage " +
         shell_word(redact_url(cmd.storage)) + " --name " + shell_word(printable(cmd.name)) + " --budget N";
}

int ask(const StudyCommand& cmd) {
  const std::optional<double> lease_s = parse_lease(cmd.lease);
  if (cmd.format != "table" && cmd.format != "json" && cmd.format != "csv")
    throw InvalidArgument("--format must be table, json or csv, got '" + cmd.format + "'");
  Study study = open_study(cmd);
  std::vector<StudyTrial> asked;
  // Whatever happens, the trials asked so far are printed: they are running, held for someone.
  auto print = [&] { print_asked(std::cout, study.space(), asked, cmd.format); };
  {
    // Ctrl-C stops the batch after the current ask: the trials asked so far are printed (killed
    // at once, they would be held for nobody).
    const InterruptGuard guard;
    try {
      for (std::size_t k = 0; k < cmd.count && !InterruptGuard::interrupted(); ++k) {
        auto t = lease_s ? study.ask(*lease_s) : study.ask(std::numeric_limits<double>::infinity());
        if (!t) break;
        asked.push_back(std::move(*t));
      }
    } catch (...) {
      print();
      throw;
    }
    print();
  }
  if (!std::cout) {
    // Nobody saw these trials (a full disk, a closed output): held until told, they would block
    // their points and the budget for good. Given back instead.
    for (const StudyTrial& t : asked) study.release(t, "study ask could not print it (standard output failed)");
    throw InvalidArgument("could not write the asked trial(s) to standard output (disk full? closed?); the " +
                          std::to_string(asked.size()) + " trial(s) asked were given back to study '" + printable(study.name()) + "'");
  }
  if (InterruptGuard::interrupted()) {
    std::fprintf(stderr, "optimist: study '%s': interrupted after %zu of %zu trial(s), printed above\n",
                 printable(study.name()).c_str(), asked.size(), cmd.count);
    return 130;
  }
  if (asked.size() == cmd.count) return 0;
  const StudyRecord& r = study.record();
  const std::size_t used = study.budget_used();
  std::string why;
  if (r.budget && used >= *r.budget) {
    std::size_t running = 0;
    for (const TrialRecord& t : study.trials()) running += t.state == TrialState::Running ? 1 : 0;
    why = "the budget of " + budget_text(r) + (r.budget && *r.budget == 1 ? " trial" : " trials") + " is used (running, complete and failed ones count" +
          (running ? "; " + std::to_string(running) + " still running: tell them with 'optimist study tell')" : ")") + "; " +
          raise_budget_hint(cmd, used);
  }
  else
    why = "every point of the study's finite space has been evaluated or is running";
  std::fprintf(stderr, "optimist: study '%s': asked %zu of %zu trial(s): %s\n", printable(r.name).c_str(), asked.size(),
               cmd.count, why.c_str());
  return kExitNoTrialLeft;
}

std::string best_so_far(Study& study) {
  const auto best = study.best();
  return best ? "; best so far " + format_double(*best->value) + " (trial " + std::to_string(best->number) + ")" : "";
}

// The stored coordinate `i` of a trial equals a file's cell: a spreadsheet may have rounded a
// float (to 15 digits, or to the decimals a cell's format shows: "52.66"), not moved it across the range.
bool same_coordinate(const Parameter& p, double stored, double given, const std::string& text) {
  if (p.kind != ParameterKind::Continuous) return stored == given;
  double tolerance = 1e-9 * (std::abs(stored) + (p.upper - p.lower));
  if (const auto point = text.find('.'); point != std::string::npos && text.find_first_of("eE") == std::string::npos) {
    const auto decimals = text.find_first_not_of("0123456789", point + 1);
    const auto shown = static_cast<int>((decimals == std::string::npos ? text.size() : decimals) - point - 1);
    tolerance = std::max(tolerance, 0.5 * std::pow(10.0, -shown) * (1.0 + 1e-9));
  } else if (point == std::string::npos && text.find_first_of("eE") == std::string::npos) {
    tolerance = std::max(tolerance, 0.5 * (1.0 + 1e-9));  // "53": rounded to an integer
  }
  return std::abs(stored - given) <= tolerance;
}

// `study tell --from FILE.csv`: the rows of a plate, in one transaction. Rows without a value are
// not done yet; rows told before with the same result are skipped, so the file can be told again
// as it fills.
int tell_from_csv(const StudyCommand& cmd) {
  if (!cmd.trial.empty() || (cmd.value_flag && cmd.value_flag->count() > 0) || (cmd.failed_flag && cmd.failed_flag->count() > 0))
    throw InvalidArgument("give --trial NUMBER with --value V or --failed, or --from FILE.csv, not both");
  Study study = open_study(cmd);
  const Space& space = study.space();
  const std::vector<CsvRow> rows = read_csv(cmd.from);
  const std::string file = "'" + printable(cmd.from) + "'";
  if (rows.empty()) throw InvalidArgument(file + " is empty: it needs a header with 'trial' and 'value'");
  const std::vector<std::string>& header = rows[0].cells;
  const CsvColumns columns = csv_columns(file, header, space, {"trial", "value", "error"}, cmd.ignore_columns);
  const bool every_parameter = std::none_of(columns.params.begin(), columns.params.end(), [&](std::size_t c) { return c == header.size(); });
  for (const std::size_t k : {std::size_t{0}, std::size_t{1}})
    if (columns.fields[k] == header.size())
      throw InvalidArgument(file + ": the header has no column '" + std::string(k == 0 ? "trial" : "value") +
                            "' (study ask --format csv writes 'trial' and the parameters; add a 'value' column)" +
                            (k == 0 && every_parameter ? "; experiments no one asked are recorded with 'study add --from'" : ""));
  if (!columns.unknown.empty()) throw InvalidArgument(columns.unknown);
  const std::vector<TrialRecord> trials = study.trials();
  std::vector<StudyTell> tells;
  std::size_t pending = 0, before = 0, given_back = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    const std::string where = file + " line " + std::to_string(row.line);
    auto refuse = [&](const std::string& column, const std::string& why) {
      throw InvalidArgument(where + (column.empty() ? "" : ", column '" + column + "'") + ": " + why + " (nothing was told)");
    };
    if (row.cells.size() != header.size())
      refuse("", cell_count_text(row.cells.size(), header.size()));
    const std::string number_text = row.cells[columns.fields[0]];
    std::size_t number = 0;
    try {
      number = parse_trial_number(number_text);
    } catch (const InvalidArgument&) {
      // "3.0": pandas writes an integer column with an empty cell as floats.
      const std::optional<double> v = parse_number(number_text);
      if (!v || !(*v >= 0.0 && *v < 9007199254740992.0) || *v != std::floor(*v))
        refuse("trial", "'" + printable(number_text) + "' is not a trial number");
      number = static_cast<std::size_t>(*v);
    }
    if (number >= trials.size())
      refuse("trial", "the study has no trial " + std::to_string(number) + " (its trials are numbered 0 to " +
                          std::to_string(trials.size()) + " - 1)");
    const TrialRecord& t = trials[number];
    const std::vector<bool> active = space.active(t.x);
    for (std::size_t i = 0; i < space.dim(); ++i) {
      // The parameters only check the trial number: an absent column, an emptied cell or a conditional
      // parameter the trial does not use checks nothing.
      if (!active[i] || columns.params[i] == header.size() ||
          row.cells[columns.params[i]].find_first_not_of(" \t") == std::string::npos)
        continue;
      double given = 0.0;
      try {
        // A float is compared, not bounds-checked: 0.0004 shown as "0.00" is its trial's own.
        const std::optional<double> v = space[i].kind == ParameterKind::Continuous ? parse_number(row.cells[columns.params[i]])
                                                                                    : std::nullopt;
        given = v && std::isfinite(*v) ? *v : parse_parameter(space[i], row.cells[columns.params[i]]);
      } catch (const InvalidArgument& e) {
        refuse(csv_parameter_header(space[i].name), e.what());
      }
      const double stored = t.x[static_cast<Eigen::Index>(i)];
      if (!same_coordinate(space[i], stored, given, row.cells[columns.params[i]]))
        refuse(csv_parameter_header(space[i].name), "trial " + std::to_string(number) + " has " + printable(space[i].name) + " = " +
                                  parameter_text(space[i], stored) +
                                  ", the file says '" + printable(row.cells[columns.params[i]]) + "' (rows mixed up?)");
    }
    const std::string value = row.cells[columns.fields[1]];
    const std::string error = columns.fields[2] < header.size() ? row.cells[columns.fields[2]] : "";
    StudyTell tell{number, std::nullopt, error};
    if (value.empty()) {
      ++pending;  // not done yet
      continue;
    }
    if (is_given_back_word(value)) {
      // Not evaluated (a sample lost, a job cancelled): as `--give-back`, with the error as why.
      tell.give_back = true;
      tell.requeue = !cmd.no_requeue;
    } else if (is_failed_word(value)) {
      if (error.empty()) tell.error = "failed";
    } else {
      const std::optional<double> v = parse_number(value);
      if (!v) refuse("value", not_a_number(value) + " (nor 'failed', nor 'given back')");
      if (!std::isfinite(*v)) refuse("value", "'" + printable(value) + "' is not finite; write 'failed' for a failed experiment");
      if (!error.empty()) refuse("error", "an error goes with value 'failed' or 'given back', not with a value");
      tell.value = *v;
    }
    // Told before with the same result (the file told again as it fills): nothing to do. A bare
    // 'failed' matches a failure told with its reason (study tell --trial N --failed WHY); a trial
    // whose lease ended is failed already.
    // A trial given back, or failed as stale, was not evaluated: 'given back' told again is the same.
    const bool same = tell.give_back ? t.state == TrialState::Failed && t.stale
                      : tell.value   ? t.state == TrialState::Complete && t.value == tell.value
                                     : t.state == TrialState::Failed && (t.stale || t.error == tell.error || error.empty());
    std::optional<nlohmann::json> late;
    if (t.stale && tell.value) late = study.storage().user_attr(t.id, "late_value");
    if (same || (late && late->is_object() && late->value("value", nlohmann::json()) == nlohmann::json(*tell.value))) {
      ++before;
      continue;
    }
    given_back += tell.give_back ? 1 : 0;
    tells.push_back(std::move(tell));
  }
  try {
    study.tell(tells);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(file + ": " + e.what() + " (nothing was told)");
  }
  std::printf("told %zu trial(s) of study '%s' from %s", tells.size(), printable(study.name()).c_str(), file.c_str());
  if (given_back)
    std::printf(", %zu of them given back (not counted; %s)", given_back,
                cmd.no_requeue ? "not queued again" : "their points queued again");
  if (pending || before)
    std::printf(" (%zu row(s) without a value yet, %zu told before with the same result)", pending, before);
  std::printf("%s\n", best_so_far(study).c_str());
  return 0;
}

// `study tell --trial N [--trial M ...] --give-back [WHY]`: trials that will not be run (a sample
// cancelled before it was measured, a job killed) given back instead of told failed: not counted
// against the budget, withdrawn by the algorithm, their points queued again unless --no-requeue.
// All of them or none.
int give_back(const StudyCommand& cmd) {
  std::vector<std::size_t> numbers;
  for (const std::string& text : cmd.trial) numbers.push_back(parse_trial_number(text));
  Study study = open_study(cmd);
  const std::string why = cmd.give_back_why.empty() ? "given back" : cmd.give_back_why;
  try {
    study.release(numbers, why, !cmd.no_requeue);
  } catch (const InvalidArgument& e) {
    if (numbers.size() == 1) throw;
    throw InvalidArgument(std::string(e.what()) + " (none was given back)");
  }
  std::string list;
  for (const std::size_t n : numbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
  const bool one = numbers.size() == 1;
  std::printf("gave back trial%s %s of study '%s' (%s): not counted against the budget (budget %s, %zu used); %s\n",
              one ? "" : "s", list.c_str(), printable(study.name()).c_str(), printable(why).c_str(),
              budget_text(study.record()).c_str(), study.budget_used(),
              cmd.no_requeue ? (one ? "its point is not queued again: the algorithm may ask it again or not"
                                    : "their points are not queued again: the algorithm may ask them again or not")
                             : (one ? "its point is queued again: the next ask hands it out first"
                                    : "their points are queued again: the next asks hand them out first"));
  return 0;
}

int tell(const StudyCommand& cmd) {
  const bool giving_back = cmd.give_back && cmd.give_back->count() > 0;
  if (!cmd.from.empty() && giving_back)
    throw InvalidArgument("--give-back takes --trial NUMBER ...; in --from FILE.csv a trial is given back by the value 'given back'");
  if (!cmd.from.empty()) return tell_from_csv(cmd);
  if (!cmd.ignore_columns.empty()) throw InvalidArgument("--ignore-column applies to --from FILE.csv");
  if (cmd.trial.empty())
    throw InvalidArgument("study tell needs --trial NUMBER (with --value V, --failed or --give-back), or --from FILE.csv");
  const bool failed = cmd.failed_flag && cmd.failed_flag->count() > 0;
  const bool valued = cmd.value_flag && cmd.value_flag->count() > 0;
  if (int{failed} + int{valued} + int{giving_back} != 1)
    throw InvalidArgument("study tell needs --value V or --failed [WHY], or --give-back [WHY] (one of them)");
  if (cmd.no_requeue && !giving_back)
    throw InvalidArgument("--no-requeue goes with --give-back, or with --from FILE.csv (a trial given back without queueing its point again)");
  if (giving_back) return give_back(cmd);
  if (cmd.trial.size() > 1)
    throw InvalidArgument("--value and --failed tell one trial (one --trial NUMBER); many results: --from FILE.csv");
  std::optional<double> value;
  if (valued) value = parse_value(cmd.value, "--value");
  Study study = open_study(cmd);
  const std::size_t number = parse_trial_number(cmd.trial.front());
  const auto before = study.storage().trial(study.record().id, number);
  if (value) study.tell(number, *value);
  else study.tell_failed(number, cmd.failed_why.empty() ? "failed" : cmd.failed_why);
  std::string note;
  if (before && before->state == TrialState::Failed && before->stale && value) {
    // Where the value went, and whether the point's re-queued copy is still out with someone.
    const auto kept = study.storage().user_attr(before->id, "late_value");
    const nlohmann::json kept_in = kept && kept->is_object() ? kept->value("trial", nlohmann::json()) : nlohmann::json();
    std::string why = before->error;
    if (why.rfind("stale: ", 0) == 0) why.erase(0, 7);
    note = " (it had been failed as stale: " + printable(why) + "; the value is kept";
    if (kept_in.is_number_unsigned()) note += " as trial " + kept_in.dump();
    note += ")";
    for (const TrialRecord& copy : study.storage().trials(study.record().id, number))
      if (copy.requeued_from == number && copy.state == TrialState::Running)
        note += "; trial " + std::to_string(copy.number) + ", its re-queued copy, is still running: give it back with 'study tell --trial " +
                std::to_string(copy.number) + " --give-back --no-requeue' unless it is being run again";
  }
  if (value)
    std::printf("told trial %zu of study '%s': %s%s%s\n", number, printable(study.name()).c_str(), format_double(*value).c_str(),
                note.c_str(), best_so_far(study).c_str());
  else
    std::printf("told trial %zu of study '%s': failed%s\n", number, printable(study.name()).c_str(),
                cmd.failed_why.empty() ? "" : (" (" + printable(cmd.failed_why) + ")").c_str());
  return 0;
}

int add(const StudyCommand& cmd) {
  const bool failed = cmd.failed_flag && cmd.failed_flag->count() > 0;
  const bool valued = cmd.value_flag && cmd.value_flag->count() > 0;
  std::vector<StudyEvaluation> evaluations;
  std::vector<std::string> where;  // each evaluation's line, for messages
  Study study = open_study(cmd);
  if (!cmd.from.empty()) {
    if (!cmd.params.empty() || failed || valued)
      throw InvalidArgument("give --from FILE.csv, or --param NAME=VALUE ... with --value V or --failed, not both");
    std::vector<std::size_t> lines;
    // A worker's lines of evaluations it could not store are added back as they were printed.
    if (holds_json_lines(cmd.from)) {
      if (!cmd.ignore_columns.empty()) throw InvalidArgument("--ignore-column applies to a CSV file, not to JSON lines");
      evaluations = read_evaluations_json_lines(cmd.from, study.space(), study.name(), &lines);
    } else {
      evaluations = read_evaluations_csv(cmd.from, study.space(), cmd.ignore_columns, &lines);
    }
    for (const std::size_t line : lines) where.push_back("'" + printable(cmd.from) + "' line " + std::to_string(line));
  } else {
    if (cmd.params.empty()) throw InvalidArgument("study add needs --param NAME=VALUE ... with --value V, or --from FILE.csv");
    if (failed == valued) throw InvalidArgument("study add --param ... needs --value V or --failed [WHY] (one of them)");
    if (!cmd.ignore_columns.empty()) throw InvalidArgument("--ignore-column applies to --from FILE.csv");
    StudyEvaluation e;
    e.x = point_from_params(cmd.params, study.space());
    if (valued) e.value = parse_value(cmd.value, "--value");
    else e.error = cmd.failed_why.empty() ? "failed" : cmd.failed_why;
    evaluations.push_back(std::move(e));
    where.push_back("study add --param ...");
  }
  if (evaluations.empty()) throw InvalidArgument("'" + printable(cmd.from) + "' holds a header but no evaluation");
  // The same history added twice (a file added again) would count every experiment twice:
  // refused, in the transaction that adds (Study::add; Python's Study.add refuses it the same way).
  std::vector<std::size_t> numbers;
  try {
    numbers = study.add(evaluations, cmd.allow_duplicates ? Duplicates::Allow : Duplicates::Refuse);
  } catch (const AddedTwice& e) {
    throw InvalidArgument(where[e.index] + ": trial " + std::to_string(e.trial) + " was added with the same parameters and value " +
                          format_double(e.value) + "; added twice? (nothing was added; a replicate that measured the same: --allow-duplicates)");
  }
  const std::string range = numbers.size() == 1 ? "trial " + std::to_string(numbers.front())
                                                 : "trials " + std::to_string(numbers.front()) + " to " + std::to_string(numbers.back());
  std::printf("added %zu evaluation(s) to study '%s' as %s (budget %s, %zu used)\n", numbers.size(), printable(study.name()).c_str(),
              range.c_str(), budget_text(study.record()).c_str(), study.budget_used());
  // Added experiments count against the budget: say so when nothing is left to ask.
  const std::size_t used = study.budget_used();
  if (const auto budget = study.record().budget; budget && used >= *budget)
    std::fprintf(stderr,
                 "optimist: study '%s': its budget of %zu trials is used (added experiments count against it): study ask "
                 "will ask no more trials; %s\n",
                 printable(study.name()).c_str(), *budget, raise_budget_hint(cmd, used).c_str());
  return 0;
}

}  // namespace

void add_by_hand_commands(CLI::App& study_app, StudyCommand& cmd, const std::function<void(CLI::App*)>& storage) {
  auto worker_name = [&](CLI::App* a, const std::string& what) {
    a->add_option("--worker-name", cmd.worker_name, what + " (default cli:USER@HOST)")->type_name("W");
  };
  auto value_or_failed = [&](CLI::App* a, const char* what) {
    auto* v = a->add_option("--value", cmd.value, std::string("the objective's value ") + what + ", in the study's direction")
                  ->type_name("V");
    auto* f = a->add_option("--failed", cmd.failed_why, "the experiment failed (no value): optionally why")
                  ->type_name("WHY")
                  ->expected(0, 1);
    return std::pair{v, f};
  };

  cmd.ask = study_app.add_subcommand("ask", "Ask trials to run by hand (lab experiments): print their parameters; exit 3 "
                                             "when fewer than --count were left (budget used, space exhausted), 130 when "
                                             "interrupted (those asked are printed)");
  storage(cmd.ask);
  cmd.ask->add_option("--name", cmd.name, "the study")->required();
  cmd.ask->add_option("--count", cmd.count, "trials to ask in one go (a batch: each sees the others as pending; default 1)")
      ->type_name("K")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  cmd.ask->add_option("--format", cmd.format, "table (default), json (one object per line) or csv")->type_name("FORMAT");
  cmd.ask->add_option("--lease", cmd.lease,
                      "how long the trials are held without a value before they are failed as stale and their points "
                      "handed out again: e.g. 36h, 14d, 90m, 600 (seconds); default forever: until told")
      ->type_name("DURATION");
  worker_name(cmd.ask, "who runs these experiments, stored with the trials");

  cmd.tell = study_app.add_subcommand("tell", "Tell the result of a trial asked before (from any process, any time later), "
                                               "or of many from a CSV file; or give back trials that will not be run");
  storage(cmd.tell);
  cmd.tell->add_option("--name", cmd.name, "the study")->required();
  cmd.tell->add_option("--trial", cmd.trial, "the trial's number (as printed by study ask); several with --give-back")
      ->type_name("NUMBER");
  std::tie(cmd.tell_value, cmd.tell_failed) = value_or_failed(cmd.tell, "measured");
  cmd.give_back = cmd.tell->add_option("--give-back", cmd.give_back_why,
                                       "the trial will not be run (a sample cancelled, a job killed): given back, not "
                                       "failed: not counted against the budget, the algorithm acts as if it had never "
                                       "asked it, its point queued again; optionally why")
                      ->type_name("WHY")
                      ->expected(0, 1);
  cmd.tell->add_flag("--no-requeue", cmd.no_requeue,
                     "with --give-back (or --from's 'given back' rows): do not queue the points again (the algorithm may "
                     "ask them again or not)");
  cmd.tell->add_option("--from", cmd.from,
                       "a CSV file of results instead: columns 'trial' and 'value' (a number, 'failed', 'given back' "
                       "(not run, as --give-back), or empty: not done yet), optionally 'error' and the parameters (checked against the trial); told in one go, "
                       "rows told before with the same result skipped (study ask --format csv writes such a file)")
      ->type_name("FILE.csv");
  cmd.tell->add_option("--ignore-column", cmd.ignore_columns, "a column of --from to ignore (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  worker_name(cmd.tell, "who tells, stored with a value told after the trial was failed as stale (a new trial)");

  cmd.add = study_app.add_subcommand("add", "Record experiments made elsewhere (historical data, a warm start)");
  storage(cmd.add);
  cmd.add->add_option("--name", cmd.name, "the study")->required();
  cmd.add->add_option("--param", cmd.params, "a parameter's value (repeat for each parameter)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  std::tie(cmd.add_value, cmd.add_failed) = value_or_failed(cmd.add, "measured");
  cmd.add->add_option("--from", cmd.from,
                      "a CSV file: a header naming every parameter and 'value' (a number, or 'failed'), optionally "
                      "'error'; one row per experiment; the whole file is refused if one cell is bad. Or a worker's "
                      "lines of evaluations it could not store ('... as JSON: {...}', as printed, or the JSON alone)")
      ->type_name("FILE");
  cmd.add->add_option("--ignore-column", cmd.ignore_columns, "a column of --from to ignore (notes, sample ids; repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  worker_name(cmd.add, "who made the experiments, stored with the trials");
  cmd.add->add_flag("--allow-duplicates", cmd.allow_duplicates,
                    "add a row even if an experiment with the same parameters and value was added before (a replicate)");
}

int by_hand_command(const StudyCommand& cmd) {
  StudyCommand c = cmd;  // the --value/--failed flags of the subcommand that was parsed
  if (cmd.ask->parsed()) return ask(c);
  c.value_flag = cmd.tell->parsed() ? cmd.tell_value : cmd.add_value;
  c.failed_flag = cmd.tell->parsed() ? cmd.tell_failed : cmd.add_failed;
  return cmd.tell->parsed() ? tell(c) : add(c);
}

}  // namespace optimist::cli
