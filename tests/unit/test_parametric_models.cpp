// The GO-UCB model layer: Mlp (analytic gradients, batched evaluation) and AutodiffModel (gradients
// of a templated user function), checked against central finite differences and each other.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "../../examples/custom_model/arrhenius_model.hpp"
#include "optimist/models/parametric/autodiff_model.hpp"
#include "optimist/models/parametric/gradient_check.hpp"
#include "optimist/models/parametric/mlp.hpp"

using namespace optimist;

namespace {

// Central difference with step cbrt(eps) * max(1, |t|): truncation O(h^2) and rounding O(eps/h)
// balance there, leaving a relative error of about 1e-10 on smooth functions.
template <class G>
Vector fd_gradient(G g, const Vector& at) {
  Vector out(at.size());
  for (Eigen::Index i = 0; i < at.size(); ++i) {
    const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(at[i]));
    Vector p = at, m = at;
    p[i] += h;
    m[i] -= h;
    out[i] = (g(p) - g(m)) / (2.0 * h);
  }
  return out;
}

double rel_error(const Vector& got, const Vector& want) {
  const double scale = std::max({got.norm(), want.norm(), 1e-12});
  return (got - want).norm() / scale;
}

double rel_error(const Matrix& got, const Matrix& want) {
  const double scale = std::max({got.norm(), want.norm(), 1e-12});
  return (got - want).norm() / scale;
}

double sigmoid(double t) { return 1.0 / (1.0 + std::exp(-t)); }

constexpr double kFdTolerance = 1e-6;
// Batched vs per-point and Mlp vs the same network under autodiff: the same arithmetic up to the
// order of summation, so agreement to a few ulps of the result's scale.
constexpr double kSameTolerance = 1e-12;

// Parameters with some weight on the nonlinearity: Glorot draws, scaled up so that units also
// reach the saturated and (for relu) inactive regimes.
Vector test_params(const ParametricModel& m, std::uint64_t seed) {
  Rng rng(seed);
  return 2.0 * m.sample_params(rng);
}

Matrix test_points(std::size_t d, Eigen::Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix X(static_cast<Eigen::Index>(d), n);
  for (Eigen::Index i = 0; i < n; ++i) X.col(i) = rng.uniform_vector(X.rows());
  return X;
}

// ---- Mlp, for every activation and two architectures ----

using MlpCase = std::tuple<Activation, std::vector<std::size_t>>;

class MlpGradients : public ::testing::TestWithParam<MlpCase> {
 protected:
  static constexpr std::size_t kInputs = 4;
  Mlp model() const { return Mlp(kInputs, std::get<1>(GetParam()), std::get<0>(GetParam())); }
};

std::string case_name(const ::testing::TestParamInfo<MlpCase>& info) {
  std::string name = to_string(std::get<0>(info.param));
  for (std::size_t h : std::get<1>(info.param)) {
    name += '_';  // (not "_" + std::to_string(h): a GCC 12 -Wrestrict false positive)
    name += std::to_string(h);
  }
  return name;
}

}  // namespace

TEST_P(MlpGradients, GradientWMatchesFiniteDifferences) {
  const Mlp m = model();
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const Vector w = test_params(m, seed);
    const Vector x = test_points(kInputs, 1, 100 + seed).col(0);
    Vector g;
    const double f = m.gradient_w(w, x, g);
    EXPECT_DOUBLE_EQ(f, m.value(w, x));
    ASSERT_EQ(g.size(), static_cast<Eigen::Index>(m.num_params()));
    const Vector fd = fd_gradient([&](const Vector& wp) { return m.value(wp, x); }, w);
    EXPECT_LT(rel_error(g, fd), kFdTolerance) << "seed " << seed;
  }
}

TEST_P(MlpGradients, GradientXMatchesFiniteDifferences) {
  const Mlp m = model();
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const Vector w = test_params(m, seed);
    const Vector x = test_points(kInputs, 1, 200 + seed).col(0);
    Vector g;
    const double f = m.gradient_x(w, x, g);
    EXPECT_DOUBLE_EQ(f, m.value(w, x));
    ASSERT_EQ(g.size(), static_cast<Eigen::Index>(kInputs));
    const Vector fd = fd_gradient([&](const Vector& xp) { return m.value(w, xp); }, x);
    EXPECT_LT(rel_error(g, fd), kFdTolerance) << "seed " << seed;
  }
}

