// Optimizers for Python: the registry, ask/tell, and the one function that creates an optimizer.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <optional>

#include "bindings.hpp"
#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/algorithms/registry.hpp"
#include "python_model.hpp"

namespace optimist::python {

namespace {

using OptimizerPtr = std::shared_ptr<Optimizer>;

// The ONE place where the Python package creates optimizers: every change of the C++ creation path
// (registry, how seed and horizon reach an algorithm) is adapted here. Returns the optimizer and its
// fully resolved options (the trace's meta "options").
py::tuple create_optimizer(const std::string& algorithm, py::dict user_options, const Space& space,
                           const std::string& direction, std::uint64_t seed, std::optional<std::size_t> horizon,
                           py::object model, bool noisy) {
  nlohmann::json spec = to_json(user_options, "options");
  for (const char* reserved : {"name", "seed", "budget"})
    if (spec.contains(reserved))
      throw InvalidArgument(algorithm + ": '" + reserved + "' is an argument of its own, not an algorithm option (got " +
                            spec.at(reserved).dump() + ")");
  const AlgorithmInfo& info = algorithm_info(algorithm);  // ValueError listing the valid names
  spec["name"] = algorithm;
  const nlohmann::json resolved = resolve_options(spec);
  // The seed and the horizon (the run's budget, as the CLI passes it) reach the algorithm in its RunContext.
  if (info.horizon == HorizonUse::Required && !horizon)
    throw InvalidArgument(algorithm + " plans with the total number of evaluations: give budget=N (the horizon)");
  const RunContext context{.seed = seed, .horizon = horizon, .noisy = noisy};
  const Direction dir = parse_direction(direction);
  std::shared_ptr<const ParametricModel> user_model;
  if (!model.is_none()) user_model = make_python_model(model, space.dim());
  OptimizerPtr optimizer;
  {
    py::gil_scoped_release release;  // GO-UCB checks a model's gradients here; its Python calls take the GIL back
    optimizer = user_model ? OptimizerPtr(make_go_ucb(spec, space, dir, context, user_model))
                           : OptimizerPtr(make_optimizer(spec, space, dir, context));
  }
  return py::make_tuple(optimizer, from_json(resolved));
}

py::list trial_list(const std::vector<Trial>& trials) {
  py::list out;
  for (const auto& t : trials) out.append(py::cast(t));
  return out;
}

// The history as numpy arrays: ids, user points (rows), values (NaN when failed), failed flags, errors.
py::dict history_arrays(const Optimizer& o) {
  const auto& h = o.history();
  const auto n = static_cast<py::ssize_t>(h.size()), d = static_cast<py::ssize_t>(o.space().dim());
  py::array_t<std::uint64_t> ids(n);
  py::array_t<double> x({n, d}), values(n);
  py::array_t<bool> failed(n);
  py::list errors;
  auto ids_m = ids.mutable_unchecked<1>();
  auto x_m = x.mutable_unchecked<2>();
  auto v_m = values.mutable_unchecked<1>();
  auto f_m = failed.mutable_unchecked<1>();
  for (py::ssize_t k = 0; k < n; ++k) {
    const Observation& obs = h[static_cast<std::size_t>(k)];
    ids_m(k) = obs.trial.id;
    for (py::ssize_t j = 0; j < d; ++j) x_m(k, j) = obs.trial.x[j];
    v_m(k) = obs.failed ? std::numeric_limits<double>::quiet_NaN() : obs.value;
    f_m(k) = obs.failed;
    errors.append(obs.failed ? py::object(py::str(obs.error)) : py::object(py::none()));
  }
  py::dict out;
  out["id"] = ids;
  out["x"] = x;
  out["y"] = values;
  out["failed"] = failed;
  out["error"] = errors;
  return out;
}

py::list algorithm_list() {
  py::list out;
  for (const auto& a : algorithms()) {
    py::list options;
    for (const auto& o : a.options) {
      py::dict d;
      d["key"] = o.key;
      d["default"] = from_json(o.default_value);
      d["help"] = o.help;
      d["allowed"] = o.allowed;
      options.append(d);
    }
    py::dict d;
    d["name"] = a.name;
    d["family"] = a.family;
    d["summary"] = a.summary;
    d["batch"] = a.batch;
    d["options"] = options;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_optimizer(py::module_& m) {
  py::class_<Trial>(m, "_Trial", "A point handed out by ask().")
      .def_readonly("id", &Trial::id)
      .def_readonly("x", &Trial::x)
      .def_readonly("unit", &Trial::unit)
      // A trial sent to another process (a Dask task, a process pool) and back: id and point.
      .def(py::pickle([](const Trial& t) { return py::make_tuple(t.id, t.x, t.unit); },
                      [](const py::tuple& s) {
                        if (s.size() != 3) throw std::invalid_argument("a pickled trial has 3 fields, got " + std::to_string(s.size()));
                        Trial t;
                        t.id = s[0].cast<std::uint64_t>();
                        t.x = s[1].cast<Vector>();
                        t.unit = s[2].cast<Vector>();
                        return t;
                      }));

  py::class_<Optimizer, OptimizerPtr>(m, "_Optimizer", "Ask/tell optimizer (C++ optimist::Optimizer).")
      .def_property_readonly("name", &Optimizer::name)
      .def_property_readonly("seed", &Optimizer::seed)
      .def_property_readonly("horizon", &Optimizer::horizon)
      .def_property_readonly("noisy", &Optimizer::noisy)
      .def_property_readonly("exhausted", &Optimizer::exhausted)
      .def_property_readonly("remaining_points", &Optimizer::remaining_points)
      .def_property_readonly("distinct_evaluated", &Optimizer::distinct_evaluated)
      .def_property_readonly("direction", [](const Optimizer& o) { return to_string(o.direction()); })
      .def_property_readonly("space", [](const Optimizer& o) { return o.space(); })
      .def_property_readonly("supports_batch", &Optimizer::supports_batch)
      .def_property_readonly("n_successful", &Optimizer::n_successful)
      .def_property_readonly("n_told", [](const Optimizer& o) { return o.history().size(); })
      .def("ask", [](Optimizer& o, std::size_t n) { return o.ask(n); }, py::arg("n") = 1,
           py::call_guard<py::gil_scoped_release>())
      .def("tell", py::overload_cast<const Trial&, double>(&Optimizer::tell), py::arg("trial"), py::arg("value"),
           py::call_guard<py::gil_scoped_release>())
      .def("tell_point", py::overload_cast<const Vector&, double>(&Optimizer::tell), py::arg("x"), py::arg("value"),
           py::call_guard<py::gil_scoped_release>())
      .def("tell_failed", py::overload_cast<const Trial&, const std::string&>(&Optimizer::tell_failed),
           py::arg("trial"), py::arg("error"), py::call_guard<py::gil_scoped_release>())
      .def("tell_failed_point", py::overload_cast<const Vector&, const std::string&>(&Optimizer::tell_failed),
           py::arg("x"), py::arg("error"), py::call_guard<py::gil_scoped_release>())
      .def("withdraw", &Optimizer::withdraw, py::arg("trial"), py::call_guard<py::gil_scoped_release>())
      .def("add_pending", &Optimizer::add_pending, py::arg("x"), py::call_guard<py::gil_scoped_release>())
      .def("recommend", &Optimizer::recommend, py::call_guard<py::gil_scoped_release>())
      .def("pending", [](const Optimizer& o) { return trial_list(o.pending()); })
      .def("best", [](const Optimizer& o) -> py::object {
        const Observation* b = o.best();
        if (!b) return py::none();
        return py::make_tuple(b->trial, b->value);
      })
      .def("history", &history_arrays)
      .def("diagnostics", [](const Optimizer& o) { return from_json(o.diagnostics()); })
      .def("decisions", [](const Optimizer& o) { return from_json(o.decisions()); });

  m.def("_create_optimizer", &create_optimizer, py::arg("algorithm"), py::arg("options"), py::arg("space"),
        py::arg("direction"), py::arg("seed"), py::arg("horizon"), py::arg("model"), py::arg("noisy") = false);
  m.def("_algorithms", &algorithm_list, "Every registered algorithm with its options, defaults and help.");
  m.def("_resolve_options", [](py::dict spec) { return from_json(resolve_options(to_json(spec, "options"))); },
        py::arg("spec"));
}

}  // namespace optimist::python
