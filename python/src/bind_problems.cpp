// Benchmark problems for Python (optimist/problems.py wraps them).
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/experiment/run_setup.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::python {

namespace {


py::list problem_list() {
  py::list out;
  for (const auto& p : problems()) {
    py::dict d;
    d["name"] = p.name;
    d["summary"] = p.summary;
    d["min_dim"] = p.min_dim;
    d["max_dim"] = p.any_dim() ? py::object(py::none()) : py::object(py::int_(p.max_dim));
    d["default_dim"] = p.default_dim;
    d["domain"] = p.domain;
    d["direction"] = to_string(p.direction);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_problems(py::module_& m) {
  py::class_<Objective>(m, "_Objective", "A problem's observed value: f plus seeded Gaussian noise (callable).")
      .def("__call__", [](const Objective& o, const Vector& x) { return o.function(x); }, py::arg("x"),
           py::call_guard<py::gil_scoped_release>());

  py::class_<Problem>(m, "_Problem", "A benchmark function instantiated in one dimension (C++ optimist::Problem).")
      .def_readonly("name", &Problem::name)
      .def_readonly("dim", &Problem::dim)
      .def_readonly("space", &Problem::space)
      .def_readonly("f_star", &Problem::f_star)
      .def_readonly("argmax", &Problem::argmax)
      .def_property_readonly("direction", [](const Problem& p) { return to_string(p.direction); })
      .def_property_readonly("has_function", [](const Problem& p) { return static_cast<bool>(p.f); })
      .def(
          "f",
          [](const Problem& p, const Vector& x) {
            p.space.validate(x);  // ValueError naming the coordinate, never an out-of-range read
            py::gil_scoped_release release;
            return p.f(x);
          },
          py::arg("x"), "Noise-free value at a point of the space.")
      .def(
          "objective",
          [](const Problem& p, double noise_sd, std::uint64_t noise_seed, std::size_t first_draw) {
            Objective o = p.objective(noise_sd, noise_seed, first_draw);
            o.function = [f = std::move(o.function), space = p.space](const Vector& x) {
              space.validate(x);
              return f(x);
            };
            return o;
          },
          py::arg("noise_sd"), py::arg("noise_seed"), py::arg("first_draw") = 0);

  m.def("_make_problem", &make_problem, py::arg("name"), py::arg("dim") = 0);
  m.def("_problems", &problem_list, "Every built-in problem: name, summary, dimensions, domain, direction.");
  m.def(
      "_user_problem",
      [](const std::string& name, const Space& space, const std::string& direction, std::optional<double> f_star) {
        return user_problem(name, space, parse_direction(direction), f_star);
      },
      py::arg("name"), py::arg("space"), py::arg("direction"), py::arg("f_star") = py::none(),
      "A Problem describing your own objective (for the trace's meta line); it has no function.");
  m.def("_noise_seed", [](std::uint64_t seed) { return derive_seed(seed, experiment::kNoiseStream); }, py::arg("seed"),
        "The noise seed `optimist run --seed SEED` uses.");
  m.def("_derive_seed", &derive_seed, py::arg("seed"), py::arg("stream"));
}

}  // namespace optimist::python