TEST_P(MlpGradients, MixedProductMatchesFiniteDifferences) {
  const Mlp m = model();
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const Vector w = test_params(m, seed);
    const Vector x = test_points(kInputs, 1, 300 + seed).col(0);
    Rng rng(400 + seed);
    const Vector v = rng.normal_vector(w.size());
    Vector gx;
    const double s = m.mixed_product(w, x, v, gx);
    Vector gw;
    m.gradient_w(w, x, gw);
    EXPECT_NEAR(s, gw.dot(v), 1e-12 * std::max(1.0, std::abs(s)));
    // s is the directional derivative of f in w along v ...
    const double h = 1e-5;
    EXPECT_NEAR(s, (m.value(w + h * v, x) - m.value(w - h * v, x)) / (2 * h), 1e-6 * std::max(1.0, std::abs(s)));
    // ... and grad_x its x-gradient.
    const Vector fd = fd_gradient(
        [&](const Vector& xp) {
          Vector g;
          m.gradient_w(w, xp, g);
          return g.dot(v);
        },
        x);
    EXPECT_LT(rel_error(gx, fd), kFdTolerance) << "seed " << seed;
    // The analytic override agrees with the finite-difference default of ParametricModel.
    Vector gx_default;
    const double s_default = m.ParametricModel::mixed_product(w, x, v, gx_default);
    EXPECT_NEAR(s_default, s, 1e-12 * std::max(1.0, std::abs(s)));
    EXPECT_LT(rel_error(gx_default, gx), kFdTolerance) << "seed " << seed;
  }
}

TEST_P(MlpGradients, BatchedEqualsPerPoint) {
  const Mlp m = model();
  const Vector w = test_params(m, 7);
  const Matrix X = test_points(kInputs, 13, 8);
  const Vector f = m.values(w, X);
  const Matrix J = m.jacobian_w(w, X);
  ASSERT_EQ(f.size(), 13);
  ASSERT_EQ(J.rows(), 13);
  ASSERT_EQ(J.cols(), static_cast<Eigen::Index>(m.num_params()));
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    Vector g;
    const double fi = m.gradient_w(w, X.col(i), g);
    EXPECT_NEAR(f[i], fi, kSameTolerance * std::max(1.0, std::abs(fi))) << "point " << i;
    EXPECT_LT(rel_error(Vector(J.row(i).transpose()), g), kSameTolerance) << "point " << i;
  }
  // The loops of the ParametricModel defaults give the same.
  EXPECT_LT(rel_error(m.ParametricModel::values(w, X), f), kSameTolerance);
  EXPECT_LT(rel_error(m.ParametricModel::jacobian_w(w, X), J), kSameTolerance);
  // Zero points: empty results, no error.
  EXPECT_EQ(m.values(w, Matrix(kInputs, 0)).size(), 0);
  EXPECT_EQ(m.jacobian_w(w, Matrix(kInputs, 0)).rows(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    ParametricModels, MlpGradients,
    ::testing::Combine(::testing::Values(Activation::Sigmoid, Activation::Tanh, Activation::Relu, Activation::Softplus),
                       ::testing::Values(std::vector<std::size_t>{25}, std::vector<std::size_t>{7, 5})),
    case_name);

TEST(Mlp, ParameterCountIsTwentyFiveDxPlusFiftyOneForThePaperModel) {
  for (std::size_t d : {1, 2, 5, 20, 100}) {
    EXPECT_EQ(Mlp::paper_model(d).num_params(), 25 * d + 51) << "d_x = " << d;
    EXPECT_EQ(Mlp::count_params(d, {25}), 25 * d + 51);
    EXPECT_EQ(Mlp(d, {7, 5}).num_params(), 7 * d + 7 + 5 * 7 + 5 + 5 + 1);
  }
  EXPECT_EQ(Mlp::paper_model(20).num_params(), 551u);
  EXPECT_EQ(Mlp(100, {50}).num_params(), 5101u);
  const Mlp paper = Mlp::paper_model(3);
  EXPECT_EQ(paper.hidden_sizes(), std::vector<std::size_t>{25});
  EXPECT_EQ(paper.activation(), Activation::Sigmoid);
  EXPECT_EQ(paper.input_dim(), 3u);
}

TEST(Mlp, PaperModelWithAllWeightsOne) {
  // The paper's realizable test function f1: every entry of w1, b1, w2, b2 set to 1 (section 6.1).
  const std::size_t d = 20;
  const Mlp m = Mlp::paper_model(d);
  const Vector w = Vector::Ones(static_cast<Eigen::Index>(m.num_params()));
  const Matrix X = test_points(d, 6, 3);
  const Vector f = m.values(w, X);
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    const double want = 25.0 * sigmoid(X.col(i).sum() + 1.0) + 1.0;
    EXPECT_NEAR(m.value(w, X.col(i)), want, 1e-13 * want);
    EXPECT_NEAR(f[i], want, 1e-13 * want);
  }
}

