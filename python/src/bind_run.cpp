// A run driven from Python: the Python loop (optimist/_loop.py) asks, evaluates (inline or on an
// executor) and hands each outcome to a C++ RunRecorder, which keeps the same books and writes the
// same trace as `optimist run`. Traces are also read back here.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "bindings.hpp"
#include "optimist/core/run_recorder.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::python {

namespace {

double or_nan(const std::optional<double>& v) { return v ? *v : std::numeric_limits<double>::quiet_NaN(); }
py::object or_none(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::object(py::none()); }
py::object or_none(const std::optional<Vector>& v) { return v ? py::cast(*v) : py::object(py::none()); }

py::dict record_dict(const EvaluationRecord& r) {
  py::dict d;
  d["i"] = r.i;
  d["y"] = or_none(r.y);
  d["f"] = or_none(r.f);
  d["regret"] = or_none(r.regret);
  d["best_f"] = or_none(r.best_f);
  d["failed"] = r.failed;
  d["error"] = r.failed ? py::object(py::str(r.error)) : py::object(py::none());
  return d;
}

// Every evaluation of a run as numpy arrays (NaN where a value is absent) and the run's totals.
py::dict summary_dict(const RunSummary& s, std::size_t dim) {
  const auto n = static_cast<py::ssize_t>(s.evaluations.size()), d = static_cast<py::ssize_t>(dim);
  py::array_t<double> x({n, d});
  auto xm = x.mutable_unchecked<2>();
  std::vector<std::vector<double>> columns(8, std::vector<double>(static_cast<std::size_t>(n)));
  py::array_t<bool> failed(n);
  auto fm = failed.mutable_unchecked<1>();
  py::list errors;
  for (py::ssize_t k = 0; k < n; ++k) {
    const EvaluationRecord r = s.evaluations[static_cast<std::size_t>(k)];
    for (py::ssize_t j = 0; j < d; ++j) xm(k, j) = r.x[j];
    const double values[8] = {or_nan(r.y), or_nan(r.f), or_nan(r.regret), or_nan(r.cum_regret), or_nan(r.best_f),
                              r.suggest_s, r.eval_s, r.tell_s};
    for (std::size_t c = 0; c < 8; ++c) columns[c][static_cast<std::size_t>(k)] = values[c];
    fm(k) = r.failed;
    errors.append(r.failed ? py::object(py::str(r.error)) : py::object(py::none()));
  }
  py::dict evaluations;
  evaluations["x"] = x;
  const char* names[8] = {"y", "f", "regret", "cum_regret", "best_f", "suggest_s", "eval_s", "tell_s"};
  for (std::size_t c = 0; c < 8; ++c) evaluations[names[c]] = py::array_t<double>(n, columns[c].data());
  evaluations["failed"] = failed;
  evaluations["error"] = errors;

  py::dict out;
  out["evaluations"] = evaluations;
  out["stop_reason"] = to_string(s.reason);
  out["message"] = s.message;
  out["n_failed"] = s.n_failed;
  out["n_resumed"] = s.n_resumed;
  out["best_x"] = or_none(s.best_x);
  out["best_y"] = or_none(s.best_y);
  out["best_f"] = or_none(s.best_f);
  out["cum_regret"] = or_none(s.cum_regret);
  out["recommended_x"] = or_none(s.recommended_x);
  out["recommended_f"] = or_none(s.recommended_f);
  out["simple_regret"] = or_none(s.simple_regret);
  out["notes"] = s.notes;
  out["total_s"] = s.total_s;
  out["suggest_s"] = s.suggest_s;
  out["tell_s"] = s.tell_s;
  return out;
}

FailurePolicy parse_policy(const std::string& text) {
  if (text == "stop") return FailurePolicy::Stop;
  if (text == "mark-failed") return FailurePolicy::MarkFailed;
  throw InvalidArgument("on_failure must be 'stop' or 'mark-failed', got '" + text + "'");
}

class PyRun {
 public:
  PyRun(std::shared_ptr<Optimizer> optimizer, Problem problem, py::dict resolved_options, std::size_t budget,
        double noise, std::optional<double> time_limit, std::optional<double> target, const std::string& on_failure,
        std::optional<std::string> trace, std::size_t parallel, std::optional<std::string> resume,
        std::optional<std::vector<Vector>> x0, py::dict fixed)
      : optimizer_(std::move(optimizer)), problem_(std::move(problem)) {
    objective_.direction = problem_.direction;
    objective_.optimum = problem_.f_star;
    objective_.noise_free = problem_.f;  // empty for a user's objective: f is then the observed value
    objective_.name = problem_.name;
    options_.budget = budget;
    options_.time_limit_s = time_limit;
    options_.target = target;
    options_.on_failure = parse_policy(on_failure);
    std::optional<Trace> earlier;
    if (resume) earlier = earlier_run(*resume);
    // x0 not given: a resumed run's start points are those its trace records (as `optimist run
    // --resume` takes them). Checked (and filtered) before the trace is opened.
    if (x0) {
      options_.start_points = std::move(*x0);
    } else if (earlier) {
      try {
        options_.start_points = recorded_start_points(earlier->meta, problem_.space);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument("resume: '" + *resume + "': " + e.what());
      }
    }
    try {
      start_points_ = start_points_left(problem_.space, optimizer_->noisy(), options_.start_points, options_.resume_from, budget);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string(e.what()) + (resume ? " (resuming '" + *resume + "')" : ""));
    }
    if (trace) {
      const nlohmann::json resolved = to_json(resolved_options, "options");
      TraceMeta meta = problem_.trace_meta(resolved.at("name").get<std::string>(), resolved, optimizer_->seed(), noise, budget);
      meta.horizon = optimizer_->horizon();
      meta.decisions = optimizer_->decisions();
      meta.noisy = optimizer_->noisy();
      meta.run = options_.settings_json();
      if (parallel > 1) meta.run["parallel"] = parallel;
      record_start_points(meta, problem_.space, options_.start_points);
      // The Python space's fixed parameters, which the objective receives and the optimizer's space
      // does not hold: a resume with other values is refused (optimist/_minimize.py).
      if (!fixed.empty()) meta.run["fixed"] = to_json(fixed, "fixed");
      if (earlier) record_resume(meta, earlier->meta, options_.resume_from.size());
      // Resuming in place rewrites the trace through a temporary file (TraceWriter).
      trace_ = std::make_unique<TraceWriter>(*trace, meta, problem_.space, options_.resume_from, nullptr, resume.value_or(""));
      options_.trace = trace_.get();
    }
    recorder_ = std::make_unique<RunRecorder>(*optimizer_, objective_, options_);
  }

