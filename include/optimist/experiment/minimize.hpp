// One call: minimize or maximize a C++ function over a space with any registered algorithm, the
// driver's budget, time limit, target, failure policy and progress, a trace and its resume. What
// Python's optimist.minimize() and `optimist run` do, for C++ (dlib's find_min_global, with our
// algorithms and traces).
//
//   optimist::Space space;
//   space.add_continuous("x", -5.0, 10.0).add_continuous("y", 0.0, 15.0);
//   const optimist::MinimizeResult r = optimist::minimize(branin, space, {.budget = 50, .seed = 1});
//   if (r.best_y) use(*r.best_x, *r.best_y);  // r.decisions: what `auto` chose and why
//
// ok() is not "has a best": a run whose every evaluation failed under FailurePolicy::MarkFailed,
// or one stopped (should_stop, time limit) before its first evaluation, is ok() with no best_x,
// best_y or recommended_x.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "optimist/core/driver.hpp"
#include "optimist/core/space.hpp"

namespace optimist {

struct MinimizeOptions {
  /// Any registered algorithm (`optimist list`); "auto" chooses one from the space and the budget.
  std::string algorithm = "auto";
  /// Its options (the CLI's --set keys), checked: InvalidArgument naming an unknown key or bad value.
  nlohmann::json options = nlohmann::json::object();
  /// Evaluations, failed ones included; also the horizon of the algorithms that plan with it.
  std::size_t budget = 100;
  /// The whole run is a deterministic function of it (and of the function's values).
  std::uint64_t seed = 0;
  /// Declares the function noisy: a point may be evaluated again. Default: deterministic (no point
  /// twice; a finite space ends the run with StopReason::SpaceExhausted once every point is done).
  bool noisy = false;
  std::optional<double> time_limit_s{};  ///< no new evaluation after this wall time (seconds, > 0)
  std::optional<double> target{};        ///< stop once a value reaches it (in the run's direction)
  /// Stop (default): a throwing function, NaN or infinity ends the run, recorded, with
  /// StopReason::ObjectiveFailed and the message; MarkFailed records it and goes on.
  FailurePolicy on_failure = FailurePolicy::Stop;
  /// Write the run's trace (docs/trace-format.md) here, line by line (its folder is created when
  /// missing, as `optimist run --out` does); empty: none.
  std::string trace{};
  /// Continue the run of this trace (the same algorithm, options, seed and space; stopped by a
  /// crash, a time limit or a failure): its evaluations are told first, counted in the budget and
  /// never repeated. `trace` may name the same file: it is rewritten in place. A larger budget
  /// continues it further, but the algorithm keeps planning for the first run's budget (its
  /// horizon): the result is not a fresh run's with the larger budget. A smaller budget than the
  /// trace's evaluations throws InvalidArgument.
  std::string resume{};
  std::string name = "objective";  ///< the function's name in the trace
  std::function<void(const Progress&)> on_progress{};  ///< after every evaluation
  std::function<bool()> should_stop{};                 ///< polled before every ask (e.g. your SIGINT flag)
  // An exception thrown by on_progress or should_stop leaves the run there and propagates: the
  // evaluations made so far were told to the optimizer and written to the trace, if any (resume
  // from it); no summary is returned.
};

/// The run (RunSummary: best_x and best_y, the best observed point and value, empty when no
/// evaluation succeeded; recommended_x, the algorithm's answer; every evaluation; why it stopped)
/// and what the algorithm decided.
struct MinimizeResult : RunSummary {
  std::string algorithm;   ///< as asked ("auto" included)
  std::uint64_t seed = 0;  ///< the run's (a resumed run's is the trace's)
  /// Optimizer::decisions(): for auto, {"algorithm", "options", "reason"}; options left at "auto"
  /// under "resolved".
  nlohmann::json decisions = nlohmann::json::object();
  /// Where a finished run of f found at MinimizeOptions::trace was moved before this run wrote
  /// its trace there (TraceWriter); empty when none was.
  std::string kept_trace;
};

/// Minimizes f over `space` (f takes user points: Space::to_user's values, a categorical as its
/// choice index). Throws InvalidArgument naming the bad value for: an empty f, a budget of 0, an
/// unknown algorithm or option, a time limit or target that is not a finite number (a time limit
/// <= 0), a trace that cannot be written, a resume trace of another run. A failing f does not
/// throw: see MinimizeOptions::on_failure and RunSummary::ok() (its exception, when it stopped the
/// run: RunSummary::objective_exception).
MinimizeResult minimize(const std::function<double(const Vector&)>& f, const Space& space, const MinimizeOptions& options = {});
/// As minimize, maximizing f (target is reached from below; best_y is the largest value).
MinimizeResult maximize(const std::function<double(const Vector&)>& f, const Space& space, const MinimizeOptions& options = {});

}  // namespace optimist