TEST(Mlp, ParameterLayoutIsRowMajorWeightsThenBiasThenOutput) {
  // d_x = 2, hidden {3}, tanh: w = [W (3x2 row-major), b (3), u (3), c].
  const Mlp m(2, {3}, Activation::Tanh);
  Vector w(13);
  w << 0.1, -0.2, 0.3, 0.4, -0.5, 0.6,  // W rows
      0.01, 0.02, 0.03,                 // b
      1.0, -2.0, 3.0,                   // u
      0.5;                              // c
  const Vector x = (Vector(2) << 0.25, 0.75).finished();
  double want = 0.5;
  const double W[3][2] = {{0.1, -0.2}, {0.3, 0.4}, {-0.5, 0.6}}, b[3] = {0.01, 0.02, 0.03}, u[3] = {1, -2, 3};
  for (int j = 0; j < 3; ++j) want += u[j] * std::tanh(W[j][0] * x[0] + W[j][1] * x[1] + b[j]);
  EXPECT_NEAR(m.value(w, x), want, 1e-15);
  // The weight gradient of unit j, input k sits at j * d_x + k.
  Vector g;
  m.gradient_w(w, x, g);
  const double t1 = std::tanh(W[1][0] * x[0] + W[1][1] * x[1] + b[1]);
  EXPECT_NEAR(g[1 * 2 + 1], u[1] * (1 - t1 * t1) * x[1], 1e-15);
  EXPECT_NEAR(g[6 + 1], u[1] * (1 - t1 * t1), 1e-15);
  EXPECT_NEAR(g[9 + 1], t1, 1e-15);
  EXPECT_EQ(g[12], 1.0);
}

TEST(Mlp, ActivationsStayFiniteAtExtremePreActivations) {
  for (Activation a : {Activation::Sigmoid, Activation::Tanh, Activation::Relu, Activation::Softplus}) {
    const Mlp m(3, {25}, a);
    const Vector w = 1e3 * test_params(m, 1);  // |z| up to ~1e3: exp(|z|) would overflow
    const Matrix X = test_points(3, 5, 2);
    const Vector v = Vector::Ones(w.size());
    for (Eigen::Index i = 0; i < X.cols(); ++i) {
      Vector gw, gx, gm;
      EXPECT_TRUE(std::isfinite(m.gradient_w(w, X.col(i), gw))) << to_string(a);
      m.gradient_x(w, X.col(i), gx);
      m.mixed_product(w, X.col(i), v, gm);
      EXPECT_TRUE(gw.allFinite() && gx.allFinite() && gm.allFinite()) << to_string(a);
    }
    EXPECT_TRUE(m.jacobian_w(w, X).allFinite()) << to_string(a);
  }
  // The sigmoid tail keeps relative precision: sigmoid(-700) ~ 1e-304, not 0.
  const Mlp m(1, {1}, Activation::Sigmoid);
  const Vector w = (Vector(4) << -700.0, 0.0, 1.0, 0.0).finished();
  EXPECT_NEAR(m.value(w, Vector::Ones(1)) / std::exp(-700.0), 1.0, 1e-12);
  // Softplus of a large argument is the argument, of a very negative one exp(z).
  const Mlp sp(1, {1}, Activation::Softplus);
  EXPECT_DOUBLE_EQ(sp.value((Vector(4) << 800.0, 0.0, 1.0, 0.0).finished(), Vector::Ones(1)), 800.0);
  EXPECT_NEAR(sp.value((Vector(4) << -50.0, 0.0, 1.0, 0.0).finished(), Vector::Ones(1)) / std::exp(-50.0), 1.0, 1e-12);
}

