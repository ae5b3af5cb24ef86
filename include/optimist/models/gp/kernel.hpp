// Stationary ARD covariance functions on the unit cube: Matern-5/2, Matern-3/2 and squared
// exponential, k(x, x') = s * rho(r^2) with r^2 = sum_i ((x_i - x'_i) / l_i)^2
// (Rasmussen & Williams, eqs. 4.9 and 4.17). One enum-dispatched class, no templates, so GP models
// and BKB can share it and pick the type at run time.
//
// Categorical inputs. A dimension declared categorical with k categories (set_categories) holds a
// unit-cube coordinate whose interval index floor(u k) is the category; it enters r^2 as
// w_k [c != c'] / l_i^2 with one lengthscale per parameter. w_k = 1 is the overlap (Hamming)
// distance of the CoCaBO/Casmopolitan kernels (Ru et al. 2020, eq. 3; Wan et al. 2021, eq. 2) with a
// Matern profile; the default w_k = k / (6 (k - 1)) (CategoryDistance::Matched) gives two uniform
// random choices the expected w_k (k - 1) / k = 1/6 of an ordered unit-cube dimension's
// E (u - u')^2, so a lengthscale and its prior mean the same in both kinds of dimension. Either
// equals the kernel on a one-hot encoding of the parameter scaled by sqrt(w_k / 2) with one shared
// lengthscale (||e_c - e_c'||^2 / 2 = [c != c']), so the kernel stays positive semi-definite (a
// stationary kernel of Euclidean distances on an embedding). Its x-gradient is 0 in a categorical
// dimension (the value is piecewise constant).
//
// Rotated inputs. An orthogonal matrix Q (set_rotation) makes the lengthscales those of the axes
// of z = Q x: r^2 = sum_i ((Q (x - x'))_i / l_i)^2, an ARD kernel whose axes need not be the
// parameters' (a ridge along a diagonal gets a long lengthscale along it). Ordered inputs only.
#pragma once

#include <string>
#include <vector>

#include "optimist/core/enum_names.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

enum class KernelType { Matern52, Matern32, SquaredExponential };
/// The names of the kernels as options (GP-BO, TuRBO).
inline constexpr EnumNames<KernelType, 3> kKernelTypeNames{
    {{{KernelType::Matern52, "matern52"}, {KernelType::Matern32, "matern32"}, {KernelType::SquaredExponential, "rbf"}}}};

/// How far apart two different categories of a categorical input are (see the top of this file).
enum class CategoryDistance {
  Matched,  ///< w_k = k / (6 (k - 1)): two random choices as far apart as two random points of [0, 1]
  Overlap,  ///< w_k = 1: the overlap distance (the recipe before stop 86)
};
inline constexpr EnumNames<CategoryDistance, 2> kCategoryDistanceNames{
    {{{CategoryDistance::Matched, "matched"}, {CategoryDistance::Overlap, "overlap"}}}};
/// w_k of a categorical with k >= 2 categories (k = 1: 1).
double category_weight(std::size_t k, CategoryDistance distance);

/// "matern52", "matern32", "rbf" (alias "se"). Case-sensitive; throws InvalidArgument listing the
/// valid names.
KernelType parse_kernel_type(const std::string& name);
/// "matern52", "matern32", "rbf".
std::string to_string(KernelType type);

/// Points are columns. Hyperparameters: one lengthscale per input dimension and an outputscale
/// s = k(x, x) (the prior variance). Their log-space vector is [log l_1, ..., log l_d, log s].
class Kernel {
 public:
  /// Lengthscales 1, outputscale 1.
  explicit Kernel(Eigen::Index dim, KernelType type = KernelType::Matern52);
  /// Contract: lengthscales non-empty, all > 0; outputscale > 0; categories empty or one entry per
  /// dimension (else InvalidArgument).
  Kernel(KernelType type, const Vector& lengthscales, double outputscale = 1.0,
         const std::vector<std::size_t>& categories = {}, CategoryDistance distance = CategoryDistance::Matched);

  KernelType type() const { return type_; }
  Eigen::Index dim() const { return lengthscales_.size(); }
  const Vector& lengthscales() const { return lengthscales_; }
  double outputscale() const { return outputscale_; }
  void set_lengthscales(const Vector& lengthscales);
  void set_outputscale(double outputscale);
  /// Per dimension: its number of categories for a categorical input, 0 for an ordered one
  /// (continuous or integer); empty: every input ordered. Contract: empty or dim() entries.
  void set_categories(const std::vector<std::size_t>& categories, CategoryDistance distance = CategoryDistance::Matched);
  const std::vector<std::size_t>& categories() const { return categories_; }
  bool has_categorical() const { return has_categorical_; }
  CategoryDistance category_distance() const { return category_distance_; }
  /// The rotation Q of the inputs (see the top of this file); empty: none (the parameters' axes).
  /// Contract: empty, or dim() x dim() orthogonal (within 1e-8) with no categorical input (else
  /// InvalidArgument).
  void set_rotation(const Matrix& rotation);
  const Matrix& rotation() const { return rotation_; }
  bool has_rotation() const { return rotation_.size() > 0; }
  /// sqrt(r^2) between two points: their distance in lengthscales.
  double scaled_distance(const Vector& a, const Vector& b) const;
  /// The inputs as the points whose squared Euclidean distances are r^2 (columns): x_i / l_i for
  /// an ordered dimension ((Q x)_i / l_i with a rotation), the one-hot vector of the category times sqrt(w_k / 2) / l_i for a categorical one.
  Matrix embed(const Matrix& X) const;

