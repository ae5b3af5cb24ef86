// A ParametricModel f_w(x) written in Python (for GO-UCB): an object with n_params and batched
// numpy methods value(w, X), grad_w(w, X), grad_x(w, X) over the rows of X (unit-cube points).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist::python {

/// Wraps `model` (the GIL must be held). Throws ValueError when a method is missing or n_params is
/// not a positive integer. Every call into Python takes the GIL, so GO-UCB may run with it released.
std::shared_ptr<const ParametricModel> make_python_model(pybind11::object model, std::size_t input_dim);

}  // namespace optimist::python