TEST(Mlp, SampleParamsIsDeterministicGlorotUniform) {
  const Mlp m(20, {25, 10});
  Rng a(5), b(5), c(6);
  const Vector wa = m.sample_params(a), wb = m.sample_params(b), wc = m.sample_params(c);
  ASSERT_EQ(wa.size(), static_cast<Eigen::Index>(m.num_params()));
  EXPECT_EQ(wa, wb);
  EXPECT_NE(wa, wc);
  // First layer weights within sqrt(6 / (20 + 25)), biases within 0.1.
  EXPECT_LE(wa.head(500).cwiseAbs().maxCoeff(), std::sqrt(6.0 / 45.0));
  EXPECT_GT(wa.head(500).cwiseAbs().maxCoeff(), 0.9 * std::sqrt(6.0 / 45.0));
  EXPECT_LE(wa.segment(500, 25).cwiseAbs().maxCoeff(), 0.1);
}

TEST(Mlp, ActivationNamesRoundTripAndUnknownNamesListTheValidOnes) {
  for (Activation a : {Activation::Sigmoid, Activation::Tanh, Activation::Relu, Activation::Softplus})
    EXPECT_EQ(parse_activation(to_string(a)), a);
  EXPECT_EQ(parse_activation("ReLU"), Activation::Relu);
  try {
    parse_activation("swish");
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("swish"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sigmoid, tanh, relu, softplus"), std::string::npos) << msg;
  }
}

TEST(Mlp, InvalidArchitecturesThrow) {
  EXPECT_THROW(Mlp(3, {}), InvalidArgument);
  EXPECT_THROW(Mlp(3, {25, 0}), InvalidArgument);
  EXPECT_THROW(Mlp(0, {25}), InvalidArgument);
  try {
    Mlp(3, {});
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
  }
}

TEST(Mlp, WrongSizesThrowAndNameTheSizes) {
  const Mlp m(3, {4});  // d_w = 3*4 + 4 + 4 + 1 = 21
  const Vector w = Vector::Zero(21), x = Vector::Zero(3), v = Vector::Zero(21);
  const Vector bad_w = Vector::Zero(20), bad_x = Vector::Zero(2), bad_v = Vector::Zero(5);
  Vector g;
  EXPECT_THROW(m.value(bad_w, x), InvalidArgument);
  EXPECT_THROW(m.value(w, bad_x), InvalidArgument);
  EXPECT_THROW(m.gradient_w(bad_w, x, g), InvalidArgument);
  EXPECT_THROW(m.gradient_w(w, bad_x, g), InvalidArgument);
  EXPECT_THROW(m.gradient_x(bad_w, x, g), InvalidArgument);
  EXPECT_THROW(m.gradient_x(w, bad_x, g), InvalidArgument);
  EXPECT_THROW(m.mixed_product(bad_w, x, v, g), InvalidArgument);
  EXPECT_THROW(m.mixed_product(w, bad_x, v, g), InvalidArgument);
  EXPECT_THROW(m.mixed_product(w, x, bad_v, g), InvalidArgument);
  EXPECT_THROW(m.ParametricModel::mixed_product(w, x, bad_v, g), InvalidArgument);
  EXPECT_THROW(m.values(w, Matrix::Zero(2, 5)), InvalidArgument);
  EXPECT_THROW(m.values(bad_w, Matrix::Zero(3, 5)), InvalidArgument);
  EXPECT_THROW(m.jacobian_w(w, Matrix::Zero(4, 5)), InvalidArgument);
  EXPECT_THROW(m.jacobian_w(bad_w, Matrix::Zero(3, 5)), InvalidArgument);
  EXPECT_THROW(m.ParametricModel::values(w, Matrix::Zero(2, 5)), InvalidArgument);
  EXPECT_THROW(m.ParametricModel::jacobian_w(bad_w, Matrix::Zero(3, 5)), InvalidArgument);
  try {
    m.gradient_w(bad_w, x, g);
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("20"), std::string::npos) << msg;
    EXPECT_NE(msg.find("21"), std::string::npos) << msg;
  }
  try {
    m.values(w, Matrix::Zero(2, 5));
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("2 rows"), std::string::npos) << msg;
    EXPECT_NE(msg.find("d_x = 3"), std::string::npos) << msg;
  }
}

