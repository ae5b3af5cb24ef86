// Shared declarations of the pybind11 extension optimist._optimist (one bind_* per concern).
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

namespace optimist::python {

namespace py = pybind11;

/// Python value (None, bool, int, float, str, list/tuple, dict with str keys, numpy scalars and
/// arrays) as JSON; TypeError naming `what` and the Python type otherwise.
nlohmann::json to_json(py::handle value, const std::string& what = "value");
/// JSON as plain Python objects.
py::object from_json(const nlohmann::json& j);

void bind_space(py::module_& m);
void bind_optimizer(py::module_& m);
void bind_problems(py::module_& m);
void bind_run(py::module_& m);
void bind_model(py::module_& m);
void bind_study(py::module_& m);

}  // namespace optimist::python
