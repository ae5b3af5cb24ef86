#include "cli/study_support.hpp"

#include <algorithm>
#include <filesystem>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "optimist/core/external_objective.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/experiment/run_setup.hpp"

namespace optimist::cli {

void share_one_allocator_arena(std::size_t jobs) {
#if defined(__GLIBC__)
  if (jobs > 1) mallopt(M_ARENA_MAX, 1);
#else
  (void)jobs;
#endif
}

nlohmann::json StudyObjective::to_json() const {
  if (problem) return {{"problem", problem->name}, {"dim", problem->dim}, {"noise", noise}};
  nlohmann::json j = {{"objective_command", command}};
  if (timeout_s) j["objective_timeout"] = *timeout_s;
  return j;
}

StudyObjective StudyObjective::from_study(const StudyRecord& study) {
  const nlohmann::json& j = study.settings.objective;
  StudyObjective o;
  if (j.contains("problem")) {
    o.problem = make_problem(j.at("problem").get<std::string>(), j.value("dim", std::size_t{0}));
    o.noise = j.value("noise", 0.0);
    check_same_space(study, o.problem->space, o.problem->direction, "problem '" + o.problem->name + "' in this build");
    return o;
  }
  if (j.contains("objective_command")) {
    o.command = j.at("objective_command").get<std::string>();
    if (j.contains("objective_timeout")) o.timeout_s = j.at("objective_timeout").get<double>();
    return o;
  }
  throw InvalidArgument("study '" + study.name + "' records no objective (it was created from a library); give the worker "
                        "--problem or --objective-command");
}

std::string StudyObjective::label() const { return problem ? problem->name : command; }

void check_same_space(const StudyRecord& study, const Space& space, Direction direction, const std::string& what) {
  if (space.to_json() != study.space.to_json())
    throw InvalidArgument("study '" + study.name + "' was created with another space than " + what + " has: " +
                          space_difference(study.space.to_json(), space.to_json()) + " (there: in the study; here: in " + what + ")");
  if (direction != study.direction)
    throw InvalidArgument("study '" + study.name + "' is to " + to_string(study.direction) + ", but " + what + " is to " +
                          to_string(direction));
}

std::function<TrialEvaluator()> evaluator_factory(const StudyObjective& objective, const StudyRecord& study) {
  if (objective.problem) {
    const Problem problem = *objective.problem;
    const double noise = objective.noise;
    // The noise stream of `optimist run`, so that a study of a noisy problem observes the same
    // values as the run with the same seed.
    const std::uint64_t noise_seed = derive_seed(study.seed, experiment::kNoiseStream);
    return [problem, noise, noise_seed] {
      return TrialEvaluator([problem, noise, noise_seed](const StudyTrial& t) {
        if (noise == 0.0) return problem.f(t.x);
        return problem.objective(noise, noise_seed, t.number).function(t.x);
      });
    };
  }
  ExternalCommand command;
  command.argv = split_command_line(objective.command);
  command.timeout_s = objective.timeout_s;
  const Space space = study.space;
  const Direction direction = study.direction;
  const std::string name = objective.command;
  return [command, space, direction, name] {
    // Each job its own child process (an Objective's copies share one child).
    const Objective child = external_objective(command, space, direction, name);
    return TrialEvaluator([child](const StudyTrial& t) { return child.function(t.x); });
  };
}

TraceMeta study_trace_meta(const StudyRecord& study, const StudyObjective* objective) {
  TraceMeta meta;
  meta.algorithm = study.algorithm;
  meta.options = study.options;
  (void)experiment::take_legacy_run_settings(meta.options);  // a study stored before RunContext
  meta.problem = objective ? objective->label() : study.name;
  meta.dim = study.space.dim();
  meta.seed = study.seed;
  meta.noise = objective ? objective->noise : 0.0;
  meta.noisy = study.settings.noisy;
  meta.direction = study.direction;
  meta.f_star = study.f_star;
  meta.budget = study.budget.value_or(0);
  meta.horizon = study_run_context(study).horizon;
  meta.space = study.space.to_json();
  meta.decisions = make_study_optimizer(study)->decisions();
  if (objective && !objective->command.empty()) meta.objective_command = objective->command;
  return meta;
}

EvaluationRecord trace_record(const TrialRecord& t, const StudyRecord& study, const StudyObjective* objective,
                              TraceTotals& running) {
  EvaluationRecord r;
  r.i = ++running.i;
  r.x = t.x;
  r.failed = t.state != TrialState::Complete;
  r.error = t.error;
  r.suggest_s = t.suggest_s.value_or(0.0);
  if (t.started && t.finished) r.eval_s = std::max(0.0, *t.finished - *t.started);
  if (!r.failed) {
    r.y = t.value;
    r.f = objective && objective->problem ? objective->problem->f(t.x) : *t.value;
    const double sign = direction_sign(study.direction);
    if (!running.best_f || sign * *r.f > sign * *running.best_f) running.best_f = r.f;
    if (study.f_star) {
      r.regret = std::max(0.0, sign * (*study.f_star - *r.f));
      running.cum_regret = running.cum_regret.value_or(0.0) + *r.regret;
    }
  }
  r.cum_regret = running.cum_regret;
  r.best_f = running.best_f;
  r.diagnostics = {{"trial", t.number}, {"worker", t.worker}};
  if (const auto d = t.user_attrs.find("diagnostics"); d != t.user_attrs.end() && d->is_object()) r.diagnostics.update(*d);
  return r;
}

std::size_t export_trace(Study& study, const std::string& path) {
  const StudyRecord& record = study.record();
  std::optional<StudyObjective> objective;
  try {
    objective = StudyObjective::from_study(record);
  } catch (const InvalidArgument&) {
    // A study made from a library: exported without a problem's noise-free values.
  }
  std::vector<TrialRecord> trials = study.trials();
  bool in_flight = false;
  std::vector<TrialRecord> finished;
  for (auto& t : trials) {
    if (t.state == TrialState::Waiting || t.state == TrialState::Running) in_flight = true;
    else if (!t.stale) finished.push_back(std::move(t));
  }
  const bool used_up = finite_space_used_up(record, finished);
  const bool done = !in_flight && ((record.budget && finished.size() >= *record.budget) || used_up);
  std::sort(finished.begin(), finished.end(), [](const TrialRecord& a, const TrialRecord& b) { return a.finished_seq < b.finished_seq; });

  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  TraceWriter writer(path, study_trace_meta(record, objective ? &*objective : nullptr), record.space);
  TraceTotals totals;
  for (const auto& t : finished) writer.write(trace_record(t, record, objective ? &*objective : nullptr, totals));
  if (done) {
    const auto x = study.recommend();
    std::optional<double> f, regret;
    if (x) f = recommended_value(*x, finished, objective ? &*objective : nullptr);
    if (f && record.f_star) regret = std::max(0.0, direction_sign(record.direction) * (*record.f_star - *f));
    const bool budget_used = record.budget && finished.size() >= *record.budget;
    writer.write_recommend(x.value_or(Vector()), f, regret,
                           to_string(budget_used || !used_up ? StopReason::Budget : StopReason::SpaceExhausted));
  }
  return finished.size();
}

std::optional<double> recommended_value(const Vector& x, const std::vector<TrialRecord>& finished,
                                        const StudyObjective* objective) {
  if (objective && objective->problem) return objective->problem->f(x);
  std::optional<double> f;
  for (const auto& t : finished)
    if (t.state == TrialState::Complete && !t.stale && t.value && t.x == x) f = t.value;
  return f;
}

bool finite_space_used_up(const StudyRecord& study, const std::vector<TrialRecord>& finished) {
  const auto size = study.space.finite_size();
  if (study.settings.noisy || !size || finished.size() < *size) return false;
  PointSet distinct;
  for (const auto& t : finished)
    if (!t.stale) distinct.insert(t.x);
  return distinct.size() >= *size;
}

}  // namespace optimist::cli