TEST(Mlp, NonFiniteOutputThrowsNumericalError) {
  const Mlp m(2, {3}, Activation::Relu);
  Vector w = Vector::Ones(13);
  w[12] = std::numeric_limits<double>::quiet_NaN();
  const Vector x = Vector::Constant(2, 0.5);
  Vector g;
  EXPECT_THROW(m.value(w, x), NumericalError);
  EXPECT_THROW(m.gradient_w(w, x, g), NumericalError);
  EXPECT_THROW(m.gradient_x(w, x, g), NumericalError);
  EXPECT_THROW(m.mixed_product(w, x, Vector::Ones(13), g), NumericalError);
  EXPECT_THROW(m.values(w, Matrix::Constant(2, 3, 0.5)), NumericalError);
  EXPECT_THROW(m.jacobian_w(w, Matrix::Constant(2, 3, 0.5)), NumericalError);
  // Overflow to infinity is caught too, and the message names the point.
  Vector big = Vector::Ones(13);
  big.head(6).setConstant(1e308);
  try {
    m.value(big, x);
    FAIL() << "no exception";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("x = [0.5, 0.5]"), std::string::npos) << e.what();
  }
}

TEST(Mlp, DescribeNamesTheArchitecture) {
  EXPECT_EQ(Mlp::paper_model(20).describe(), "mlp(d_x=20, hidden=[25], activation=sigmoid, d_w=551)");
  EXPECT_EQ(Mlp(4, {7, 5}, Activation::Softplus).describe(), "mlp(d_x=4, hidden=[7,5], activation=softplus, d_w=81)");
}

// ---- AutodiffModel ----

namespace {

// The paper's network written as a template over the scalar type, parameter layout as Mlp.
struct TemplateSigmoidNet {
  Eigen::Index hidden = 25;
  template <class T>
  T operator()(const Eigen::Matrix<T, -1, 1>& w, const Eigen::Matrix<T, -1, 1>& x) const {
    using std::exp;
    const Eigen::Index d = x.size(), H = hidden;
    T out = w[H * d + 2 * H];
    for (Eigen::Index j = 0; j < H; ++j) {
      T z = w[H * d + j];
      for (Eigen::Index k = 0; k < d; ++k) z += w[j * d + k] * x[k];
      T a;
      if (z >= 0.0) {
        const T e = exp(-z);
        a = 1.0 / (1.0 + e);
      } else {
        const T e = exp(z);
        a = e / (1.0 + e);
      }
      out += w[H * d + H + j] * a;
    }
    return out;
  }
};

// A model that is NaN where x0 < 0.5 (log of a negative number).
struct LogModel {
  template <class T>
  T operator()(const Eigen::Matrix<T, -1, 1>& w, const Eigen::Matrix<T, -1, 1>& x) const {
    using std::log;
    return w[0] * log(x[0] - 0.5);
  }
};

// Does not depend on w at all.
struct ConstantInW {
  template <class T>
  T operator()(const Eigen::Matrix<T, -1, 1>&, const Eigen::Matrix<T, -1, 1>& x) const {
    return 3.0 * x[0];
  }
};

// Intermediates made only of T constants, mixed with parameters and inputs afterwards. With one
// dynamic-size derivative vector (before chunking) the whole gradient silently came back zero.
struct TConstants {
  template <class T>
  T operator()(const Eigen::Matrix<T, -1, 1>& w, const Eigen::Matrix<T, -1, 1>& x) const {
    using std::exp;
    const T six = T(2.0) * T(3.0);
    const T third = w[2] / (T(2.0) * T(3.0));
    const T decay = exp(-w[1] * x[1] / six);
    return w[0] * x[0] / six + third + decay * x[0];
  }
};

void expect_gradients_match_finite_differences(const ParametricModel& m, const Vector& w, const Matrix& X) {
  Rng rng(11);
  const Vector v = rng.normal_vector(w.size());
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    const Vector x = X.col(i);
    Vector gw, gx, gm;
    const double f = m.gradient_w(w, x, gw);
    EXPECT_DOUBLE_EQ(f, m.value(w, x));
    EXPECT_DOUBLE_EQ(m.gradient_x(w, x, gx), f);
    EXPECT_LT(rel_error(gw, fd_gradient([&](const Vector& wp) { return m.value(wp, x); }, w)), kFdTolerance);
    EXPECT_LT(rel_error(gx, fd_gradient([&](const Vector& xp) { return m.value(w, xp); }, x)), kFdTolerance);
    const double s = m.mixed_product(w, x, v, gm);
    EXPECT_NEAR(s, gw.dot(v), 1e-12 * std::max(1.0, std::abs(s)));
    const Vector fd = fd_gradient(
        [&](const Vector& xp) {
          Vector g;
          m.gradient_w(w, xp, g);
          return g.dot(v);
        },
        x);
    EXPECT_LT(rel_error(gm, fd), kFdTolerance) << "point " << i;
  }
}

}  // namespace