  std::size_t resumed() const { return options_.resume_from.size(); }
  const std::vector<Vector>& start_points() const { return start_points_; }
  std::string kept_trace() const { return trace_ ? trace_->kept_as() : std::string(); }
  bool stopped() const { return recorder_->stopped(); }
  std::size_t remaining() const { return recorder_->remaining(); }
  std::size_t done() const { return recorder_->summary().evaluations.size(); }
  bool time_is_up() const { return recorder_->time_is_up(); }
  void stop(const std::string& reason) {
    if (reason == "cancelled")
      recorder_->stop(StopReason::Cancelled);
    else if (reason == "time limit")
      recorder_->stop(StopReason::TimeLimit);
    else
      throw InvalidArgument("stop reason must be 'cancelled' or 'time limit', got '" + reason + "'");
  }
  py::dict record(const Trial& trial, double y, double suggest_s, double eval_s) {
    const EvaluationRecord* r;
    {
      py::gil_scoped_release release;  // tell refits the model
      r = &recorder_->record(trial, y, suggest_s, eval_s);
    }
    return record_dict(*r);
  }
  py::dict record_failure(const Trial& trial, const std::string& error, double suggest_s, double eval_s) {
    const EvaluationRecord* r;
    {
      py::gil_scoped_release release;
      r = &recorder_->record_failure(trial, error, suggest_s, eval_s);
    }
    return record_dict(*r);
  }
  void abandon(const Trial& trial) {
    py::gil_scoped_release release;
    recorder_->abandon(trial);
  }
  py::dict finish() {
    if (finished_) throw std::logic_error("finish() was already called for this run");
    finished_ = true;
    RunSummary s;
    {
      py::gil_scoped_release release;  // recommend may evaluate the model
      // The trace is closed (and its lock released) once finished, also when finishing failed: an
      // exception's traceback keeps this run alive, and the user's next step is to resume it.
      struct CloseTrace {
        PyRun& run;
        ~CloseTrace() {
          run.options_.trace = nullptr;
          run.trace_.reset();
        }
      } close_trace{*this};
      s = recorder_->finish();
    }
    return summary_dict(s, problem_.space.dim());
  }

