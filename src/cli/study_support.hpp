// What the study commands share: the objective a study's workers evaluate, checks of a worker's
// command line against the stored study, and the export of a study as a trace.
#pragma once

#include <optional>
#include <string>

#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/study/worker.hpp"

namespace optimist::cli {

/// What a worker evaluates: a benchmark problem (with noise) or the user's program.
struct StudyObjective {
  std::optional<Problem> problem;  ///< a benchmark problem
  double noise = 0.0;
  std::string command;             ///< else: the program, run as --objective-command
  std::optional<double> timeout_s;

  /// {"problem", "dim", "noise"} or {"objective_command"}: StudySettings::objective.
  nlohmann::json to_json() const;
  /// The objective stored with a study; throws InvalidArgument if it records none.
  static StudyObjective from_study(const StudyRecord& study);
  /// A name for traces and messages: the problem's name or the command.
  std::string label() const;
};

/// Throws InvalidArgument naming both when `space`/`direction` (a worker's command line) differ
/// from the study's.
void check_same_space(const StudyRecord& study, const Space& space, Direction direction, const std::string& what);

/// One evaluator per job: the problem's value plus the noise draw of the trial's number (the
/// k-th trial gets the k-th draw, as the k-th evaluation of `optimist run`), or one child
/// process of the command per job.
std::function<TrialEvaluator()> evaluator_factory(const StudyObjective& objective, const StudyRecord& study);

/// Before a worker's job threads start (`run --jobs`, `worker --jobs`): one allocator arena for the
/// whole program. The jobs take turns with the optimizer (the study's lock), so glibc's per-thread
/// arenas only kept one model's freed matrices each: gp-ei, d = 10, 1,200 evaluations, --jobs 4:
/// 279 MB, 138 MB with one arena, in the same time (docs/studies.md). Not for `bench --jobs`,
/// whose runs allocate in parallel (one arena: 40% slower on 2 cores).
void share_one_allocator_arena(std::size_t jobs);

/// The trace's meta line for a study (docs/trace-format.md).
TraceMeta study_trace_meta(const StudyRecord& study, const StudyObjective* objective);

/// One evaluation line: f from the problem when known (else y), regret when f* is known;
/// `running` carries cum_regret and best_f across calls. The trial's number and worker go in as
/// extra keys "trial" and "worker".
struct TraceTotals {
  std::size_t i = 0;
  std::optional<double> cum_regret, best_f;
};
EvaluationRecord trace_record(const TrialRecord& trial, const StudyRecord& study, const StudyObjective* objective,
                              TraceTotals& running);

/// The value reported with a study's recommended point x, without paying for an evaluation: the
/// problem's noise-free value, else the value observed at x (its last complete trial), else none.
std::optional<double> recommended_value(const Vector& x, const std::vector<TrialRecord>& finished,
                                        const StudyObjective* objective);

/// A deterministic study over a finite space all of whose points have been evaluated (its workers
/// stop there: docs/discrete.md). `finished`: the complete and failed trials.
bool finite_space_used_up(const StudyRecord& study, const std::vector<TrialRecord>& finished);

/// Writes the study's finished trials (complete and failed, not those failed as stale) in the
/// order they finished, and a recommend line once the study is done (budget used, nothing
/// running or waiting), or once a deterministic study has evaluated every point of its finite
/// space. Returns the number of evaluations written.
std::size_t export_trace(Study& study, const std::string& path);

}  // namespace optimist::cli
