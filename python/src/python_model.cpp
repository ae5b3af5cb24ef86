#include "python_model.hpp"

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>

#include <sstream>

#include "bindings.hpp"
#include "optimist/models/parametric/gradient_check.hpp"

namespace optimist::python {

namespace {

std::string shape_of(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k) s += (k ? ", " : "") + std::to_string(a.shape(k));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

class PythonModel final : public ParametricModel {
 public:
  PythonModel(py::object model, std::size_t input_dim) : input_dim_(input_dim) {
    const std::string type = py::str(py::type::of(model).attr("__name__")).cast<std::string>();
    name_ = py::hasattr(model, "name") ? py::str(model.attr("name")).cast<std::string>() : type;
    const char* count = py::hasattr(model, "n_params") ? "n_params" : "num_params";
    if (!py::hasattr(model, count)) throw InvalidArgument("model " + name_ + ": needs an attribute n_params (the number of parameters w)");
    const py::object n = model.attr(count);
    if (!PyIndex_Check(n.ptr()) || n.cast<long long>() < 1)
      throw InvalidArgument("model " + name_ + ": n_params must be a positive integer, got " + py::repr(n).cast<std::string>());
    num_params_ = n.cast<std::size_t>();
    for (const char* method : {"value", "grad_w", "grad_x"})
      if (!py::hasattr(model, method) || !PyCallable_Check(model.attr(method).ptr()))
        throw InvalidArgument("model " + name_ + ": needs a method " + method + "(w, X) (X: one unit-cube point per row)");
    value_ = model.attr("value");
    grad_w_ = model.attr("grad_w");
    grad_x_ = model.attr("grad_x");
    if (py::hasattr(model, "sample_params")) sample_ = model.attr("sample_params");
    model_ = std::move(model);
  }

  ~PythonModel() override {
    py::gil_scoped_acquire gil;  // the optimizer may be destroyed by C++ code without it
    for (py::object* o : {&model_, &value_, &grad_w_, &grad_x_, &sample_}) *o = py::object();
  }

  std::size_t input_dim() const override { return input_dim_; }
  std::size_t num_params() const override { return num_params_; }
  std::string derivatives_to_fix() const override {
    return "grad_w / grad_x of the model (optimist.check_gradients(model, dim) compares them with finite differences)";
  }
  std::string describe() const override {
    return name_ + "(python, d_x=" + std::to_string(input_dim_) + ", d_w=" + std::to_string(num_params_) + ")";
  }

  double value(const Vector& w, const Vector& x) const override {
    check_params(w, "value");
    check_point(x, "value");
    const double f = call(value_, "value", w, x, 0)(0, 0);
    check_finite(f, w, x, "value");
    return f;
  }
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override {
    return value_and_row(grad_w_, "grad_w", w, x, num_params_, grad);
  }
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    return value_and_row(grad_x_, "grad_x", w, x, input_dim_, grad);
  }
  Vector values(const Vector& w, const Matrix& X) const override {
    check_params(w, "values");
    check_points(X, "values");
    Vector f = call(value_, "value", w, X, 0).col(0);
    for (Eigen::Index k = 0; k < f.size(); ++k) check_finite(f[k], w, X.col(k), "value");
    return f;
  }
  Matrix jacobian_w(const Vector& w, const Matrix& X) const override {
    check_params(w, "jacobian_w");
    check_points(X, "jacobian_w");
    Matrix J = call(grad_w_, "grad_w", w, X, num_params_);
    check_derivative(J, w, X, "grad_w");
    return J;
  }
  Vector sample_params(Rng& rng) const override {
    const auto n = static_cast<Eigen::Index>(num_params_);
    if (!sample_) return rng.normal_vector(n);
    const std::uint64_t seed = rng.next_u64();
    py::gil_scoped_acquire gil;
    const py::object generator = py::module_::import("numpy.random").attr("default_rng")(seed);
    const auto w = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(sample_(generator));
    if (!w || w.ndim() != 1 || w.shape(0) != n)
      throw InvalidArgument("model " + name_ + ": sample_params(rng) must return " + std::to_string(n) + " numbers, got " +
                            (w ? shape_of(w) : std::string("a non-array")));
    return Eigen::Map<const Vector>(w.data(), n);
  }

