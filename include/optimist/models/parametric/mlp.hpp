// Fully connected network with a scalar linear output, with analytic gradients.
// The paper's model (Liu & Wang, ICML 2023, section 6) is f(x) = linear2(sigmoid(linear1(x)))
// with 25 hidden units: Mlp::paper_model(d_x), d_w = 25 d_x + 51.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "optimist/core/enum_names.hpp"
#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// Hidden-layer nonlinearity.
enum class Activation { Sigmoid, Tanh, Relu, Softplus };
inline constexpr EnumNames<Activation, 4> kActivationNames{{{{Activation::Sigmoid, "sigmoid"},
                                                             {Activation::Tanh, "tanh"},
                                                             {Activation::Relu, "relu"},
                                                             {Activation::Softplus, "softplus"}}}};

/// "sigmoid", "tanh", "relu", "softplus".
std::string to_string(Activation a);
/// Parses one of the names above (case-insensitive); otherwise throws InvalidArgument listing them.
Activation parse_activation(const std::string& name);

/// f_w(x) = u . a_L + c,  a_l = act(W_l a_{l-1} + b_l),  a_0 = x.
///
/// Parameter layout of w (the same order as PyTorch's parameters_to_vector on a Sequential of
/// nn.Linear layers): for each hidden layer l = 1..L with n_l units and n_{l-1} inputs, W_l
/// (n_l x n_{l-1}) row-major, then b_l (n_l); then the output weights u (n_L), then the output
/// bias c. For one hidden layer of H units: d_w = H d_x + H + H + 1.
///
/// gradient_w, gradient_x and mixed_product are analytic (backpropagation; mixed_product is
/// reverse-over-forward: a tangent pass in w along v, then its adjoint in x). values and
/// jacobian_w process all points at once with matrix products.
class Mlp : public ParametricModel {
 public:
  /// Throws InvalidArgument if input_dim is 0, hidden is empty or a layer has 0 units.
  explicit Mlp(std::size_t input_dim, std::vector<std::size_t> hidden = {25},
               Activation activation = Activation::Sigmoid);

  /// The GO-UCB paper's model: one hidden layer of 25 sigmoid units, d_w = 25 d_x + 51.
  static Mlp paper_model(std::size_t input_dim);
  /// d_w of an Mlp with these sizes (no validation beyond arithmetic).
  static std::size_t count_params(std::size_t input_dim, const std::vector<std::size_t>& hidden);

  const std::vector<std::size_t>& hidden_sizes() const { return hidden_; }
  Activation activation() const { return activation_; }

  std::size_t input_dim() const override { return input_dim_; }
  std::size_t num_params() const override { return num_params_; }
  std::string describe() const override;

  double value(const Vector& w, const Vector& x) const override;
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override;
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override;
  Vector values(const Vector& w, const Matrix& X) const override;
  Matrix jacobian_w(const Vector& w, const Matrix& X) const override;
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override;

  /// Glorot/Xavier uniform weights, W_l ~ U(-r, r) with r = sqrt(6 / (fan_in + fan_out)) (the
  /// output layer has fan_out 1), and small biases ~ U(-0.1, 0.1).
  Vector sample_params(Rng& rng) const override;

 private:
  struct Layer {
    Eigen::Index in = 0, out = 0;        // n_{l-1}, n_l
    Eigen::Index weights = 0, bias = 0;  // offsets into w
  };

  // Per-point passes (a[0] = x, a[l+1] = act(z_l), d1[l] = act'(z_l)); return f.
  double forward(const Vector& w, const Vector& x, std::vector<Vector>& a, std::vector<Vector>* d1) const;
  // Batched pass, one row per point: A[0] = X^T (n x d_x), A[l+1] = act(Z_l), D[l] = act'(Z_l).
  Vector forward_batch(const Vector& w, const Matrix& X, std::vector<Matrix>& A, std::vector<Matrix>* D) const;
  void check_batch_finite(const Vector& f, const Vector& w, const Matrix& X, const char* where) const;

  std::size_t input_dim_;
  std::vector<std::size_t> hidden_;
  Activation activation_;
  std::vector<Layer> layers_;
  Eigen::Index output_weights_ = 0, output_bias_ = 0;
  std::size_t num_params_ = 0;
};

}  // namespace optimist
