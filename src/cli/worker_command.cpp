// `optimist worker`: evaluates a study's trials until its budget is used.
#include <cstdio>

#include "cli/config.hpp"
#include "cli/count_check.hpp"
#include "cli/format.hpp"
#include "cli/interrupt.hpp"
#include "cli/study_command.hpp"
#include "cli/study_support.hpp"

namespace optimist::cli {

void add_worker_command(CLI::App& parent, WorkerCommand& cmd) {
  cmd.app = parent.add_subcommand("worker", "Evaluate a study's trials until its budget is used (run on as many machines as you like)");
  cmd.app->add_option("--storage", cmd.storage, "sqlite:///file.db or postgresql://user@host[:port]/database")
      ->type_name("URL")
      ->required();
  cmd.app->add_option("--name", cmd.name, "the study")->required();
  cmd.objective.add_to(*cmd.app, true);
  cmd.app->add_option("--algorithm", cmd.algorithm, "check that the study uses this algorithm")->type_name("NAME");
  cmd.app->add_option("--budget", cmd.budget, "evaluate at most N trials in this worker")
      ->type_name("N")
      ->check(count_between(1, UINT64_MAX));
  cmd.app->add_option("--jobs", cmd.jobs, "evaluations in flight in this process (threads; one child per job with "
                                           "--objective-command; default 1)")
      ->type_name("K")
      ->check(count_between(1, kMaxJobs, "more in flight: start more workers"));
  cmd.app->add_option("--worker-name", cmd.worker_name, "this worker's name in the trials (default host:pid:tag)")->type_name("NAME");
  cmd.app->add_flag("--trust-command", cmd.trust_command,
                    "run the objective command stored in the study without naming it with --objective-command "
                    "(only for a storage you trust: whoever can write to it chooses the program)");
  cmd.app->add_flag("-q,--quiet", cmd.quiet, "no line per evaluation");
  cmd.app->footer(
      "Without --problem or --objective-command the worker evaluates what the study was created with\n"
      "(a stored objective command runs only with --trust-command; docs/security.md).\n"
      "Exit codes: 0 no trial left (or --budget reached), 2 bad input, 130 interrupted (trials in flight are told).");
}

int worker_command(const WorkerCommand& cmd) {
  if (cmd.jobs == 0) throw InvalidArgument("--jobs must be >= 1, got 0");
  if (cmd.budget && *cmd.budget == 0) throw InvalidArgument("--budget must be >= 1, got 0");
  StudyOptions options;
  options.worker = cmd.worker_name;
  options.storage.wait_for_server = true;  // started before its database (a machine booting): waits for it
  require_existing_database(cmd.storage);
  Study study = Study::load(cmd.storage, cmd.name, options);
  const StudyRecord& record = study.record();
  if (!cmd.algorithm.empty() && cmd.algorithm != record.algorithm)
    throw InvalidArgument("study '" + record.name + "' uses algorithm '" + record.algorithm + "', not --algorithm '" +
                          cmd.algorithm + "'");
  StudyObjective objective;
  const ObjectiveFlags& f = cmd.objective;
  if (!f.problem.empty() && !f.objective_command.empty()) throw InvalidArgument("give --problem or --objective-command, not both");
  f.check_problem_flags();
  // The study's noise is part of its objective: a worker evaluating with another would mix two
  // objectives in one study (its meta would still say the recorded one).
  const nlohmann::json& recorded = record.settings.objective;
  if (f.noise_given() && recorded.contains("problem") && recorded.value("noise", 0.0) != f.noise)
    throw InvalidArgument("study '" + record.name + "' was created with noise " + format_double(recorded.value("noise", 0.0)) +
                          ", not --noise " + format_double(f.noise) + "; a study keeps one objective (create another)");
  if (f.problem.empty() && f.objective_command.empty() && (f.noise_given() || f.dim_given()) && !recorded.contains("problem"))
    throw InvalidArgument(std::string(f.noise_given() ? "--noise" : "--dim") + " applies to a study of a --problem; study '" +
                          record.name + "' evaluates " + (recorded.contains("objective_command") ? "a command" : "no recorded objective"));
  if (f.problem.empty() && f.dim_given() && recorded.contains("problem") && f.dim != record.space.dim())
    throw InvalidArgument("study '" + record.name + "' has " + std::to_string(record.space.dim()) + " parameters, not --dim " +
                          std::to_string(f.dim));
  if (!f.direction.empty() && parse_direction(f.direction) != record.direction)
    throw InvalidArgument("study '" + record.name + "' is to " + to_string(record.direction) + ", not --direction " +
                          f.direction);
  if (!f.objective_command.empty() && recorded.contains("problem"))
    throw InvalidArgument("study '" + record.name + "' evaluates problem '" + recorded.at("problem").get<std::string>() +
                          "', not --objective-command; a study keeps one objective (create another)");
  if (!f.problem.empty()) {
    objective.problem = make_problem(f.problem, f.dim);
    objective.noise = f.noise_given() ? f.noise : recorded.value("noise", 0.0);
    check_same_space(record, objective.problem->space, objective.problem->direction, "--problem " + f.problem);
  } else if (!f.objective_command.empty()) {
    objective.command = f.objective_command;
    // The study's stored timeout holds unless this worker gives its own (it was dropped: a hung
    // objective kept its trial running for ever). Another command than the stored one runs (paths
    // differ between machines), said once.
    const StudyObjective stored = recorded.contains("objective_command") ? StudyObjective::from_study(record) : StudyObjective{};
    objective.timeout_s = f.objective_timeout ? f.objective_timeout : stored.timeout_s;
    if (f.objective_timeout && stored.timeout_s && *f.objective_timeout != *stored.timeout_s)
      std::fprintf(stderr, "optimist: --objective-timeout %s for this worker; study '%s' stores %s\n",
                   format_double(*f.objective_timeout).c_str(), printable(record.name).c_str(),
                   format_double(*stored.timeout_s).c_str());
    if (!stored.command.empty() && stored.command != objective.command)
      std::fprintf(stderr, "optimist: study '%s' was created with the objective command '%s'; this worker runs '%s'\n",
                   printable(record.name).c_str(), printable(stored.command).c_str(), printable(objective.command).c_str());
    if (!f.space.empty()) check_same_space(record, Space::from_json(load_config(f.space, "space file")), f.direction.empty() ? record.direction : parse_direction(f.direction), "--space " + f.space);
  } else {
    objective = StudyObjective::from_study(record);
    // A command read from the database, which anyone who can write to it chooses: run only when
    // the user names it or confirms it (docs/security.md).
    if (!objective.command.empty()) {
      if (!cmd.trust_command)
        throw InvalidArgument("study '" + record.name + "' was created with the objective command '" + objective.command +
                              "'; optimist does not run a command that comes only from a storage. Name it: "
                              "--objective-command '" + objective.command + "', or confirm the stored command with "
                              "--trust-command");
      std::fprintf(stderr, "optimist: running the objective command stored in study '%s' (--trust-command): %s\n",
                   printable(record.name).c_str(), printable(objective.command).c_str());
    }
  }

  WorkerOptions w;
  w.jobs = cmd.jobs;
  w.max_trials = cmd.budget;
  w.should_stop = [] { return InterruptGuard::interrupted(); };
  w.aborted = [] { return InterruptGuard::aborted(); };
  if (!cmd.quiet)
    w.on_evaluation = [&](const WorkerEvent& e) {
      if (e.value) std::fprintf(stderr, "trial %zu: %.10g\n", e.trial.number, *e.value);
      else std::fprintf(stderr, "trial %zu failed: %s\n", e.trial.number, printable(e.error).c_str());
    };
  std::fprintf(stderr, "worker %s on study '%s' (%s), %zu job(s)\n", printable(study.worker()).c_str(),
               printable(record.name).c_str(), printable(objective.label()).c_str(), cmd.jobs);
  WorkerSummary summary;
  {
    const InterruptGuard guard(InterruptGuard::Abort::Gracefully);
    share_one_allocator_arena(w.jobs);
    summary = run_worker(study, evaluator_factory(objective, record), w);
  }
  std::printf("worker %s: %zu evaluations (%zu failed)%s\n", printable(study.worker()).c_str(), summary.evaluated, summary.failed,
              InterruptGuard::interrupted() ? ", interrupted" : "");
  return InterruptGuard::interrupted() ? 130 : 0;
}

}  // namespace optimist::cli