TEST(AutodiffModel, ArrheniusGradientsMatchFiniteDifferences) {
  const auto nested = make_autodiff_model<MixedProduct::NestedAutodiff>(arrhenius::YieldModel{}, 2, 4);
  const auto fd = make_autodiff_model(arrhenius::YieldModel{}, 2, 4);
  const Matrix X = test_points(2, 6, 21);
  Rng rng(3);
  for (int k = 0; k < 3; ++k) {
    Vector w = arrhenius::reference_params();
    w += 0.2 * rng.normal_vector(4);
    expect_gradients_match_finite_differences(*nested, w, X);
    expect_gradients_match_finite_differences(*fd, w, X);
  }
  // The physics: the yield rises with temperature when Ea > 0 ...
  const Vector w = arrhenius::reference_params();
  Vector gx;
  nested->gradient_x(w, (Vector(2) << 0.5, 0.5).finished(), gx);
  EXPECT_GT(gx[0], 0.0);
  // ... and equals A at T_ref in the low-pressure limit scaled by p^n / (1 + K p).
  const double x0 = (arrhenius::kTRef - arrhenius::kTMin) / (arrhenius::kTMax - arrhenius::kTMin);
  const double p = arrhenius::pressure(0.5);
  EXPECT_NEAR(nested->value(w, (Vector(2) << x0, 0.5).finished()), 1.2 * std::pow(p, 0.8) / (1 + 0.5 * p), 1e-12);
}

TEST(AutodiffModel, TemplateNetworkEqualsMlp) {
  for (std::size_t d : {1, 3, 20}) {
    const Mlp mlp = Mlp::paper_model(d);
    const auto ad = make_autodiff_model<MixedProduct::NestedAutodiff>(TemplateSigmoidNet{}, d, mlp.num_params());
    const auto ad_fd = make_autodiff_model(TemplateSigmoidNet{}, d, mlp.num_params());
    ASSERT_EQ(ad->num_params(), 25 * d + 51);
    const Vector w = test_params(mlp, d);
    const Matrix X = test_points(d, 4, 50 + d);
    Rng rng(d);
    const Vector v = rng.normal_vector(w.size());
    for (Eigen::Index i = 0; i < X.cols(); ++i) {
      const Vector x = X.col(i);
      Vector g1, g2, x1, x2, m1, m2, m3;
      const double f = mlp.gradient_w(w, x, g1);
      EXPECT_NEAR(ad->gradient_w(w, x, g2), f, kSameTolerance * std::max(1.0, std::abs(f)));
      EXPECT_NEAR(ad->value(w, x), f, kSameTolerance * std::max(1.0, std::abs(f)));
      EXPECT_LT(rel_error(g2, g1), kSameTolerance);
      mlp.gradient_x(w, x, x1);
      ad->gradient_x(w, x, x2);
      EXPECT_LT(rel_error(x2, x1), kSameTolerance);
      const double s1 = mlp.mixed_product(w, x, v, m1), s2 = ad->mixed_product(w, x, v, m2);
      EXPECT_NEAR(s2, s1, kSameTolerance * std::max(1.0, std::abs(s1)));
      EXPECT_LT(rel_error(m2, m1), kSameTolerance);
      // Finite-difference default: same s, grad_x to finite-difference accuracy.
      const double s3 = ad_fd->mixed_product(w, x, v, m3);
      EXPECT_NEAR(s3, s1, kSameTolerance * std::max(1.0, std::abs(s1)));
      EXPECT_LT(rel_error(m3, m1), kFdTolerance);
    }
    // Batched defaults (loops) against Mlp's matrix versions.
    EXPECT_LT(rel_error(ad->values(w, X), mlp.values(w, X)), kSameTolerance);
    EXPECT_LT(rel_error(ad->jacobian_w(w, X), mlp.jacobian_w(w, X)), kSameTolerance);
  }
}