 private:
  // The evaluations of an earlier run of these settings (its trace), told first and never repeated.
  Trace earlier_run(const std::string& path) {
    Trace t = read_trace(path);
    if (t.meta.space != problem_.space.to_json())
      throw InvalidArgument("resume: the search space in '" + path + "' differs from this run's: " +
                            space_difference(t.meta.space, problem_.space.to_json()));
    if (t.meta.direction != problem_.direction)
      throw InvalidArgument("resume: '" + path + "' is a run to " + to_string(t.meta.direction) + ", this one is to " +
                            to_string(problem_.direction));
    try {
      options_.resume_from = evaluations_from_trace(t, problem_.space);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("resume: '" + path + "': " + e.what());
    }
    return t;
  }

  // Declared in the order the recorder needs them built (it keeps references to all three).
  std::shared_ptr<Optimizer> optimizer_;
  Problem problem_;
  Objective objective_;
  RunOptions options_;
  std::vector<Vector> start_points_;  // the x0 points still to evaluate, in order (start_points_left)
  std::unique_ptr<TraceWriter> trace_;
  std::unique_ptr<RunRecorder> recorder_;
  bool finished_ = false;
};

py::dict trace_dict(const std::string& path) {
  const Trace t = read_trace(path);
  // Each evaluation line checked as a resume checks it (a status other than ok/failed, a point
  // outside the space, an "ok" line without a finite y): the CLI and the dashboard refuse those too.
  if (!t.meta.space.is_null()) {
    try {
      (void)evaluations_from_trace(t, Space::from_json(t.meta.space));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("trace '" + path + "': " + e.what());
    }
  }
  py::dict d;
  d["meta"] = from_json(t.meta.to_json());
  py::list evaluations;
  for (const auto& line : t.evaluations) evaluations.append(from_json(line));
  d["evaluations"] = evaluations;
  d["recommend"] = t.recommend ? from_json(*t.recommend) : py::object(py::none());
  return d;
}

}  // namespace

void bind_run(py::module_& m) {
  py::class_<PyRun>(m, "_Run", "The books of one run (C++ RunRecorder) and its trace.")
      .def(py::init<std::shared_ptr<Optimizer>, Problem, py::dict, std::size_t, double, std::optional<double>,
                    std::optional<double>, const std::string&, std::optional<std::string>, std::size_t,
                    std::optional<std::string>, std::optional<std::vector<Vector>>, py::dict>(),
           py::arg("optimizer"), py::arg("problem"), py::arg("options"), py::arg("budget"), py::arg("noise"),
           py::arg("time_limit"), py::arg("target"), py::arg("on_failure"), py::arg("trace"), py::arg("parallel"),
           py::arg("resume"), py::arg("x0") = py::none(), py::arg("fixed") = py::dict())
      .def_property_readonly("resumed", &PyRun::resumed)
      .def_property_readonly("start_points", &PyRun::start_points,
                             "The x0 points still to evaluate, in order: a deterministic objective's repeats "
                             "once, and without those the resumed trace holds (core start_points_left).")
      .def_property_readonly("kept_trace", &PyRun::kept_trace)
      .def_property_readonly("stopped", &PyRun::stopped)
      .def_property_readonly("remaining", &PyRun::remaining)
      .def_property_readonly("done", &PyRun::done)
      .def("time_is_up", &PyRun::time_is_up)
      .def("stop", &PyRun::stop, py::arg("reason"))
      .def("record", &PyRun::record, py::arg("trial"), py::arg("y"), py::arg("suggest_s"), py::arg("eval_s"))
      .def("record_failure", &PyRun::record_failure, py::arg("trial"), py::arg("error"), py::arg("suggest_s"),
           py::arg("eval_s"))
      .def("abandon", &PyRun::abandon, py::arg("trial"))
      .def("finish", &PyRun::finish);
  m.def("_equal_values_note", &equal_values_note, py::arg("values"),
        "The note for a run or study whose values are all the same (at least five), or None.");
  m.def("_read_trace", &trace_dict, py::arg("path"),
        "A trace file read back: {'meta': ..., 'evaluations': [...], 'recommend': ... or None}.");
}

}  // namespace optimist::python
