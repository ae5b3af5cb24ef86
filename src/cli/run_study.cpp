#include "cli/run_study.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "cli/format.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "cli/study_support.hpp"
#include "cli/summary.hpp"
#include "cli/temporary_run_folder.hpp"
#include "optimist/core/run_recorder.hpp"
#include "optimist/experiment/run_setup.hpp"

namespace optimist::cli {

namespace {

// A study continued without --resume writes all its trials to --out. The file there may be
// rewritten only when it is this study's own trace (an earlier session's): every evaluation it
// holds is one of the study's trials, so rewriting it loses nothing. Anything else is met as a new
// run meets it (check_trace_destination; TraceWriter keeps a finished trace of paid evaluations).
bool holds_only_trials_of(const std::string& out, const std::string& url, const std::string& study_name) {
  std::error_code ec;
  if (out.empty() || !std::filesystem::is_regular_file(out, ec) || std::filesystem::file_size(out, ec) == 0 || ec) return false;
  Trace old;
  try {
    old = read_trace(out);
  } catch (const std::exception&) {
    return false;  // not a trace: check_trace_destination says so
  }
  Study study = Study::load(url, study_name);
  std::multiset<std::vector<double>> points;
  for (const TrialRecord& t : study.trials())
    if (t.state == TrialState::Complete || t.state == TrialState::Failed) points.emplace(t.x.begin(), t.x.end());
  try {
    for (const nlohmann::json& line : old.evaluations) {
      const Vector x = evaluation_from_json(line, study.record().space).x;
      const auto it = points.find(std::vector<double>(x.begin(), x.end()));
      if (it == points.end()) return false;
      points.erase(it);
    }
  } catch (const std::exception&) {
    return false;  // a point outside the study's space
  }
  return true;
}

// --out is checked before the study exists: a trace that cannot be written must not leave an
// empty study behind. Nor one that would be refused (check_trace_destination): a file that is not
// a trace, or an unfinished trace of another run.
void check_trace_path(const std::string& out, bool continuing) {
  if (out.empty()) return;
  (void)check_trace_destination(out, continuing);
  const std::filesystem::path path(out);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InvalidArgument("--out '" + out + "' is a folder; name a trace file");
  if (!path.parent_path().empty()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw InvalidArgument("--out: cannot create folder '" + path.parent_path().string() + "': " + ec.message());
  }
  const bool existed = std::filesystem::exists(path, ec);
  if (!std::ofstream(path, std::ios::app)) throw InvalidArgument("--out: cannot write '" + out + "': " + std::strerror(errno));
  if (!existed) std::filesystem::remove(path, ec);
}

Study open_study(const std::string& url, const StudyConfig& config) {
  Storage storage(url);
  if (!storage.find_study(config.name)) return Study::create(url, config);
  Study study = Study::load(url, config.name);
  const StudyRecord& r = study.record();
  check_same_space(r, config.space, config.direction, "this run's problem");
  if (r.algorithm != config.algorithm)
    throw InvalidArgument("study '" + r.name + "' in " + redact_url(url) + " runs " + r.algorithm + ", not " + config.algorithm +
                          "; use another --study name");
  // The options this run names must be the study's; those it leaves out continue as stored.
  std::string differ;
  for (const std::string& d : study_option_differences(r, config.options)) differ += (differ.empty() ? "" : ", ") + d;
  if (!differ.empty())
    throw InvalidArgument("study '" + r.name + "' in " + redact_url(url) + " runs " + r.algorithm + " with other options (" +
                          differ + "); use another --study name");
  if (r.seed != config.seed)
    throw InvalidArgument("study '" + r.name + "' has seed " + std::to_string(r.seed) + ", not --seed " +
                          std::to_string(config.seed));
  if (r.settings.noisy != config.settings.noisy)
    throw InvalidArgument("study '" + r.name + "' was created with a " + (r.settings.noisy ? "noisy" : "deterministic") +
                          " objective, this run declares it " + (config.settings.noisy ? "noisy" : "deterministic"));
  if (r.settings.objective != config.settings.objective)
    throw InvalidArgument("study '" + r.name + "' evaluates " + r.settings.objective.dump() + ", not " +
                          config.settings.objective.dump());
  // Every check above first: a refused run changes nothing (its larger --budget was stored).
  if (r.budget && config.budget && *config.budget > *r.budget) {
    // A larger --budget continues the study further, as `--resume` of a trace does; its algorithm
    // keeps planning for the first budget (Study::set_budget).
    std::fprintf(stderr, "optimist: study '%s': budget %zu -> %zu\n", printable(r.name).c_str(), *r.budget, *config.budget);
    study.set_budget(config.budget);
  } else if (r.budget != config.budget) {
    throw InvalidArgument("study '" + r.name + "' has budget " + (r.budget ? std::to_string(*r.budget) : "unlimited") +
                          ", not --budget " + std::to_string(config.budget.value_or(0)) +
                          " (a larger --budget continues it; 'optimist study set --budget' changes it)");
  }
  return study;
}

}  // namespace

int run_in_study(const RunSettings& s, const Problem& problem, const StudyRunFlags& flags) {
  if (flags.jobs == 0) throw InvalidArgument("--jobs must be >= 1, got 0");
  if (s.batch != 1) throw InvalidArgument("--batch " + std::to_string(s.batch) + " cannot be combined with --jobs or --storage");
  StudyObjective objective;
  if (s.objective_command.empty()) {
    objective.problem = problem;
    objective.noise = s.noise;
  } else {
    objective.command = s.objective_command;
    objective.timeout_s = s.objective_timeout;
  }
  StudyConfig config;
  config.name = flags.study;
  config.space = problem.space;
  config.direction = problem.direction;
  config.algorithm = s.algorithm;
  config.options = s.options;
  config.seed = s.seed;
  config.budget = s.budget;
  config.f_star = problem.f_star;
  config.settings.objective = objective.to_json();
  config.settings.noisy = s.noisy || s.noise > 0.0;

  std::optional<TemporaryRunFolder> temporary;
  if (flags.storage.empty()) temporary.emplace();
  const std::string url = temporary ? "sqlite:///" + (temporary->path() / "run.db").string() : flags.storage;
  const bool own_trace = flags.resumed || (Storage(url).find_study(config.name) && holds_only_trials_of(s.out, url, config.name));
  check_trace_path(s.out, own_trace);
  Study study = open_study(url, config);
  const StudyRecord& record = study.record();

  // Trials finished in an earlier session of this study come first.
  RunSummary run;
  TraceTotals totals;
  std::vector<EvaluationRecord> earlier;
  if (flags.resumed) {
    // A resumed trace: its evaluations become the new study's first trials (told, in the trace's
    // order), kept in the trace as they were written.
    for (const EvaluationRecord& r : *flags.resumed) {
      if (r.failed) study.add_failed(r.x, r.error);
      else study.add(r.x, *r.y);
    }
    earlier = *flags.resumed;
    totals.i = earlier.size();
    if (!earlier.empty()) {
      totals.best_f = earlier.back().best_f;
      totals.cum_regret = earlier.back().cum_regret;
    }
  } else {
    std::vector<TrialRecord> done = study.trials();
    std::erase_if(done, [](const TrialRecord& t) { return t.stale || (t.state != TrialState::Complete && t.state != TrialState::Failed); });
    std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.finished_seq < b.finished_seq; });
    for (const auto& t : done) earlier.push_back(trace_record(t, record, &objective, totals));
  }

  // Start points before the algorithm's: queued, those evaluated already (or queued: a continued
  // study) not again.
  if (!s.x0.empty()) {
    const std::vector<Vector> given = start_points(s, record.space);
    for (const Vector& x : start_points_left(record.space, config.settings.noisy, given, earlier, s.budget))
      study.enqueue(x, /*skip_if_exists=*/!config.settings.noisy);
  }

  std::unique_ptr<TraceWriter> trace;
  if (!s.out.empty()) {
    TraceMeta meta = study_trace_meta(record, &objective);
    meta.run = {{"batch", 1}, {"on_failure", s.on_failure == FailurePolicy::Stop ? "stop" : "mark-failed"},
                {"time_limit_s", s.time_limit ? nlohmann::json(*s.time_limit) : nlohmann::json()},
                {"target", s.target ? nlohmann::json(*s.target) : nlohmann::json()}, {"jobs", flags.jobs}};
    if (!s.x0.empty()) meta.run["x0"] = s.x0;
    if (flags.resumed_meta) record_resume(meta, *flags.resumed_meta, earlier.size());
    // Resumed in place (however spelled): the writer takes over the lock on the trace read. A study
    // continued without --resume writes its trials over --out when that is its own earlier trace;
    // otherwise `earlier` was read from the study (its URL), and --out is met as by a new run.
    trace = std::make_unique<TraceWriter>(s.out, meta, record.space, earlier, flags.resume_lock,
                                          flags.resumed ? std::string() : own_trace ? s.out : url);
    std::cerr << kept_trace_line(s.out, trace->kept_as());
  }
  Objective display;  // what the progress display needs: direction and f*
  display.direction = record.direction;
  display.optimum = record.f_star;
  std::optional<ProgressDisplay> progress;
  if (!flags.quiet) progress.emplace(display, s.time_limit);

  const double sign = direction_sign(record.direction);
  auto add = [&](const EvaluationRecord& r) {
    run.evaluations.push_back(r);
    if (r.failed) {
      if (run.n_failed++ == 0 && run.message.empty()) run.message = r.error;
    } else if (!run.best_y || sign * *r.y > sign * *run.best_y) {
      run.best_y = r.y;
      run.best_x = r.x;
    }
    run.best_f = r.best_f;
    run.cum_regret = r.cum_regret;
    run.suggest_s += r.suggest_s;
  };
  for (const auto& r : earlier) add(r);
  run.n_resumed = earlier.size();

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  bool target_reached = false, failed_stop = false;
  WorkerOptions w;
  w.jobs = flags.jobs;
  w.stop_on_failure = s.on_failure == FailurePolicy::Stop;
  w.aborted = [] { return InterruptGuard::aborted(); };
  w.should_stop = [&] {
    return InterruptGuard::interrupted() || target_reached || (s.time_limit && elapsed() >= *s.time_limit);
  };
  w.on_evaluation = [&](const WorkerEvent& e) {
    TrialRecord t;
    t.number = e.trial.number;
    t.x = e.trial.x;
    t.state = e.value ? TrialState::Complete : TrialState::Failed;
    t.value = e.value;
    t.error = e.error;
    t.worker = study.worker();
    t.suggest_s = e.trial.suggest_s;
    if (!e.trial.diagnostics.empty()) t.user_attrs["diagnostics"] = e.trial.diagnostics;  // as study export writes them
    t.started = 0.0;
    t.finished = e.eval_s;
    const EvaluationRecord r = trace_record(t, record, &objective, totals);
    if (trace) trace->write(r);
    add(r);
    if (!e.value && w.stop_on_failure) failed_stop = true;
    if (e.value && s.target && sign * *e.value >= sign * *s.target) target_reached = true;
    if (progress) {
      Progress p;
      p.done = run.evaluations.size();
      p.budget = s.budget;
      p.elapsed_s = elapsed();
      p.best_y = run.best_y;
      p.best_f = run.best_f;
      p.cum_regret = run.cum_regret;
      p.last = &r;
      progress->update(p);
    }
  };
  try {
    const InterruptGuard guard(InterruptGuard::Abort::Gracefully);
    share_one_allocator_arena(w.jobs);
    run_worker(study, evaluator_factory(objective, record), w);
  } catch (...) {
    if (progress) progress->finish();
    throw;
  }
  if (progress) progress->finish();
  run.total_s = elapsed();
  // A deterministic objective on a finite space stops once every point has been evaluated.
  std::vector<TrialRecord> finished = study.trials();
  std::erase_if(finished, [](const TrialRecord& t) { return t.stale || (t.state != TrialState::Complete && t.state != TrialState::Failed); });
  const auto exhausted = [&] { return run.evaluations.size() < s.budget && finite_space_used_up(record, finished); };
  run.reason = failed_stop ? StopReason::ObjectiveFailed
               : InterruptGuard::interrupted() ? StopReason::Cancelled
               : target_reached ? StopReason::Target
               : (s.time_limit && run.evaluations.size() < s.budget) ? StopReason::TimeLimit
               : exhausted() ? StopReason::SpaceExhausted
                             : StopReason::Budget;
  if (!failed_stop) run.message.clear();
  // As a run without --jobs says it ("budget of 40 evaluations used"); exhausted: every point of the finite space.
  if (auto message = stop_message(run.reason, run.evaluations.size(), s.budget,
                                  record.space.finite_size().value_or(run.evaluations.size())))
    run.message = std::move(*message);
  run.recommended_x = study.recommend();
  if (run.recommended_x) run.recommended_f = recommended_value(*run.recommended_x, finished, &objective);
  if (run.recommended_f && record.f_star) run.simple_regret = std::max(0.0, sign * (*record.f_star - *run.recommended_f));
  if (trace) trace->write_recommend(run.recommended_x.value_or(Vector()), run.recommended_f, run.simple_regret, to_string(run.reason));
  print_summary(std::cout, s, problem, display, run, make_study_optimizer(record)->decisions());
  if (!flags.storage.empty()) std::cout << "study             '" << record.name << "' in " << redact_url(flags.storage) << "\n";
  if (run.reason == StopReason::ObjectiveFailed) {
    std::fprintf(stderr, "optimist: error: the objective failed: %s\n", run.message.c_str());
    return 1;
  }
  return run.reason == StopReason::Cancelled ? 130 : 0;
}

}  // namespace optimist::cli