TEST(AutodiffModel, NanOutputThrowsNumericalErrorNamingThePoint) {
  const auto nested = make_autodiff_model<MixedProduct::NestedAutodiff>(LogModel{}, 1, 1, {}, "log_model");
  const auto fd = make_autodiff_model(LogModel{}, 1, 1);
  const Vector w = Vector::Ones(1), bad = Vector::Constant(1, 0.25), good = Vector::Constant(1, 0.75);
  Vector g;
  for (const auto* m : {nested.get(), fd.get()}) {
    EXPECT_NO_THROW(m->value(w, good));
    EXPECT_THROW(m->value(w, bad), NumericalError);
    EXPECT_THROW(m->gradient_w(w, bad, g), NumericalError);
    EXPECT_THROW(m->gradient_x(w, bad, g), NumericalError);
    EXPECT_THROW(m->mixed_product(w, bad, w, g), NumericalError);
    EXPECT_THROW(m->values(w, Matrix::Constant(1, 2, 0.25)), NumericalError);
    EXPECT_THROW(m->jacobian_w(w, Matrix::Constant(1, 2, 0.25)), NumericalError);
  }
  try {
    nested->value(w, bad);
    FAIL() << "no exception";
  } catch (const NumericalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("x = [0.25]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("log_model"), std::string::npos) << msg;
  }
}

TEST(AutodiffModel, WrongSizesThrow) {
  const auto m = make_autodiff_model<MixedProduct::NestedAutodiff>(arrhenius::YieldModel{}, 2, 4);
  const Vector w = arrhenius::reference_params(), x = Vector::Constant(2, 0.5);
  Vector g;
  EXPECT_THROW(m->value(Vector::Zero(3), x), InvalidArgument);
  EXPECT_THROW(m->value(w, Vector::Zero(3)), InvalidArgument);
  EXPECT_THROW(m->gradient_w(Vector::Zero(5), x, g), InvalidArgument);
  EXPECT_THROW(m->gradient_x(w, Vector::Zero(1), g), InvalidArgument);
  EXPECT_THROW(m->mixed_product(w, x, Vector::Zero(3), g), InvalidArgument);
  EXPECT_THROW(m->values(w, Matrix::Zero(3, 2)), InvalidArgument);
  EXPECT_THROW(m->jacobian_w(Vector::Zero(2), Matrix::Zero(2, 2)), InvalidArgument);
  EXPECT_THROW(make_autodiff_model(arrhenius::YieldModel{}, 0, 4), InvalidArgument);
  EXPECT_THROW(make_autodiff_model(arrhenius::YieldModel{}, 2, 0), InvalidArgument);
}

TEST(AutodiffModel, SamplerAndDescription) {
  Rng rng(1);
  const auto plain = make_autodiff_model(arrhenius::YieldModel{}, 2, 4);
  EXPECT_EQ(plain->sample_params(rng).size(), 4);
  EXPECT_EQ(plain->describe(), "autodiff(d_x=2, d_w=4)");
  const auto custom = make_autodiff_model(
      arrhenius::YieldModel{}, 2, 4, [](Rng&) { return arrhenius::reference_params(); }, "arrhenius");
  EXPECT_EQ(custom->sample_params(rng), arrhenius::reference_params());
  EXPECT_EQ(custom->describe(), "arrhenius(d_x=2, d_w=4)");
  const auto wrong = make_autodiff_model(arrhenius::YieldModel{}, 2, 4, [](Rng&) { return Vector(Vector::Zero(3)); });
  EXPECT_THROW(wrong->sample_params(rng), InvalidArgument);
}

TEST(AutodiffModel, ConstantsWrittenAsTDifferentiateCorrectly) {
  const Vector w = (Vector(3) << 1.0, 2.0, 3.0).finished(), x = (Vector(2) << 0.5, 0.25).finished();
  const double e = std::exp(-w[1] * x[1] / 6.0);
  const Vector gw = (Vector(3) << x[0] / 6.0, -x[1] / 6.0 * e * x[0], 1.0 / 6.0).finished();
  const Vector gx = (Vector(2) << w[0] / 6.0 + e, -w[1] / 6.0 * e * x[0]).finished();
  const auto nested = make_autodiff_model<MixedProduct::NestedAutodiff>(TConstants{}, 2, 3);
  const auto fd = make_autodiff_model(TConstants{}, 2, 3);
  for (const auto* m : {nested.get(), fd.get()}) {
    Vector g;
    m->gradient_w(w, x, g);
    EXPECT_LT((g - gw).norm(), 1e-14) << g.transpose();
    m->gradient_x(w, x, g);
    EXPECT_LT((g - gx).norm(), 1e-14) << g.transpose();
  }
  Matrix X(2, 3);
  X << 0.1, 0.5, 0.9, 0.7, 0.2, 0.4;
  expect_gradients_match_finite_differences(*nested, w, X);
}

TEST(AutodiffModel, ModelIndependentOfWHasZeroWeightGradient) {
  const auto m = make_autodiff_model<MixedProduct::NestedAutodiff>(ConstantInW{}, 2, 3);
  const Vector w = Vector::Ones(3), x = Vector::Constant(2, 0.5);
  Vector g;
  EXPECT_DOUBLE_EQ(m->gradient_w(w, x, g), 1.5);
  EXPECT_EQ(g, Vector::Zero(3));
  m->gradient_x(w, x, g);
  EXPECT_EQ(g, (Vector(2) << 3.0, 0.0).finished());
  EXPECT_DOUBLE_EQ(m->mixed_product(w, x, Vector::Ones(3), g), 0.0);
  EXPECT_EQ(g, Vector::Zero(2));
}

TEST(GradientCheck, CorrectModelsPassAndEachWrongDerivativeIsNamed) {
  Rng rng(11);
  for (Activation a : {Activation::Sigmoid, Activation::Tanh, Activation::Softplus}) {
    const Mlp mlp(4, {6, 3}, a);
    const Vector w = mlp.sample_params(rng), x = rng.uniform_vector(4), v = rng.normal_vector(w.size());
    const GradientCheck c = check_gradients(mlp, w, x, v);
    EXPECT_LT(c.max_error(), 1e-7) << to_string(a) << ": " << c.describe();
  }
  const auto arrhenius_model = make_autodiff_model(arrhenius::YieldModel{}, 2, 4);
  EXPECT_NO_THROW(check_model_gradients(*arrhenius_model, rng));

  // gradient_x with one entry dropped: only x_error is large.
  class DroppedX : public Mlp {
   public:
    using Mlp::Mlp;
    double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
      const double f = Mlp::gradient_x(w, x, grad);
      grad[1] = 0.0;
      return f;
    }
  };
  const DroppedX dropped(3, {5});
  const Vector w = dropped.sample_params(rng), x = rng.uniform_vector(3), v = rng.normal_vector(w.size());
  const GradientCheck c = check_gradients(dropped, w, x, v);
  EXPECT_GT(c.x_error, 1e-3) << c.describe();
  EXPECT_LT(c.w_error, 1e-7) << c.describe();
  try {
    check_model_gradients(dropped, rng);
    FAIL() << "the dropped derivative was not reported";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("mlp("), std::string::npos) << e.what();  // names the model
    EXPECT_NE(std::string(e.what()).find("grad_x"), std::string::npos) << e.what();
  }

  // A model returning NaN instead of throwing NumericalError is told so, not that its derivatives
  // disagree ("relative errors grad_w nan").
  class ReturnsNan : public Mlp {
   public:
    using Mlp::Mlp;
    double value(const Vector&, const Vector&) const override { return std::nan(""); }
  };
  try {
    check_model_gradients(ReturnsNan(2, {3}), rng);
    FAIL() << "a NaN value was not reported";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("f_w(x) = nan at x = "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("throws NumericalError where it has none"), std::string::npos) << e.what();
  }
}
