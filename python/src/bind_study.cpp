// Studies for Python (optimist/study.py wraps them): one optimization in SQLite or PostgreSQL,
// shared by workers in any number of processes (docs/studies.md).
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "optimist/study/study.hpp"

namespace optimist::python {

namespace {

py::object or_none(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::object(py::none()); }

py::dict trial_dict(const TrialRecord& t) {
  py::dict d;
  d["number"] = t.number;
  d["state"] = to_string(t.state);
  d["x"] = t.x;
  d["value"] = or_none(t.value);
  d["error"] = t.error.empty() ? py::object(py::none()) : py::object(py::str(t.error));
  d["stale"] = t.stale;
  d["given_back"] = t.given_back;
  d["worker"] = t.worker;
  d["origin"] = t.origin;
  d["created"] = or_none(t.created);
  d["started"] = or_none(t.started);
  d["finished"] = or_none(t.finished);
  d["suggest_s"] = or_none(t.suggest_s);
  d["lease_until"] = or_none(t.lease_until);
  return d;
}

StudyOptions worker_options(const std::string& worker) {
  StudyOptions o;
  o.worker = worker;
  return o;
}

}  // namespace

void bind_study(py::module_& m) {
  py::class_<StudyTrial>(m, "_StudyTrial", "A trial handed out by a study's ask().")
      .def_readonly("number", &StudyTrial::number)
      .def_readonly("x", &StudyTrial::x)
      .def_readonly("origin", &StudyTrial::origin)
      .def_readonly("suggest_s", &StudyTrial::suggest_s)
      .def_readonly("lease_until", &StudyTrial::lease_until);

  py::class_<Study>(m, "_Study", "One handle on a stored study (C++ optimist::Study); thread-safe.")
      .def_static(
          "create",
          [](const std::string& url, const std::string& name, const Space& space, const std::string& direction,
             const std::string& algorithm, py::dict options, std::uint64_t seed, std::optional<std::size_t> budget,
             std::optional<double> f_star, const std::string& worker, bool noisy, std::optional<double> heartbeat_s,
             std::optional<double> grace_s) {
            StudyConfig c;
            c.settings.noisy = noisy;
            if (heartbeat_s) c.settings.heartbeat_interval_s = *heartbeat_s;  // unset: StudySettings' default
            if (grace_s) c.settings.grace_period_s = *grace_s;
            c.name = name;
            c.space = space;
            c.direction = parse_direction(direction);
            c.algorithm = algorithm;
            c.options = to_json(options, "options");
            c.seed = seed;
            c.budget = budget;
            c.f_star = f_star;
            py::gil_scoped_release release;
            return Study::create(url, c, worker_options(worker));
          },
          py::arg("storage"), py::arg("name"), py::arg("space"), py::arg("direction"), py::arg("algorithm"),
          py::arg("options"), py::arg("seed"), py::arg("budget"), py::arg("f_star"), py::arg("worker"), py::arg("noisy") = false,
          py::arg("heartbeat") = py::none(), py::arg("grace") = py::none())
      .def_static(
          "load",
          [](const std::string& url, const std::string& name, const std::string& worker) {
            py::gil_scoped_release release;
            return Study::load(url, name, worker_options(worker));
          },
          py::arg("storage"), py::arg("name"), py::arg("worker"))
      .def_property_readonly("name", &Study::name)
      .def_property_readonly("worker", &Study::worker)
      .def_property_readonly("noisy", [](const Study& s) { return s.record().settings.noisy; })
      .def_property_readonly("heartbeat", [](const Study& s) { return s.record().settings.heartbeat_interval_s; })
      .def_property_readonly("grace", [](const Study& s) { return s.record().settings.grace_period_s; })
      .def_property_readonly("heartbeat_margin_warning",
                             [](const Study& s) { return s.record().settings.heartbeat_margin_warning(); })
      .def_property_readonly("space", [](const Study& s) { return s.space(); })
      .def_property_readonly("direction", [](const Study& s) { return to_string(s.record().direction); })
      .def_property_readonly("algorithm", [](const Study& s) { return s.record().algorithm; })
      .def_property_readonly("options", [](const Study& s) { return from_json(s.record().options); })
      // The stored options as today's version runs them (continued_study_options).
      .def_property_readonly("continued_options", [](const Study& s) { return from_json(continued_study_options(s.record())); })
      .def_property_readonly("seed", [](const Study& s) { return s.record().seed; })
      .def_property_readonly("budget", [](const Study& s) { return s.record().budget; })
      .def_property_readonly("f_star", [](const Study& s) { return s.record().f_star; })
      .def(
          "ask",
          [](Study& s, std::optional<double> lease_s) { return lease_s ? s.ask(*lease_s) : s.ask(); },
          py::arg("lease") = py::none(), py::call_guard<py::gil_scoped_release>())
      .def("tell", py::overload_cast<const StudyTrial&, double>(&Study::tell), py::arg("trial"), py::arg("value"),
           py::call_guard<py::gil_scoped_release>())
      .def("tell_failed", py::overload_cast<const StudyTrial&, const std::string&>(&Study::tell_failed), py::arg("trial"),
           py::arg("error"), py::call_guard<py::gil_scoped_release>())
      // By number, whoever asked it (a notebook restarted between ask and tell, another process).
      .def("tell_number", py::overload_cast<std::size_t, double>(&Study::tell), py::arg("number"), py::arg("value"),
           py::call_guard<py::gil_scoped_release>())
      .def("tell_failed_number", py::overload_cast<std::size_t, const std::string&>(&Study::tell_failed), py::arg("number"),
           py::arg("error"), py::call_guard<py::gil_scoped_release>())
      // Gives back a trial that will not be evaluated: not counted, withdrawn by the algorithm,
      // its point queued again with requeue. By number: whoever asked it (a cancelled lab sample).
      .def("release", py::overload_cast<const StudyTrial&, const std::string&, bool>(&Study::release), py::arg("trial"),
           py::arg("why"), py::arg("requeue") = true, py::call_guard<py::gil_scoped_release>())
      .def("release_number", py::overload_cast<std::size_t, const std::string&, bool>(&Study::release), py::arg("number"),
           py::arg("why"), py::arg("requeue") = true, py::call_guard<py::gil_scoped_release>())
      .def("enqueue", &Study::enqueue, py::arg("x"), py::arg("skip_if_exists") = false, py::call_guard<py::gil_scoped_release>())
      // Refuses an evaluation added before with the same value, as `optimist study add` does,
      // unless allow_duplicates (a ValueError naming the trial). Several: one transaction, all or none.
      .def(
          "add",
          [](Study& s, const std::vector<Vector>& xs, const std::vector<double>& values, bool allow_duplicates) {
            std::vector<StudyEvaluation> evaluations;
            for (std::size_t i = 0; i < xs.size(); ++i) evaluations.push_back(StudyEvaluation{xs[i], values.at(i), ""});
            try {
              return s.add(evaluations, allow_duplicates ? Duplicates::Allow : Duplicates::Refuse);
            } catch (const AddedTwice& e) {
              throw InvalidArgument("study '" + s.name() + "': " +
                                    (xs.size() > 1 ? "evaluation " + std::to_string(e.index) + ": " : std::string()) + "trial " +
                                    std::to_string(e.trial) + " was added with the same parameters and value " +
                                    format_double(e.value) + "; added twice? (allow_duplicates=True adds it again" +
                                    (xs.size() > 1 ? "; none was added)" : ")"));
            }
          },
          py::arg("xs"), py::arg("values"), py::arg("allow_duplicates") = true, py::call_guard<py::gil_scoped_release>())
      .def("add_failed", &Study::add_failed, py::arg("x"), py::arg("error"), py::call_guard<py::gil_scoped_release>())
      .def("trials",
           [](Study& s) {
             std::vector<TrialRecord> trials;
             {
               py::gil_scoped_release release;
               trials = s.trials();
             }
             py::list out;
             for (const auto& t : trials) out.append(trial_dict(t));
             return out;
           })
      .def("best",
           [](Study& s) -> py::object {
             std::optional<TrialRecord> best;
             {
               py::gil_scoped_release release;
               best = s.best();
             }
             return best ? py::object(trial_dict(*best)) : py::object(py::none());
           })
      .def("recommend", &Study::recommend, py::call_guard<py::gil_scoped_release>())
      .def("budget_used", &Study::budget_used, py::call_guard<py::gil_scoped_release>())
      .def("set_budget", &Study::set_budget, py::arg("budget"), py::call_guard<py::gil_scoped_release>())
      .def("running_elsewhere", &Study::running_elsewhere, py::call_guard<py::gil_scoped_release>());
}

}  // namespace optimist::python
