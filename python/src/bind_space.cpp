// optimist::Space for Python: optimist/space.py builds it from Float/Int/Categorical and bounds lists.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/trace.hpp"  // space_difference

namespace optimist::python {

void bind_space(py::module_& m) {
  py::class_<Space>(m, "_Space", "Ordered named parameters and the map to and from the unit cube (C++ optimist::Space).")
      .def(py::init<>())
      .def("add_continuous", &Space::add_continuous, py::arg("name"), py::arg("lower"), py::arg("upper"),
           py::arg("log") = false, py::return_value_policy::reference_internal)
      .def("add_integer", &Space::add_integer, py::arg("name"), py::arg("lower"), py::arg("upper"),
           py::arg("log") = false, py::return_value_policy::reference_internal)
      .def("add_categorical", &Space::add_categorical, py::arg("name"), py::arg("choices"),
           py::return_value_policy::reference_internal)
      .def("add_condition", &Space::add_condition, py::arg("child"), py::arg("parent"), py::arg("values"),
           py::return_value_policy::reference_internal)
      .def_property_readonly("has_conditions", &Space::has_conditions)
      .def("active", &Space::active, py::arg("x"), "Per parameter, whether it is active at user point x.")
      .def("canonical", &Space::canonical, py::arg("x"), "x with inactive parameters at their fixed values (validated).")
      .def_property_readonly("dim", &Space::dim)
      .def("index_of", &Space::index_of, py::arg("name"))
      .def("to_user", &Space::to_user, py::arg("unit"), "Unit-cube point -> user point (clamped into [0,1] first).")
      .def("to_unit", &Space::to_unit, py::arg("x"), "User point -> unit-cube point; ValueError outside the space.")
      .def("validate", &Space::validate, py::arg("x"), "ValueError naming the parameter when x is not a point of the space.")
      .def("snap_unit", &Space::snap_unit, py::arg("unit"))
      .def("to_json", [](const Space& s) { return from_json(s.to_json()); })
      .def("difference", [](const Space& there, const Space& here) { return space_difference(there.to_json(), here.to_json()); },
           py::arg("here"), "What differs, parameter by parameter ('x' is ... there, ... here); empty when equal.")
      .def_static("from_json", [](py::handle j) { return Space::from_json(to_json(j, "space")); }, py::arg("json"))
      .def("__eq__", [](const Space& a, const Space& b) { return a.to_json() == b.to_json(); })
      .def("__repr__", [](const Space& s) { return "_Space(" + s.to_json().dump() + ")"; });
}

}  // namespace optimist::python