  /// d + 1.
  Eigen::Index num_hyperparameters() const { return dim() + 1; }
  Vector log_hyperparameters() const;
  void set_log_hyperparameters(const Vector& log_params);

  /// k(x, x').
  double operator()(const Vector& x1, const Vector& x2) const;
  /// k(x, x) for every x (stationarity).
  double variance() const { return outputscale_; }
  /// K_ij = k(X1.col(i), X2.col(j)).
  Matrix cross(const Matrix& X1, const Matrix& X2) const;
  /// The same into K, which must be X1.cols() x X2.cols() (a caller's reused buffer).
  void cross(const Matrix& X1, const Matrix& X2, Eigen::Ref<Matrix> K) const;
  /// cross() for large batches: squared distances by one matrix product (|a|^2 + |b|^2 - 2 a.b
  /// after centring, clamped at 0) instead of a difference per pair. Within ~1e-13 of cross()
  /// (every profile is smooth in r^2 at 0); timing in bench/bench_gp.cpp, BM_KernelCross.
  Matrix cross_fast(const Matrix& X1, const Matrix& X2) const;
  /// The same into K, as cross().
  void cross_fast(const Matrix& X1, const Matrix& X2, Eigen::Ref<Matrix> K) const;
  /// K_ij = k(X.col(i), X.col(j)), symmetric, exact diagonal s.
  Matrix gram(const Matrix& X) const;

  /// d k(x, x') / d x.
  Vector gradient_x(const Vector& x, const Vector& x2) const;
  /// k_j = k(x, X.col(j)); if jac is non-null, column j of *jac (d x n) is d k_j / d x.
  Vector cross_with_gradient(const Vector& x, const Matrix& X, Matrix* jac) const;

  /// dK/d(log theta_p) for p = 0..d (lengthscales, then outputscale). Forms d+1 dense n x n
  /// matrices: meant for tests and small n; the GP fit uses gram_gradient_contract.
  std::vector<Matrix> gram_gradients(const Matrix& X) const;
  /// g_p = sum_ij W_ij dK_ij / d(log theta_p) for symmetric W, in O(d n^2) time without forming
  /// the derivative matrices. With W = alpha alpha^T - K^-1 this is twice the log marginal
  /// likelihood gradient (R&W eq. 5.9).
  Vector gram_gradient_contract(const Matrix& X, const Matrix& W) const;

  // Building blocks for the marginal-likelihood gradient (hyperparameter_fit.cpp).

  /// K = gram(X) and, if dK_dr2 is non-null, the elementwise derivative of K with respect to the
  /// squared scaled distance r^2_ij.
  void gram_with_derivative(const Matrix& X, Matrix& K, Matrix* dK_dr2) const;
  /// Given M = W o dK/dr^2 (symmetric), returns sum_ij M_ij d r^2_ij / d(log l_p) for every p.
  Vector lengthscale_contract(const Matrix& X, const Matrix& M) const;

  /// rho(r^2) with rho(0) = 1, and if drho is non-null, d rho / d r^2 (finite at r = 0 for all
  /// three kernels, so gradients at coincident points are well defined).
  double profile(double r2, double* drho) const;

 private:
  KernelType type_;
  Vector lengthscales_;
  Vector inv_sq_lengthscales_;  // 1 / l_i^2, cached
  double outputscale_ = 1.0;
  std::vector<std::size_t> categories_;
  Vector category_weights_;  // w_k per dimension (0 for an ordered one); empty: no categorical
  CategoryDistance category_distance_ = CategoryDistance::Matched;
  bool has_categorical_ = false;
  Matrix rotation_;  // empty: none
  /// Q X with a rotation, else a copy of X (O(d n), next to the O(n^2) work of its callers).
  Matrix rotated(const Matrix& X) const { return has_rotation() ? Matrix(rotation_ * X) : X; }
  std::size_t category(std::size_t i, double u) const;
  /// r^2 between two points (the categorical form).
  double squared_distance(const Vector& a, const Vector& b) const;
};

}  // namespace optimist