 private:
  // One batched call fn(w, X) with X's columns as rows of an (n, d_x) array; the answer as an
  // n x cols matrix (cols == 0: a vector of n values, returned as one column).
  Matrix call(const py::object& fn, const char* method, const Vector& w, const Matrix& X, std::size_t cols) const {
    py::gil_scoped_acquire gil;
    const auto n = X.cols(), d = X.rows();
    // A column-major d x n matrix is an (n, d) row-major array: one point per row.
    py::array_t<double> w_arr(w.size(), w.data()), X_arr({n, d}, X.data());
    const py::object out = fn(w_arr, X_arr);
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(out);
    const bool ok = a && (cols == 0 ? (a.ndim() == 1 && a.shape(0) == n)
                                    : (a.ndim() == 2 && a.shape(0) == n && a.shape(1) == static_cast<py::ssize_t>(cols)));
    if (!ok) {
      std::ostringstream os;
      os << "model " << name_ << ": " << method << "(w, X) with X of shape (" << n << ", " << d << ") must return an array of shape ("
         << n << (cols == 0 ? "," : ", " + std::to_string(cols)) << "), got "
         << (a ? shape_of(a) : py::repr(out).cast<std::string>());
      throw InvalidArgument(os.str());
    }
    Matrix result(n, cols == 0 ? 1 : static_cast<Eigen::Index>(cols));
    for (Eigen::Index i = 0; i < result.rows(); ++i)
      for (Eigen::Index j = 0; j < result.cols(); ++j) result(i, j) = a.data()[i * result.cols() + j];
    return result;
  }

  double value_and_row(const py::object& fn, const char* method, const Vector& w, const Vector& x, std::size_t size,
                       Vector& grad) const {
    const double f = value(w, x);
    const Matrix g = call(fn, method, w, x, size);
    check_derivative(g, w, x, method);
    grad = g.row(0).transpose();
    return f;
  }

  void check_derivative(const Matrix& g, const Vector& w, const Matrix& X, const char* method) const {
    if (g.allFinite()) return;
    throw NumericalError("model " + name_ + ": " + method + " is not finite at x = " +
                         format_vector(X.col(0)) + " with w = " + format_vector(w));
  }

  std::size_t input_dim_, num_params_ = 0;
  std::string name_;
  py::object model_, value_, grad_w_, grad_x_, sample_;
};

}  // namespace

std::shared_ptr<const ParametricModel> make_python_model(py::object model, std::size_t input_dim) {
  return std::make_shared<PythonModel>(std::move(model), input_dim);
}

void bind_model(py::module_& m) {
  m.def(
      "_check_gradients",
      [](py::object model, std::size_t input_dim, const Vector& w, const Vector& x, const Vector& v) {
        const auto adapter = make_python_model(std::move(model), input_dim);
        const GradientCheck c = check_gradients(*adapter, w, x, v);
        py::dict d;
        d["w_error"] = c.w_error;
        d["x_error"] = c.x_error;
        d["mixed_error"] = c.mixed_error;
        d["value_error"] = c.value_error;
        return d;
      },
      py::arg("model"), py::arg("input_dim"), py::arg("w"), py::arg("x"), py::arg("v"));
  m.def(
      "_check_model",
      [](py::object model, std::size_t input_dim, int points, double tolerance, std::uint64_t seed) {
        const auto adapter = make_python_model(std::move(model), input_dim);
        Rng rng(seed);
        check_model_gradients(*adapter, rng, points, tolerance);
      },
      py::arg("model"), py::arg("input_dim"), py::arg("points"), py::arg("tolerance"), py::arg("seed"));
}

}  // namespace optimist::python
