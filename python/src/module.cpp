// optimist._optimist: the compiled half of the Python package (the other half is optimist/*.py).
// Long C++ work (ask, tell, fits) runs with the GIL released; Python callbacks take it back.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/core/types.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_optimist, m) {
  m.doc() = "optimist's C++ core (use the package optimist, not this module directly)";
  m.attr("__version__") = optimist::version();
  m.attr("__revision__") = optimist::revision();  // the git commit it was built from (a trace's meta "revision")
  // Bad input raises ValueError with the library's message (it names the value and what is allowed).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const optimist::InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  py::register_exception<optimist::SpaceExhausted>(m, "SpaceExhausted", PyExc_RuntimeError)
      .attr("__doc__") =
      "ask() on a deterministic objective when every point of a finite space has been evaluated or is pending.";
  py::register_exception<optimist::NumericalError>(m, "NumericalError", PyExc_ArithmeticError)
      .attr("__doc__") = "A numerical routine of optimist cannot continue (e.g. a model returned NaN).";
  m.def("_json_roundtrip", [](py::handle v) { return optimist::python::from_json(optimist::python::to_json(v)); },
        "Converts a value to JSON and back (tests the option conversion).");
  optimist::python::bind_space(m);
  optimist::python::bind_optimizer(m);
  optimist::python::bind_problems(m);
  optimist::python::bind_run(m);
  optimist::python::bind_model(m);
  optimist::python::bind_study(m);
}
