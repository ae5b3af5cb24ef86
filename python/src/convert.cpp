// Python objects <-> nlohmann::json: algorithm options, spaces and trace lines cross the boundary as JSON.
#include <pybind11/numpy.h>

#include "bindings.hpp"

namespace optimist::python {

nlohmann::json to_json(py::handle value, const std::string& what) {
  if (value.is_none()) return nullptr;
  const std::string type_name = py::str(py::type::of(value).attr("__name__")).cast<std::string>();
  // bool before int: Python's bool is an int subclass; numpy.bool_ is neither.
  if (py::isinstance<py::bool_>(value) || type_name == "bool_") return value.cast<bool>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k))
        throw py::type_error(what + ": keys must be strings, got " + py::repr(k).cast<std::string>());
      const std::string key = k.cast<std::string>();
      j[key] = to_json(v, what + "['" + key + "']");
    }
    return j;
  }
  if (py::isinstance<py::array>(value)) return to_json(value.attr("tolist")(), what);
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json j = nlohmann::json::array();
    std::size_t k = 0;
    for (const auto& v : value) j.push_back(to_json(v, what + "[" + std::to_string(k++) + "]"));
    return j;
  }
  if (PyIndex_Check(value.ptr())) {  // int and numpy integers
    const auto i = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    if (!i) throw py::error_already_set();
    if (i < py::int_(0)) return i.cast<long long>();
    return i.cast<unsigned long long>();
  }
  if (PyFloat_Check(value.ptr()) || py::hasattr(value, "__float__")) return value.cast<double>();  // float, numpy floats
  throw py::type_error(what + ": expected a number, string, bool, None, list or dict, got " +
                       py::repr(value).cast<std::string>() + " of type " + type_name);
}

py::object from_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& v : j) l.append(from_json(v));
      return l;
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = from_json(v);
      return d;
    }
    default: return py::none();
  }
}

}  // namespace optimist::python
