// GP-UCB / GP-EI / GP-PI: acquisition closed forms and the stable log forms, acquisition gradients
// against finite differences, the acquisition maximizer against a dense grid, batches, degenerate
// data, and GP-EI on Branin.
#include <deque>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <optional>
#include <set>

#include "optimist/algorithms/kernel/acquisition.hpp"
#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/models/outcome_transform.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

Vector numeric_gradient(const std::function<double(const Vector&)>& f, const Vector& x, double h = 1e-6) {
  Vector g(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    Vector a = x, b = x;
    a[i] += h;
    b[i] -= h;
    g[i] = (f(a) - f(b)) / (2 * h);
  }
  return g;
}

double test_function(const Vector& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) s += std::sin(5.0 * x[i] + static_cast<double>(i)) - 2.0 * (x[i] - 0.3) * (x[i] - 0.3);
  return s;
}

// A fitted GP on n random points of [0,1]^d (or of the lower-left corner [0, extent]^d).
GaussianProcess fitted_gp(Eigen::Index d, Eigen::Index n, std::uint64_t seed, double extent = 1.0, KernelType k = KernelType::Matern52) {
  Rng rng(seed);
  Matrix X(d, n);
  Vector y(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    X.col(j) = extent * rng.uniform_vector(d);
    y[j] = test_function(X.col(j)) + 0.01 * rng.normal();
  }
  GpOptions o;
  o.kernel = k;
  GaussianProcess gp(d, o);
  gp.set_data(X, y);
  Rng fit_rng(seed + 1);
  gp.fit(fit_rng);
  return gp;
}

}  // namespace

// ---- scalar building blocks ----

TEST(Acquisition, ErfcxMatchesLongDoubleReference) {
  for (double x = -5.0; x <= 25.0; x += 0.37) {
    const long double ref = std::exp(static_cast<long double>(x) * x) * std::erfc(static_cast<long double>(x));
    EXPECT_NEAR(erfcx(x), static_cast<double>(ref), 1e-14 * static_cast<double>(ref)) << x;
  }
  // Asymptotically erfcx(x) ~ 1 / (sqrt(pi) x).
  EXPECT_NEAR(erfcx(1e6) * std::sqrt(std::numbers::pi) * 1e6, 1.0, 1e-12);
}

TEST(Acquisition, LogHEqualsLogOfHWhereRepresentableAndStaysFiniteAndMonotoneBeyond) {
  for (double z = -35.0; z <= 6.0; z += 0.05) {
    const long double zl = z;
    const long double h = std::exp(-zl * zl / 2) / std::sqrt(2 * std::numbers::pi_v<long double>) + zl * std::erfc(-zl / std::sqrt(2.0L)) / 2;
    EXPECT_NEAR(log_ei_h(z), static_cast<double>(std::log(h)), 1e-9 * std::max(1.0, std::abs(static_cast<double>(std::log(h))))) << z;
  }
  // Where h underflows in double, log h is still finite and strictly increasing (never flat).
  EXPECT_EQ(ei_h(-40.0), 0.0);
  double prev = -std::numeric_limits<double>::infinity();
  for (double z = -1e8; z < -1.0; z /= 1.3) {
    const double v = log_ei_h(z);
    ASSERT_TRUE(std::isfinite(v)) << z;
    EXPECT_GT(v, prev) << z;
    // log h(z) ~ -z^2/2 - log(2 pi)/2 - 2 log|z| for z -> -inf.
    if (z < -1e3) {
      EXPECT_NEAR(v, -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi) - 2 * std::log(-z), 1e-6 * std::abs(v));
    }
    prev = v;
  }
  // Continuity across the branch points z = -1 and z = -40.
  for (double zb : {-1.0, -40.0}) {
    EXPECT_NEAR(log_ei_h(zb - 1e-9), log_ei_h(zb + 1e-9), 1e-7 * std::max(1.0, std::abs(log_ei_h(zb))));
    EXPECT_NEAR(log_ei_h_derivative(zb - 1e-9), log_ei_h_derivative(zb + 1e-9), 1e-6 * std::abs(log_ei_h_derivative(zb)));
  }
}

TEST(Acquisition, LogHAndLogPhiDerivativesMatchFiniteDifferences) {
  for (double z : {-200.0, -41.0, -30.0, -5.0, -1.5, -0.5, 0.0, 0.7, 3.0}) {
    const double h = 1e-6 * std::max(1.0, std::abs(z));
    EXPECT_NEAR(log_ei_h_derivative(z), (log_ei_h(z + h) - log_ei_h(z - h)) / (2 * h), 1e-5 * std::max(1.0, std::abs(z))) << z;
    EXPECT_NEAR(log_normal_cdf_derivative(z), (log_normal_cdf(z + h) - log_normal_cdf(z - h)) / (2 * h), 1e-5 * std::max(1.0, std::abs(z))) << z;
  }
}

TEST(Acquisition, LogPhiEqualsLogOfPhiAndStaysFinite) {
  for (double z = -30.0; z <= 8.0; z += 0.1)
    EXPECT_NEAR(log_normal_cdf(z), std::log(normal_cdf(z)), 1e-10 * std::max(1.0, std::abs(std::log(normal_cdf(z))))) << z;
  EXPECT_TRUE(std::isfinite(log_normal_cdf(-1e5)));
  EXPECT_NEAR(log_normal_cdf(-1e5), -0.5e10 - 0.5 * std::log(2 * std::numbers::pi) - std::log(1e5), 1e-6);
  EXPECT_NEAR(log_normal_cdf(40.0), 0.0, 1e-300);
}

TEST(Acquisition, ClosedFormsOnKnownValues) {
  // EI at the incumbent with unit sd is phi(0); PI is 1/2; UCB adds sqrt(beta) sd.
  EXPECT_NEAR(expected_improvement(1.0, 1.0, 1.0), 1.0 / std::sqrt(2 * std::numbers::pi), 1e-15);
  EXPECT_NEAR(probability_of_improvement(1.0, 2.0, 1.0), 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(upper_confidence_bound(1.0, 2.0, 4.0), 5.0);
  // EI = (mu - best) Phi(z) + sd phi(z) (Jones et al. 1998), z = (mu - best - xi) / sd.
  const double mu = 0.3, sd = 0.7, best = 0.5, xi = 0.1, z = (mu - best - xi) / sd;
  EXPECT_NEAR(expected_improvement(mu, sd, best, xi), (mu - best - xi) * normal_cdf(z) + sd * normal_pdf(z), 1e-15);
  EXPECT_NEAR(log_expected_improvement(mu, sd, best, xi), std::log(expected_improvement(mu, sd, best, xi)), 1e-13);
  // Zero sd: the improvement itself.
  EXPECT_DOUBLE_EQ(expected_improvement(2.0, 0.0, 1.0), 1.0);
}

TEST(Acquisition, SrinivasBeta) {
  const double pi2 = std::numbers::pi * std::numbers::pi;
  // Theorem 1: beta_t = 2 log(|D| t^2 pi^2 / (6 delta)).
  EXPECT_NEAR(srinivas_beta_finite(7.0, std::log(100.0), 0.1), 2 * std::log(100.0 * 49.0 * pi2 / 0.6), 1e-12);
  // Theorem 2 with a = b = r = 1.
  const double d = 3, t = 5, delta = 0.05;
  EXPECT_NEAR(srinivas_beta_continuous(t, d, delta),
              2 * std::log(2 * t * t * pi2 / (3 * delta)) + 2 * d * std::log(t * t * d * std::sqrt(std::log(4 * d / delta))), 1e-12);
  EXPECT_GT(srinivas_beta_continuous(10, d, delta), srinivas_beta_continuous(9, d, delta));
}

// ---- acquisitions on a GP ----

TEST(Acquisition, ValuesMatchClosedFormsOfThePosterior) {
  const GaussianProcess gp = fitted_gp(3, 15, 4);
  const double best = gp.outputs().maxCoeff();
  const UpperConfidenceBound ucb(gp, 2.5);
  const ExpectedImprovement ei(gp, best, 0.05);
  const LogExpectedImprovement log_ei(gp, best, 0.05);
  const ProbabilityOfImprovement pi(gp, best, 0.05);
  const LogProbabilityOfImprovement log_pi(gp, best, 0.05);
  Rng rng(9);
  Matrix X(3, 20);
  for (Eigen::Index j = 0; j < X.cols(); ++j) X.col(j) = rng.uniform_vector(3);
  const Vector batch_ei = log_ei.values(X), batch_ucb = ucb.values(X);
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const GpPrediction p = gp.predict(X.col(j));
    const double sd = std::sqrt(p.variance);
    EXPECT_NEAR(ucb.value(X.col(j)), p.mean + std::sqrt(2.5) * sd, 1e-12);
    EXPECT_NEAR(ei.value(X.col(j)), expected_improvement(p.mean, sd, best, 0.05), 1e-12);
    EXPECT_NEAR(pi.value(X.col(j)), probability_of_improvement(p.mean, sd, best, 0.05), 1e-12);
    const double e = expected_improvement(p.mean, sd, best, 0.05);
    if (e > 1e-250) {
      EXPECT_NEAR(log_ei.value(X.col(j)), std::log(e), 1e-9 * std::max(1.0, std::abs(std::log(e))));
    }
    EXPECT_NEAR(log_pi.value(X.col(j)), std::log(probability_of_improvement(p.mean, sd, best, 0.05)), 1e-9);
    EXPECT_NEAR(batch_ei[j], log_ei.value(X.col(j)), 1e-9 * std::max(1.0, std::abs(batch_ei[j])));
    EXPECT_NEAR(batch_ucb[j], ucb.value(X.col(j)), 1e-9);
  }
}

TEST(Acquisition, GradientsMatchFiniteDifferences) {
  for (KernelType k : {KernelType::Matern52, KernelType::SquaredExponential}) {
    const GaussianProcess gp = fitted_gp(3, 12, 6, 1.0, k);
    const double best = gp.outputs().maxCoeff();
    const UpperConfidenceBound ucb(gp, 3.0);
    const ExpectedImprovement ei(gp, best);
    const LogExpectedImprovement log_ei(gp, best, 0.2);
    const ProbabilityOfImprovement pi(gp, best);
    const LogProbabilityOfImprovement log_pi(gp, best, 0.1);
    const std::vector<const AcquisitionFunction*> acqs = {&ucb, &ei, &log_ei, &pi, &log_pi};
    Rng rng(3);
    for (int trial = 0; trial < 6; ++trial) {
      const Vector x = 0.05 + 0.9 * rng.uniform_vector(3).array();
      for (const AcquisitionFunction* a : acqs) {
        Vector g;
        a->value(x, &g);
        const Vector fd = numeric_gradient([&](const Vector& z) { return a->value(z); }, x);
        for (Eigen::Index i = 0; i < 3; ++i) EXPECT_NEAR(g[i], fd[i], 1e-5 * std::max(1.0, std::abs(fd[i]))) << trial << " " << i;
      }
    }
  }
}

TEST(Acquisition, LogEiIsInformativeFarFromTheData) {
  // Data only in [0, 0.2]^2 with a high best value: far away EI underflows to exactly 0 but
  // log-EI is finite, has a usable gradient, and decreases with the distance.
  Rng rng(1);
  Matrix X(2, 8);
  Vector y(8);
  for (Eigen::Index j = 0; j < 8; ++j) {
    X.col(j) = 0.2 * rng.uniform_vector(2);
    y[j] = 100.0 * X.col(j).sum();
  }
  GpOptions o;
  o.lengthscale_prior = LogNormalPrior{std::log(0.02), 0.01};  // short lengthscale: far = prior
  GaussianProcess gp(2, o);
  gp.set_data(X, y);
  Rng fr(2);
  gp.fit(fr);
  const double best = y.maxCoeff() + 40.0 * gp.output_scale();
  const ExpectedImprovement ei(gp, best);
  const LogExpectedImprovement log_ei(gp, best);
  const Vector far = Vector::Constant(2, 0.9);
  EXPECT_EQ(ei.value(far), 0.0);
  Vector g;
  const double v = log_ei.value(far, &g);
  EXPECT_TRUE(std::isfinite(v));
  EXPECT_TRUE(g.allFinite());
  // Along the diagonal away from the data: log-EI is log(sd) + log h((mu - best) / sd) however
  // small EI is, it decreases with the distance (seen: -1180.18 at 0.2 to -1180.51 from 0.3 on),
  // its gradient equals finite differences where those resolve it, and it points back to the data
  // (a clamped or zeroed log-EI would be flat out there, leaving the maximizer nothing to follow).
  double previous = HUGE_VAL;
  for (double t = 0.2; t <= 0.9 + 1e-9; t += 0.05) {
    const Vector x = Vector::Constant(2, t);
    Vector gx;
    const double lx = log_ei.value(x, &gx);
    const GpPrediction p = gp.predict(x);
    const double sd = std::sqrt(p.variance);
    EXPECT_EQ(ei.value(x), 0.0) << t;
    EXPECT_NEAR(lx, std::log(sd) + log_ei_h((p.mean - best) / sd), 1e-9 * std::abs(lx)) << t;
    EXPECT_LE(lx, previous) << t;
    EXPECT_LT(gx.sum(), 0.0) << t << ": the gradient does not point back to the data";
    previous = lx;
    if (t < 0.27) {
      const Vector fd = numeric_gradient([&](const Vector& z) { return log_ei.value(z); }, x, 1e-7);
      for (Eigen::Index i = 0; i < 2; ++i) EXPECT_NEAR(gx[i], fd[i], 1e-4 * std::max(1.0, std::abs(fd[i]))) << t;
    }
  }
  EXPECT_LT(log_ei.value(Vector::Constant(2, 0.9)), log_ei.value(Vector::Constant(2, 0.2)) - 0.1);
}

TEST(Acquisition, MaximizerFindsTheGridMaximumOfUcbIn1d) {
  const GaussianProcess gp = fitted_gp(1, 7, 12);
  const UpperConfidenceBound ucb(gp, 4.0);
  double grid_best = -1e300;
  for (int i = 0; i <= 20000; ++i) grid_best = std::max(grid_best, ucb.value(Vector::Constant(1, i / 20000.0)));
  BoxMaximizerOptions opt;
  opt.raw_samples = 64;
  opt.restarts = 5;
  Rng rng(5);
  const BoxMaximizerResult r = maximize_acquisition(ucb, {}, opt, rng);
  EXPECT_GE(r.value, grid_best - 1e-7);
  EXPECT_NEAR(r.value, ucb.value(r.x), 1e-12);
}

// ---- the optimizers ----

TEST(GpBo, RegisteredWithOptions) {
  for (const char* name : {"gp-ucb", "gp-ei", "gp-pi"}) {
    const AlgorithmInfo& info = algorithm_info(name);
    EXPECT_EQ(info.family, "kernel");
    EXPECT_TRUE(info.batch);
  }
  const Space space = Space::box(3, 0.0, 1.0);
  EXPECT_NO_THROW(make_optimizer({{"name", "gp-ucb"}, {"beta", 2.0}}, space));
  EXPECT_NO_THROW(make_optimizer({{"name", "gp-ucb"}, {"beta", "auto"}}, space));
  EXPECT_THROW(make_optimizer({{"name", "gp-ucb"}, {"beta", "high"}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "gp-ucb"}, {"delta", 1.5}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"kernel", "cubic"}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"init", "lhs"}}, space), InvalidArgument);
  auto opt = make_optimizer({{"name", "gp-ei"}}, Space::box(20, 0.0, 1.0));
  EXPECT_EQ(dynamic_cast<GpBo&>(*opt).n_init(), 10u);
  EXPECT_EQ(GpBo::default_n_init(1), 2u);
  EXPECT_EQ(GpBo::default_n_init(4), 5u);
}

TEST(GpBo, AKnownNoiseSdReplacesTheFittedNoise) {
  const Space space = Space::box(2, 0.0, 1.0);
  auto f = [](const Vector& x) { return 10.0 * (x.array() - 0.3).square().sum() + std::sin(7.0 * x[0]); };
  auto told = [&](const nlohmann::json& noise) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"n_init", 12}, {"noise_sd", noise}}, space, Direction::Maximize, RunContext{.seed = 3});
    Rng rng(11);
    for (int k = 0; k < 12; ++k) {
      const Vector x = rng.uniform_vector(2);
      opt->tell(x, f(x));
    }
    dynamic_cast<GpBo&>(*opt).model();  // brings the model (and the diagnostics) up to date
    return opt;
  };
  auto known = told(0.5);
  EXPECT_NEAR(known->diagnostics().at("gp_noise_variance").get<double>(), 0.25, 1e-9);
  auto learned = told("learn");
  EXPECT_GT(std::abs(learned->diagnostics().at("gp_noise_variance").get<double>() - 0.25), 0.05);
  // noise_sd 0 (a deterministic objective): the posterior mean interpolates the data.
  auto exact = told(0.0);
  const GaussianProcess& gp = dynamic_cast<GpBo&>(*exact).model();
  for (Eigen::Index i = 0; i < gp.size(); ++i)
    EXPECT_NEAR(gp.predict(Vector(gp.inputs().col(i))).mean, gp.outputs()[i], 1e-4) << i;
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"noise_sd", -1.0}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "gp-pi"}, {"noise_sd", "small"}}, space), InvalidArgument);
}

// output = model recommends the evaluated point the posterior mean rates best: a lucky noisy draw
// far from the peak is not the answer; best-observed (the default) returns it.
TEST(GpBo, ModelOutputRecommendsByThePosteriorMean) {
  const Space space = Space::box(1, 0.0, 1.0);
  auto recommended = [&](const char* output) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"n_init", 4}, {"noise_sd", 0.3}, {"output", output}}, space,
                              Direction::Maximize, RunContext{.seed = 1, .noisy = true});
    for (int k = 0; k <= 20; ++k) {
      const double x = k / 20.0;
      opt->tell(Vector{{x}}, -4.0 * (x - 0.5) * (x - 0.5));  // the peak, 0, at 0.5
    }
    opt->tell(Vector{{0.05}}, 0.4);  // a lucky draw: f(0.05) = -0.81
    return opt->recommend()[0];
  };
  EXPECT_EQ(recommended("best-observed"), 0.05);
  EXPECT_NEAR(recommended("model"), 0.5, 0.051);
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"output", "mean"}}, space), InvalidArgument);
}

TEST(GpBo, AutoBetaIsTheoremOneOnFiniteSpacesAndTwoSdsOtherwise) {
  GpBoOptions o;
  o.acquisition = Acquisition::Ucb;
  const Space box = Space::box(4, 0.0, 1.0);
  Space discrete;
  discrete.add_integer("a", 0, 9).add_categorical("b", {"x", "y", "z"});
  Space mixed = discrete;
  mixed.add_continuous("c", 0.0, 1.0);
  // auto (the default): Theorem 1 on the finite space, mean + 2 sd with a continuous parameter.
  EXPECT_DOUBLE_EQ(GpBo(box, Direction::Maximize, o).beta(10), 4.0);
  EXPECT_DOUBLE_EQ(GpBo(mixed, Direction::Maximize, o).beta(10), 4.0);
  EXPECT_NEAR(GpBo(discrete, Direction::Maximize, o).beta(10), srinivas_beta_finite(10, std::log(30.0), 0.1), 1e-12);
  // theorem: Theorem 2 on the unit cube where a parameter is continuous (the recipe before stop 87).
  o.beta_rule = UcbBetaRule::Theorem;
  EXPECT_DOUBLE_EQ(GpBo(box, Direction::Maximize, o).beta(10), srinivas_beta_continuous(10, 4, 0.1));
  EXPECT_DOUBLE_EQ(GpBo(mixed, Direction::Maximize, o).beta(10), srinivas_beta_continuous(10, 3, 0.1));
  EXPECT_NEAR(GpBo(discrete, Direction::Maximize, o).beta(10), srinivas_beta_finite(10, std::log(30.0), 0.1), 1e-12);
  o.beta = 2.0;
  EXPECT_DOUBLE_EQ(GpBo(discrete, Direction::Maximize, o).beta(10), 2.0);
  EXPECT_DOUBLE_EQ(GpBo(box, Direction::Maximize, o).beta(10), 2.0);

  // Through the registry: the keywords, and what auto became in the trace's decisions.
  EXPECT_DOUBLE_EQ(dynamic_cast<GpBo&>(*make_optimizer({{"name", "gp-ucb"}, {"beta", "theorem"}}, box)).beta(10),
                   srinivas_beta_continuous(10, 4, 0.1));
  EXPECT_DOUBLE_EQ(dynamic_cast<GpBo&>(*make_optimizer({{"name", "gp-ucb"}, {"beta", nullptr}}, box)).beta(10), 4.0);
  EXPECT_EQ(make_optimizer({{"name", "gp-ucb"}}, box)->decisions()["resolved"]["beta"], 4.0);
  EXPECT_EQ(make_optimizer({{"name", "gp-ucb"}}, discrete)->decisions()["resolved"]["beta"], "theorem");
  EXPECT_FALSE(make_optimizer({{"name", "gp-ucb"}, {"beta", "theorem"}}, box)->decisions()["resolved"].contains("beta"));
  EXPECT_FALSE(make_optimizer({{"name", "gp-ei"}}, box)->decisions()["resolved"].contains("beta"));
  for (const nlohmann::json& bad : {nlohmann::json("Theorem"), nlohmann::json(-1.0), nlohmann::json(true)}) {
    try {
      make_optimizer({{"name", "gp-ucb"}, {"beta", bad}}, box);
      ADD_FAILURE() << "accepted beta " << bad.dump();
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("'beta' must be \"auto\", \"theorem\" or a finite number >= 0, got " + bad.dump()),
                std::string::npos)
          << e.what();
    }
  }
}

namespace {

// Simple regrets on hartmann6 (optimum -3.32, next local one -3.20) of runs of `spec` with
// budget T, seeds 0-4.
std::vector<double> hartmann6_regrets(const nlohmann::json& spec, std::size_t budget) {
  const Problem p = make_problem("hartmann6");
  std::vector<double> out;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    auto opt = make_optimizer(spec, p.space, p.direction, {.seed = seed});
    RunOptions ro;
    ro.budget = budget;
    out.push_back(std::abs(*optimize(*opt, p.objective(), ro).best_f - *p.f_star));
  }
  return out;
}

double mean_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

}  // namespace

// Theorem 2's beta_t is about 135 at t = 30 in 6-D: UCB then follows the posterior sd, and on
// hartmann6 it stays far from the optimum where two sds find it (measured over 40 seeds in
// docs/gp-bo.md, "GP-UCB's beta").
TEST(GpBo, UcbsDefaultBetaFindsHartmann6sOptimumWhereTheoremTwosDoesNot) {
  const std::vector<double> practical = hartmann6_regrets({{"name", "gp-ucb"}, {"beta", "auto"}}, 30),
                            theorem = hartmann6_regrets({{"name", "gp-ucb"}, {"beta", "theorem"}}, 30);
  for (const double r : practical) EXPECT_LT(r, 0.3);
  EXPECT_GT(mean_of(theorem), 1.0);
  EXPECT_LE(std::count_if(theorem.begin(), theorem.end(), [](double r) { return r < 0.3; }), 1);
}

// PI with xi = 0 (Kushner's form, the default before stop 88) is greedy: a sure sliver of
// improvement next to the best point beats any chance of a large one. gp-pi's default threshold,
// a tenth of the largest posterior sd over fixed probes, finds hartmann6's optimum where xi = 0
// does not (measured over 40 seeds in docs/gp-bo.md, "GP-PI's xi").
TEST(GpBo, PisDefaultThresholdFindsHartmann6sOptimumWhereGreedyPiDoesNot) {
  const std::vector<double> scaled = hartmann6_regrets({{"name", "gp-pi"}, {"xi", "auto"}}, 50),
                            greedy = hartmann6_regrets({{"name", "gp-pi"}, {"xi", 0.0}}, 50);
  for (const double r : scaled) EXPECT_LT(r, 0.3);
  EXPECT_GT(mean_of(greedy), 1.0);
}

// gp-pi's default threshold follows what the model does not know: a tenth of the prior sd where
// few points lie in a large space, a small fraction of it once the points cover a 1-D interval.
TEST(GpBo, PisThresholdShrinksAsTheDataCoverTheSpace) {
  const auto threshold = [](std::size_t dim, int points) {
    const Space space = Space::box(dim, 0.0, 1.0);
    auto opt = make_optimizer({{"name", "gp-pi"}, {"n_init", 2}}, space, Direction::Maximize, RunContext{.seed = 3});
    Rng rng(5);
    for (int k = 0; k < points; ++k) {
      const Vector x = dim == 1 ? Vector{{(k + 0.5) / points}} : Vector(rng.uniform_vector(dim));
      opt->tell(x, std::sin(6.0 * x[0]) + 0.1 * x.sum());
    }
    const auto& gp_pi = dynamic_cast<GpBo&>(*opt);
    const GaussianProcess& gp = gp_pi.model();
    return gp_pi.pi_threshold(gp) / std::sqrt(gp.prior_variance());
  };
  const double sparse = threshold(10, 4), covered = threshold(1, 25);
  EXPECT_GT(sparse, 0.09);  // at most kPiXiSdFraction = 0.1 (a posterior sd is at most the prior's)
  EXPECT_LE(sparse, 0.1 + 1e-12);
  EXPECT_LT(covered, 0.02) << sparse;
}

TEST(GpBo, PisThresholdIsAutoOrANumberAndEisANumber) {
  const Problem p = make_problem("hartmann6");
  // The default is null ("auto"); gp-ei keeps a number, 0.
  EXPECT_TRUE(resolve_options({{"name", "gp-pi"}}).at("xi").is_null());
  EXPECT_EQ(resolve_options({{"name", "gp-ei"}}).at("xi"), 0.0);
  const auto error = [&](const char* name, const nlohmann::json& xi) {
    try {
      (void)make_optimizer({{"name", name}, {"xi", xi}}, p.space, p.direction, {});
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("gp-pi", 0.5), "accepted");
  EXPECT_NE(error("gp-pi", "greedy").find("gp-pi: option 'xi' must be \"auto\" or a finite number"), std::string::npos)
      << error("gp-pi", "greedy");
  EXPECT_EQ(error("gp-ei", "auto"), "gp-ei: option 'xi' must be of the type of its default 0.0, got \"auto\"");
}

TEST(GpBo, InitialDesignIsSobolOrUniformThenModelBased) {
  const Space space = Space::box(2, 0.0, 1.0);
  auto sobol = make_optimizer({{"name", "gp-ei"}, {"n_init", 4}}, space, Direction::Maximize, RunContext{.seed = 3});
  std::set<std::pair<double, double>> seen;
  // After the design each point maximizes log-EI on the model of the points told so far: no
  // point of a 61 x 61 grid scores higher (a fifth Sobol point would, by far).
  auto& gp_ei = dynamic_cast<GpBo&>(*sobol);
  for (int k = 0; k < 7; ++k) {
    const Trial t = sobol->ask();
    EXPECT_TRUE(seen.insert({t.x[0], t.x[1]}).second) << "repeated point at step " << k;
    if (k >= 4) {
      const GaussianProcess& gp = gp_ei.model();
      ASSERT_EQ(gp.size(), k);
      const LogExpectedImprovement acq(gp, gp.outputs().maxCoeff());
      Matrix grid(2, 61 * 61);
      for (int i = 0; i < 61; ++i)
        for (int j = 0; j < 61; ++j) grid.col(61 * i + j) << i / 60.0, j / 60.0;
      const double grid_best = acq.values(grid).maxCoeff();
      EXPECT_GE(acq.value(t.unit), grid_best - 1e-3 * std::max(1.0, std::abs(grid_best))) << "step " << k;
    }
    sobol->tell(t, test_function(t.unit));
  }
  EXPECT_TRUE(dynamic_cast<GpBo&>(*sobol).model().size() == 7);
  // The four design points are a Sobol net: each quarter of each axis holds exactly one (four
  // uniform draws do so in both axes with probability (4!/4^4)^2, under 1%).
  const auto& h = sobol->history();
  for (Eigen::Index axis = 0; axis < 2; ++axis) {
    std::set<int> quarters;
    for (std::size_t k = 0; k < 4; ++k) quarters.insert(static_cast<int>(std::floor(4.0 * h[k].trial.unit[axis])));
    EXPECT_EQ(quarters.size(), 4u) << "axis " << axis;
  }
  auto uniform = make_optimizer({{"name", "gp-ucb"}, {"n_init", 3}, {"init", "uniform"}}, space, Direction::Maximize, RunContext{.seed = 3});
  auto sobol3 = make_optimizer({{"name", "gp-ucb"}, {"n_init", 3}}, space, Direction::Maximize, RunContext{.seed = 3});
  for (int k = 0; k < 5; ++k) {
    const Trial t = uniform->ask();
    uniform->tell(t, test_function(t.unit));
    const Trial s = sobol3->ask();
    sobol3->tell(s, test_function(s.unit));
    if (k < 3) {
      EXPECT_NE(t.unit, s.unit) << "init = uniform gave the Sobol design point " << k;
    }
  }
  EXPECT_EQ(uniform->history().size(), 5u);
  // After the design, every point told is in the model that chooses the next one.
  EXPECT_EQ(dynamic_cast<GpBo&>(*uniform).model().size(), 5);
}

TEST(GpBo, BatchesAreDistinctKrigingBelieverPoints) {
  const Space space = Space::box(3, 0.0, 1.0);
  for (const char* name : {"gp-ucb", "gp-ei", "gp-pi"}) {
    auto opt = make_optimizer({{"name", name}, {"n_init", 5}, {"raw_samples", 128}}, space);
    for (int k = 0; k < 5; ++k) {
      const Trial t = opt->ask();
      opt->tell(t, test_function(t.unit));
    }
    // PI with xi = 0 is greedy: next to a fantasy at the incumbent value the posterior mean can
    // still exceed it with a tiny sd, so its batch points may be close (but are never equal).
    const double min_gap = std::string(name) == "gp-pi" ? 1e-8 : 1e-4;
    const std::vector<Trial> batch = opt->ask(4);
    ASSERT_EQ(batch.size(), 4u) << name;
    for (std::size_t i = 0; i < batch.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) EXPECT_GT((batch[i].unit - batch[j].unit).norm(), min_gap) << name;
    // A further ask with the batch pending avoids it too.
    const Trial extra = opt->ask();
    for (const Trial& t : batch) EXPECT_GT((extra.unit - t.unit).norm(), min_gap) << name;
  }
}

TEST(GpBo, DegenerateDataDoesNotCrash) {
  const Space space = Space::box(2, -1.0, 1.0);
  for (const char* name : {"gp-ucb", "gp-ei", "gp-pi", "turbo"}) {
    // One point, then asks (design continues or the model runs on one point).
    auto one = make_optimizer({{"name", name}, {"n_init", 1}}, space);
    one->tell(Vector::Zero(2), 1.0);
    for (int k = 0; k < 3; ++k) {
      std::vector<Trial> b;
      ASSERT_NO_THROW(b = one->ask(2)) << name;
      for (const Trial& t : b) EXPECT_NO_THROW(space.validate(t.x));
      for (const Trial& t : b) one->tell(t, 1.0 + 1e-3 * k);
    }
    // A constant objective.
    auto flat = make_optimizer({{"name", name}, {"n_init", 3}}, space);
    for (int k = 0; k < 10; ++k) {
      Trial t;
      ASSERT_NO_THROW(t = flat->ask()) << name;
      flat->tell(t, 5.0);
    }
    // Duplicated points (noisy and exact repeats).
    auto dup = make_optimizer({{"name", name}, {"n_init", 2}}, space);
    const Vector p = (Vector(2) << 0.25, -0.5).finished();
    for (int k = 0; k < 6; ++k) dup->tell(p, 2.0 + (k % 2 == 0 ? 0.0 : 1e-9));
    for (int k = 0; k < 4; ++k) {
      Trial t;
      ASSERT_NO_THROW(t = dup->ask()) << name;
      EXPECT_NO_THROW(space.validate(t.x));
      dup->tell(t, 2.0);
      dup->tell(p, 2.0);
    }
  }
}

TEST(GpBo, EiSolvesBraninInFortyEvaluations) {
  const Problem branin = make_problem("branin");
  int solved = 0;
  std::string log;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 256}}, branin.space, branin.direction, RunContext{.seed = seed});
    RunOptions ro;
    ro.budget = 40;
    const RunSummary s = optimize(*opt, branin.objective(), ro);
    const double regret = *s.best_f - *branin.f_star;
    log += ' ';
    log += std::to_string(regret);  // (" " + string trips GCC 12's -Wrestrict false positive)
    if (regret < 1e-2) ++solved;
  }
  EXPECT_GE(solved, 9) << "regrets:" << log;
}

// The categorical distance (docs/discrete.md, "Categoricals in the models"): with the overlap
// distance a change of one boolean was as far as a continuous parameter's whole range, so the
// fitted GP (lengthscales near the prior's) saw every point two flips from the data as unknown and
// log-EI searched one flip around the best. On BOCS's binary quadratic program over 10 booleans,
// seeds 0-9 at T = 30: matched found the optimum in 6 runs (mean regret 0.11), overlap in 1 (1.15).
TEST(GpBo, MatchedCategoricalDistanceSolvesABinaryQuadraticProgram) {
  const Problem p = make_problem("bool_quadratic");
  const auto runs = [&](const std::string& distance) {
    int solved = 0;
    double total = 0.0;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      auto opt = make_optimizer({{"name", "gp-ei"}, {"categorical_distance", distance}}, p.space, p.direction, {.seed = seed});
      RunOptions ro;
      ro.budget = 30;
      const double regret = *optimize(*opt, p.objective(), ro).best_f - *p.f_star;
      solved += regret < 1e-9;
      total += regret;
    }
    return std::pair{solved, total / 10.0};
  };
  const auto [solved, mean_regret] = runs("matched");
  const auto [solved_overlap, mean_regret_overlap] = runs("overlap");
  EXPECT_GE(solved, 4);
  EXPECT_LT(mean_regret, 0.4);
  EXPECT_LE(solved_overlap, 2);
  EXPECT_GT(mean_regret_overlap, 0.8);
}

// The option's mechanics on one fit (the test above checks its outcome over 20 runs and is left
// out under the sanitizers, where this one runs): the fitted GP's kernel has the chosen distance,
// and the matched one relates two points one boolean apart more than the overlap one does.
TEST(GpBo, CategoricalDistanceOptionReachesTheFittedKernel) {
  const Problem p = make_problem("bool_quadratic");
  std::map<std::string, double> one_flip;
  for (const std::string distance : {"matched", "overlap"}) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"categorical_distance", distance}}, p.space, p.direction, {.seed = 3});
    RunOptions ro;
    ro.budget = 12;
    optimize(*opt, p.objective(), ro);
    opt->ask();  // fits the model on the 12 points
    const Kernel& k = dynamic_cast<const GpBo&>(*opt).model().kernel();
    EXPECT_EQ(k.category_distance(), distance == "matched" ? CategoryDistance::Matched : CategoryDistance::Overlap);
    Vector a = Vector::Constant(10, 0.25), b = a;
    b[0] = 0.75;  // b1 flipped
    one_flip[distance] = k(a, b) / k.variance();
    EXPECT_NEAR(k.scaled_distance(a, b), std::sqrt(category_weight(2, k.category_distance())) / k.lengthscales()[0], 1e-12);
  }
  EXPECT_GT(one_flip["matched"], one_flip["overlap"]);
}

// The stall rule (docs/robust.md): on a plateau with narrow ridges, log-EI used to settle on one
// point of a low ridge and re-evaluate it for the rest of the budget (seed 4: best 0.16, 60 of 100
// evaluations at one point). A point the GP already knows becomes a space-filling step instead.
TEST(GpBo, StallRuleNeverReEvaluatesAKnownPointOnAPlateau) {
  const Problem p = make_problem("plateau_ridge");
  for (std::uint64_t seed : {4, 7}) {
    // In the parameters' axes, where the rule was measured (rotated frames: ADiagonalRidgeGetsARotatedFrameAndItsPeak).
    auto opt = make_optimizer({{"name", "gp-ei"}, {"rotation", "none"}}, p.space, p.direction, {.seed = seed});
    double best = 0.0;
    for (int i = 0; i < 60; ++i) {
      const Trial t = opt->ask();
      for (const auto& o : opt->history())
        ASSERT_GT((o.trial.unit - t.unit).norm(), 1e-6) << "seed " << seed << ", ask " << i << " repeats a point";
      const double y = p.f(t.x);
      best = std::max(best, y);
      opt->tell(t, y);
    }
    EXPECT_GT(best, 0.5) << "seed " << seed;  // a ridge climbed (without the rule: 0.16 for seed 4)
  }
}

// The flat start (docs/robust.md, "Small budgets"): while every value told is bit-equal, a GP
// fitted to them is certain of nothing but its own variance, largest at the box's corners, and
// log-EI used to send the next steps there (plateau_ridge, seed 0: all 7 steps after the
// design at a corner or an edge, none on the ridge). The design continues
// instead: low-discrepancy points, as many on an edge as chance puts there.
TEST(GpBo, AFlatStartContinuesTheDesignInsteadOfTheCorners) {
  const Space box = Space::box(2, 0.0, 1.0);
  for (const char* algorithm : {"gp-ei", "gp-ucb", "gp-pi"}) {
    auto opt = make_optimizer({{"name", algorithm}}, box, Direction::Maximize, {.seed = 0});
    int on_an_edge = 0;
    for (int i = 0; i < 20; ++i) {
      const Trial t = opt->ask();
      on_an_edge += (t.unit.array() < 1e-3).any() || (t.unit.array() > 1 - 1e-3).any();
      opt->tell(t, 0.0);
    }
    EXPECT_TRUE(opt->values_all_equal());
    EXPECT_TRUE(opt->diagnostics().value("flat_start", false)) << algorithm;  // the trace says why
    EXPECT_LE(on_an_edge, 1) << algorithm;  // before: 10 of 20 for gp-ei and gp-ucb, 3 for gp-pi
    // The first different value ends the flat start.
    const Trial t = opt->ask();
    opt->tell(t, 1.0);
    EXPECT_FALSE(opt->values_all_equal());
    opt->ask();
    EXPECT_FALSE(opt->diagnostics().contains("flat_start")) << algorithm;
  }
}

// The noisy design (NoisyDesign, docs/gp-bo.md step 1): on a noisy plateau the values differ, so
// the flat start does not hold, but a GP fitted to pure noise predicts held-out values no better
// than their mean, and its log-EI followed its variance to the corners (noisy plateau_ridge: 17
// of 27 steps on a bound). The design continues while the model shows no skill, and ends once a
// signal makes the model predict.
TEST(GpBo, ANoisyPlateauContinuesTheDesignUntilTheModelShowsSkill) {
  const Space box = Space::box(2, 0.0, 1.0);
  const auto edges = [&](const char* design, std::uint64_t seed, int* no_skill_steps) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"noisy_design", design}}, box, Direction::Maximize,
                              RunContext{.seed = seed, .noisy = true});
    Rng noise(100 + seed);
    int on_an_edge = 0;
    for (int i = 0; i < 25; ++i) {
      const Trial t = opt->ask();
      *no_skill_steps += opt->diagnostics().value("no_skill_start", false);
      on_an_edge += (t.unit.array() < 1e-3).any() || (t.unit.array() > 1 - 1e-3).any();
      opt->tell(t, 0.1 * noise.normal());
    }
    return on_an_edge;
  };
  int until_skill = 0, fixed = 0, no_skill_steps = 0, unused = 0;
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    until_skill += edges("until-skill", seed, &no_skill_steps);
    fixed += edges("fixed", seed, &unused);
  }
  EXPECT_EQ(unused, 0);               // fixed never continues the design
  EXPECT_GE(no_skill_steps, 30);      // of the 68 steps from the eighth point on (39 when written)
  EXPECT_LE(until_skill, fixed / 2);  // the corners and edges: fewer than half as many (28 and 61)
  // A signal ends it: a smooth bowl with the same noise is modelled after a few steps.
  auto opt = make_optimizer({{"name", "gp-ei"}}, box, Direction::Maximize, RunContext{.seed = 0, .noisy = true});
  Rng noise(9);
  int late_no_skill = 0;
  double best = -1e9;
  for (int i = 0; i < 25; ++i) {
    const Trial t = opt->ask();
    if (i >= 10) late_no_skill += opt->diagnostics().value("no_skill_start", false);
    const double f = -4.0 * (t.unit - Vector::Constant(2, 0.3)).squaredNorm();
    best = std::max(best, f);
    opt->tell(t, f + 0.1 * noise.normal());
  }
  EXPECT_EQ(late_no_skill, 0);
  EXPECT_GT(best, -0.02);  // the bowl's top found
}

// The plateau's faces (PlateauDesign, docs/gp-bo.md "A plateau's faces"): after the first ridge
// point on plateau_ridge, a GP fitted to one or two values amid the plateau predicts none of them
// from the others, and its log-EI followed its variance onto the box's faces (63% of the steps
// after the first hit, 100 seeds, T = 20), where no ridge is. Such steps become design points;
// a face step near a value above the plateau is kept, so an optimum on an edge is still reached.
TEST(GpBo, OnAPlateauFaceStepsFarFromEveryFindingBecomeDesignPoints) {
  const Problem p = make_problem("plateau_ridge");
  const auto far_face_steps = [&](const char* design, std::uint64_t seed, int* replaced) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"plateau_design", design}}, p.space, p.direction, {.seed = seed});
    int far = 0;
    for (int i = 0; i < 20; ++i) {
      const Trial t = opt->ask();
      *replaced += opt->diagnostics().value("no_skill_start", false);
      const bool on_a_face = (t.unit.array() < 1e-9).any() || (t.unit.array() > 1 - 1e-9).any();
      const bool near_a_finding = std::any_of(opt->history().begin(), opt->history().end(), [&](const Observation& o) {
        return o.value > 0.0 && (o.trial.unit - t.unit).norm() <= 0.2;
      });
      far += i >= 8 && on_a_face && !near_a_finding;  // the rule judges from 8 points on
      opt->tell(t, p.f(t.x));
    }
    return far;
  };
  int faces = 0, fixed = 0, replaced = 0, unused = 0;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    faces += far_face_steps("faces", seed, &replaced);
    fixed += far_face_steps("fixed", seed, &unused);
  }
  EXPECT_EQ(unused, 0);
  EXPECT_GE(replaced, 20) << replaced;  // 39 when written
  EXPECT_LE(2 * faces, fixed) << faces << " against " << fixed;  // 21 against 51 when written
  // An optimum on an edge: a bump of radius 0.25 centred on the face x1 = 1, zero elsewhere.
  const Space box = Space::box(2, 0.0, 1.0);
  int found = 0;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    auto opt = make_optimizer({{"name", "gp-ei"}}, box, Direction::Maximize, {.seed = seed});
    double best = 0.0;
    for (int i = 0; i < 30; ++i) {
      const Trial t = opt->ask();
      const double r2 = (t.unit - Vector{{0.5, 1.0}}).squaredNorm() / 0.0625;
      const double y = r2 < 1.0 ? (1.0 - r2) * (1.0 - r2) : 0.0;
      best = std::max(best, y);
      opt->tell(t, y);
    }
    found += best > 0.99;
  }
  EXPECT_GE(found, 7) << found;  // 8 of 8 when written
}

// The same rule's mechanics on one run (the test above checks its outcome over sixteen runs and is
// left out under the sanitizers, where this one runs): a face step becomes a design point, and a
// replay of the history asks the same next point.
TEST(GpBo, PlateauFaceRuleFiresAndStaysReplayable) {
  const Problem p = make_problem("plateau_ridge");
  bool fired = false;
  for (std::uint64_t seed = 0; seed < 8 && !fired; ++seed) {
    auto opt = make_optimizer({{"name", "gp-ei"}}, p.space, p.direction, {.seed = seed});
    for (int i = 0; i < 20 && !fired; ++i) {
      const Trial t = opt->ask();
      fired = opt->diagnostics().value("no_skill_start", false);
      opt->tell(t, p.f(t.x));
    }
    if (!fired) continue;
    auto replay = make_optimizer({{"name", "gp-ei"}}, p.space, p.direction, {.seed = seed});
    for (const auto& o : opt->history()) replay->tell(o.trial.x, o.value);
    EXPECT_EQ(replay->ask().x, opt->ask().x) << "seed " << seed;
  }
  EXPECT_TRUE(fired);
}

// The value stall rule (docs/robust.md, "A stall in a flat category"): on conditional_mixed, seed
// 19, the design's best point was in the `flat` category (0.6 everywhere), and gp-ei spent 92 of
// the other 94 evaluations there, each at a new point, each returning 0.6: the kernel's
// lengthscales, shared by the three categories, are set by the two that vary. After three values
// in a row equal to the incumbent's, one step is space-filling.
TEST(GpBo, ValueStallRuleLeavesAFlatCategory) {
  const Problem p = make_problem("conditional_mixed");
  auto opt = make_optimizer({{"name", "gp-ei"}}, p.space, p.direction, {.seed = 19});
  double best = 1e300;
  int flat = 0;
  for (int i = 0; i < 100; ++i) {
    const Trial t = opt->ask();
    const double y = p.f(t.x);
    best = std::min(best, y);
    flat += t.x[0] == 2.0;  // kind = flat
    opt->tell(t, y);
  }
  EXPECT_LT(best, 0.3);  // without the rule exactly 0.6 (random search: 0.048)
  EXPECT_LT(flat, 60);   // without it 93 of 100
}

// The value stall rule in an asynchronous study: four evaluations always in flight (tell the
// oldest, ask one more), so something is pending at every ask. Before the rule applied with
// pending points, seed 19 ended at exactly 0.6, the flat category's value.
TEST(GpBo, ValueStallRuleWorksWithPendingPoints) {
  const Problem p = make_problem("conditional_mixed");
  auto opt = make_optimizer({{"name", "gp-ei"}}, p.space, p.direction, {.seed = 19});
  std::deque<Trial> in_flight;
  double best = 1e300;
  for (int told = 0; told < 100; ++told) {
    while (in_flight.size() < 4) in_flight.push_back(opt->ask());
    const Trial t = in_flight.front();
    in_flight.pop_front();
    const double y = p.f(t.x);
    best = std::min(best, y);
    opt->tell(t, y);
  }
  EXPECT_LT(best, 0.3);
}

// output_warp = half-rank (models/outcome_transform.hpp): Branin with a region of catastrophic
// values (1e6 wherever x1 > 7, a fifth of the domain, hiding the third minimum). Standardized
// by mean and sd, a few such values squash every other value to nearly one number; warped, the
// worse half is mapped to normal quantiles and the GP still sees Branin's shape.
TEST(GpBo, HalfRankWarpSolvesBraninWithCatastrophicValues) {
  const Problem branin = make_problem("branin");
  const auto objective = [&](const Vector& x) { return x[0] > 7.0 ? 1e6 : branin.f(x); };
  const auto solved_with = [&](const std::string& warp, std::string& log) {
    int solved = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 256}, {"output_warp", warp}}, branin.space,
                                branin.direction, RunContext{.seed = seed});
      double best = 1e300;
      for (int i = 0; i < 40; ++i) {
        const Trial t = opt->ask();
        const double y = objective(t.x);
        best = std::min(best, y);
        opt->tell(t, y);
      }
      const double regret = best - *branin.f_star;
      log += ' ';
      log += std::to_string(regret);
      solved += regret < 1e-2;
    }
    return solved;
  };
  std::string warped_log, plain_log;
  EXPECT_GE(solved_with("half-rank", warped_log), 9) << "regrets:" << warped_log;
  // The default (auto: alternate, compress at two steps of three) solves 9 of these 10.
  std::string default_log;
  EXPECT_GE(solved_with("auto", default_log), 8) << "regrets:" << default_log;
  // The cause it fixes: unwarped, the same runs end 0.4 to 3.9 above the optimum.
  EXPECT_LE(solved_with("none", plain_log), 3) << "regrets:" << plain_log;
}

// The structure behind the test above (cheap enough for the sanitizer suite): with output_warp the
// GP holds the warped values of every observation, at each ask and after a refit.
TEST(GpBo, AWarpKeepsTheModelOnTheWarpedValues) {
  const Problem branin = make_problem("branin");
  for (const std::string warp : {"half-rank", "compress", "power", "alternate", "auto"}) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 64}, {"restarts", 2}, {"output_warp", warp}},
                              branin.space, Direction::Maximize, RunContext{.seed = 3});
    const auto& gp_bo = dynamic_cast<const GpBo&>(*opt);
    Vector told(0);
    for (int i = 0; i < 14; ++i) {
      const Trial t = opt->ask();
      const double y = i % 5 == 4 ? -1e6 : -branin.f(t.x);  // maximized: the outliers are the worst values
      opt->tell(t, y);
      told.conservativeResize(i + 1);
      told[i] = y;
      // alternate (auto's choice for gp-ei in 2-D): the raw values at every third step.
      const OutputWarp named = kOutputWarpNames.parse(warp, "output_warp");
      const bool rule = named == OutputWarp::Alternate || named == OutputWarp::Auto;
      const OutputWarp now = !rule ? named : told.size() % GpBo::kAlternatePeriod == 0 ? OutputWarp::None : OutputWarp::Compress;
      const Vector expected = warp_outputs(told, now);
      ASSERT_EQ(gp_bo.model().outputs().size(), expected.size());
      for (Eigen::Index k = 0; k < expected.size(); ++k)
        EXPECT_EQ(gp_bo.model().outputs()[k], expected[k]) << warp << ", step " << i;
      if (i >= 4 && now != OutputWarp::None) {
        EXPECT_GT(gp_bo.model().outputs().minCoeff(), -1e5) << warp << ", step " << i;  // the -1e6 lands near the others
      }
    }
  }
}

// The prior mean (docs/gp-bo.md, "The prior mean"): gp-ei's default is the worst value seen while
// the model sees the raw values (every third step with the alternate warp), learned on the
// compress steps; the trace's diagnostics say which value the model reverts to.
TEST(GpBo, TheDefaultPriorMeanIsTheWorstValueOnRawSteps) {
  const Problem branin = make_problem("branin");  // minimized: the worst value is the largest
  auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 64}, {"restarts", 2}}, branin.space, branin.direction,
                            RunContext{.seed = 2});
  EXPECT_EQ(opt->decisions()["resolved"]["mean"], "worst-unwarped");
  double worst = -std::numeric_limits<double>::infinity();
  int raw_steps = 0, compress_steps = 0;
  for (int i = 0; i < 15; ++i) {
    const Trial t = opt->ask();
    const nlohmann::json d = opt->diagnostics();
    if (d.contains("gp_prior_mean")) {
      const double prior_mean = d["gp_prior_mean"];
      if (d["output_warp"] == "none") {
        ++raw_steps;
        EXPECT_NEAR(prior_mean, worst, 1e-9 * std::abs(worst)) << "step " << i;
      } else {
        ++compress_steps;
        EXPECT_LT(prior_mean, worst - 1.0) << "step " << i;  // learned: nearer the data's level
      }
    }
    const double y = branin.f(t.x);
    worst = std::max(worst, y);
    opt->tell(t, y);
  }
  EXPECT_GE(raw_steps, 3);
  EXPECT_GE(compress_steps, 6);
  EXPECT_EQ(make_optimizer({{"name", "gp-pi"}}, branin.space, branin.direction, {})->decisions()["resolved"]["mean"],
            "worst-unwarped");
  EXPECT_EQ(make_optimizer({{"name", "gp-ucb"}}, branin.space, branin.direction, {})->decisions()["resolved"]["mean"],
            "learned");
  auto named = make_optimizer({{"name", "gp-ei"}, {"mean", "worst"}}, branin.space, branin.direction, {});
  EXPECT_FALSE(named->decisions()["resolved"].contains("mean"));  // named, not resolved
}

// The mean's margin (docs/gp-bo.md, "The mean's margin"): from 6 parameters on, the raw steps'
// model reverts to one sample sd of the values told below the worst value (above it: minimized).
TEST(GpBo, FromSixParametersTheWorstMeanSitsOneSdBelowTheWorstValue) {
  const Problem p = make_problem("hartmann6");  // minimized
  auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 64}, {"restarts", 2}}, p.space, p.direction,
                            RunContext{.seed = 1});
  EXPECT_EQ(opt->decisions()["resolved"]["mean_margin"], 1.0);
  std::vector<double> told;
  int raw_steps = 0;
  for (int i = 0; i < 16; ++i) {
    const Trial t = opt->ask();
    const nlohmann::json d = opt->diagnostics();
    if (d.contains("gp_prior_mean") && d["output_warp"] == "none") {
      ++raw_steps;
      const Vector y = Eigen::Map<const Vector>(told.data(), static_cast<Eigen::Index>(told.size()));
      const double sd = std::sqrt((y.array() - y.mean()).square().sum() / static_cast<double>(y.size() - 1));
      EXPECT_NEAR(d["gp_prior_mean"].get<double>(), y.maxCoeff() + sd, 1e-9 * sd) << "step " << i;
    }
    told.push_back(p.f(t.x));
    opt->tell(t, told.back());
  }
  EXPECT_GE(raw_steps, 3);
  const Problem branin = make_problem("branin");
  EXPECT_EQ(make_optimizer({{"name", "gp-ei"}}, branin.space, branin.direction, {})->decisions()["resolved"]["mean_margin"],
            0.0);
  EXPECT_FALSE(make_optimizer({{"name", "gp-ucb"}}, p.space, p.direction, {})->decisions()["resolved"].contains("mean_margin"));
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"mean_margin", -0.5}}, p.space, p.direction, {}), InvalidArgument);
}

// plateau_ridge's good ridge runs along a diagonal of its two log-scaled parameters: in the
// parameters' axes the fit explained it as noise and log-EI crept along it a few hundredths of a
// decade per step (seed 12: from the box's face at u = 3 to u = 2.5 in 30 steps). In the frame
// rotated by 45 degrees it is one short lengthscale across and one long along.
TEST(GpBo, ADiagonalRidgeGetsARotatedFrameAndItsPeak) {
  const Problem p = make_problem("plateau_ridge");  // maximized, f* = 1
  int peaks = 0;
  std::string log;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    auto opt = make_optimizer({{"name", "gp-ei"}}, p.space, p.direction, RunContext{.seed = seed});
    ASSERT_EQ(opt->decisions()["resolved"]["rotation"], "angles");
    RunOptions ro;
    ro.budget = 50;
    const RunSummary s = optimize(*opt, p.objective(), ro);
    const double degrees = opt->diagnostics().at("gp_frame_degrees").get<double>();
    EXPECT_GE(degrees, 30.0) << "seed " << seed;
    EXPECT_LE(degrees, 60.0) << "seed " << seed;
    log += ' ';
    log += std::to_string(1.0 - *s.best_f);  // (" " + string trips GCC 12's -Wrestrict false positive)
    if (1.0 - *s.best_f < 0.05) ++peaks;
  }
  // The parameters' axes reach the peak on 1 of these 5 seeds (rotation: none).
  EXPECT_GE(peaks, 3) << "regrets:" << log;
}

// The frame is chosen from the told history with the fit's seed of that size: a resumed run
// chooses the same frames and continues exactly.
TEST(GpBo, ARunInRotatedFramesResumesExactly) {
  const Problem p = make_problem("plateau_ridge");
  const Objective f = p.objective();
  RunOptions options;
  options.budget = 30;
  const nlohmann::json spec = {{"name", "gp-ei"}, {"raw_samples", 128}, {"restarts", 4}};
  auto original = make_optimizer(spec, p.space, p.direction, RunContext{.seed = 2});
  const RunSummary full = optimize(*original, f, options);
  ASSERT_EQ(full.evaluations.size(), 30u);
  EXPECT_NE(original->diagnostics().at("gp_frame_degrees").get<double>(), 0.0);  // rotated by the end
  RunOptions resumed_options = options;
  for (std::size_t i = 0; i < 18; ++i) resumed_options.resume_from.push_back(full.evaluations[i]);
  auto resumed = make_optimizer(spec, p.space, p.direction, RunContext{.seed = 2});
  const RunSummary rest = optimize(*resumed, f, resumed_options);
  ASSERT_EQ(rest.evaluations.size(), 30u);
  for (std::size_t i = 18; i < 30; ++i) ASSERT_EQ(rest.evaluations[i].x, full.evaluations[i].x) << "evaluation " << i + 1;
}

TEST(GpBo, RotatedFramesAreForTwoContinuousParameters) {
  const Problem branin = make_problem("branin"), h6 = make_problem("hartmann6"), ints = make_problem("int_sincos");
  EXPECT_EQ(make_optimizer({{"name", "gp-ei"}}, h6.space, h6.direction, {})->decisions()["resolved"]["rotation"], "none");
  EXPECT_EQ(make_optimizer({{"name", "gp-ei"}}, ints.space, ints.direction, {})->decisions()["resolved"]["rotation"], "none");
  EXPECT_EQ(make_optimizer({{"name", "gp-ucb"}}, branin.space, branin.direction, {})->decisions()["resolved"]["rotation"], "none");
  auto axes = make_optimizer({{"name", "gp-ei"}, {"rotation", "none"}}, branin.space, branin.direction, {});
  EXPECT_FALSE(axes->decisions().value("resolved", nlohmann::json::object()).contains("rotation"));
  for (int i = 0; i < 8; ++i) {
    const Trial t = axes->ask();
    axes->tell(t, branin.f(t.x));
  }
  EXPECT_FALSE(axes->diagnostics().contains("gp_frame_degrees"));
  try {
    make_optimizer({{"name", "gp-ei"}, {"rotation", "angles"}}, h6.space, h6.direction, {});
    ADD_FAILURE() << "angles accepted in 6-D";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("2 continuous parameters, the space has 6"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"rotation", "diagonal"}}, branin.space, branin.direction, {}), InvalidArgument);
}

// A compress step that moves no value is a raw step: the model sees raw values and reverts to the
// worst one, as on the raw steps (plateau_ridge: more than half the values tie at the worst, so
// none lies below the median). Here a bump on a plateau at 0; the compress warp is recomputed from
// the values told and decides which mean each compress step must use.
TEST(GpBo, ACompressStepThatMovesNoValueKeepsTheWorstMean) {
  const Space space = Space().add_continuous("a", 0.0, 1.0).add_continuous("b", 0.0, 1.0);
  auto f = [](const Vector& x) { return -std::max(0.0, 1.0 - 20.0 * ((x - Vector{{0.3, 0.6}}).squaredNorm())); };
  auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 64}, {"restarts", 2}}, space, Direction::Minimize,
                            RunContext{.seed = 3});
  std::vector<double> maximized;  // the model's values: -f
  int unmoved_steps = 0, moved_steps = 0;
  for (int i = 0; i < 30; ++i) {
    const Trial t = opt->ask();
    const nlohmann::json d = opt->diagnostics();
    if (d.contains("gp_prior_mean") && d["output_warp"] == "compress") {
      const double prior_mean = d["gp_prior_mean"];  // the objective's units
      const Vector y = Eigen::Map<const Vector>(maximized.data(), static_cast<Eigen::Index>(maximized.size()));
      if (warp_outputs(y, OutputWarp::Compress) == y) {
        ++unmoved_steps;
        EXPECT_NEAR(prior_mean, -y.minCoeff(), 1e-12) << "step " << i;  // the worst value
      } else {
        ++moved_steps;
        EXPECT_LT(prior_mean, -y.minCoeff() - 1e-3) << "step " << i;  // learned, nearer the compressed values
      }
    }
    const double value = f(t.x);
    maximized.push_back(-value);
    opt->tell(t, value);
  }
  EXPECT_GE(unmoved_steps, 2);
  EXPECT_GE(moved_steps, 2);
}

// The reason for it: with a learned mean, the model reverts to the data's level away from the
// data, and log-EI spends steps on the box's faces for their variance alone. Hartmann-6's optimum
// is interior; seeds 0-4, 40 evaluations: 35 points on a face with the learned mean, 4 with the worst
// value itself (margin 0; the 6-D default's margin of one sd puts 25 there, level in regret).
TEST(GpBo, TheWorstMeanKeepsLogEiOffTheFaces) {
  const Problem p = make_problem("hartmann6");
  std::map<std::string, int> on_a_face;
  for (const std::string mean : {"worst-unwarped", "learned"})
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      auto opt = make_optimizer({{"name", "gp-ei"}, {"mean", mean}, {"mean_margin", 0.0}}, p.space, p.direction, {.seed = seed});
      RunOptions ro;
      ro.budget = 40;
      optimize(*opt, p.objective(), ro);
      for (const Observation& o : opt->history())
        on_a_face[mean] += (o.trial.unit.array() <= 0.0).any() || (o.trial.unit.array() >= 1.0).any();
    }
  EXPECT_LE(on_a_face["worst-unwarped"], 10);
  EXPECT_GE(on_a_face["learned"], 3 * on_a_face["worst-unwarped"]);
}

// A region where the objective fails (Branin's fifth x1 > 7, holding its third minimum): left out
// of the model, gp-ei learns nothing there and kept returning (32 of 40 evaluations failed, worse
// than random search); at the worst value so far (the default) it leaves and solves the rest.
TEST(GpBo, FailingRegionIsNotSampledAgainAndAgain) {
  const Problem branin = make_problem("branin");
  const auto run = [&](const std::string& failed_points, int& solved, std::string& log) {
    std::size_t failures = 0;
    solved = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      // In the parameters' axes, where the figures below were measured (rotated frames cost six fits a step).
      auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 256}, {"failed_points", failed_points}, {"rotation", "none"}},
                                branin.space, branin.direction, RunContext{.seed = seed});
      double best = 1e300;
      for (int i = 0; i < 40; ++i) {
        const Trial t = opt->ask();
        if (t.x[0] > 7.0) {
          opt->tell_failed(t, "simulation diverged");
          ++failures;
          continue;
        }
        const double y = branin.f(t.x);
        best = std::min(best, y);
        opt->tell(t, y);
      }
      log += ' ';
      log += std::to_string(best - *branin.f_star);
      solved += best - *branin.f_star < 1e-2;
    }
    return static_cast<double>(failures) / 10.0;
  };
  int solved = 0, solved_ignoring = 0;
  std::string log, log_ignoring;
  EXPECT_LE(run("worst", solved, log), 8.0);  // measured 2.9 per run
  EXPECT_GE(solved, 9) << "regrets:" << log;
  EXPECT_GE(run("ignore", solved_ignoring, log_ignoring), 20.0);  // the cause: measured 32 per run
}

// The structure behind it: failed points enter the model at the worst successful value so far,
// move with it, and failures told before any success wait for one.
TEST(GpBo, FailedPointsHoldTheWorstValueSoFar) {
  const Space space = Space::box(2, 0.0, 1.0);
  auto opt = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 64}, {"restarts", 2}, {"output_warp", "none"}}, space,
                            Direction::Maximize, RunContext{.seed = 2});
  const auto& gp_bo = dynamic_cast<const GpBo&>(*opt);
  const std::vector<std::optional<double>> values = {std::nullopt, 3.0, 5.0, std::nullopt, 1.0, 4.0, std::nullopt, -2.0};
  for (const auto& v : values) {
    const Trial t = opt->ask();
    if (v) opt->tell(t, *v);
    else opt->tell_failed(t, "failed");
  }
  // Model order: the first success, the failure told before it, then as told; failures at -2.
  const Vector outputs = gp_bo.model().outputs();
  ASSERT_EQ(outputs.size(), 8);
  const std::vector<double> expected = {3.0, -2.0, 5.0, -2.0, 1.0, 4.0, -2.0, -2.0};
  for (Eigen::Index k = 0; k < 8; ++k) EXPECT_EQ(outputs[k], expected[static_cast<std::size_t>(k)]) << k;
  // "ignore" leaves them out.
  auto ignoring = make_optimizer({{"name", "gp-ei"}, {"raw_samples", 64}, {"restarts", 2}, {"failed_points", "ignore"}},
                                 space, Direction::Maximize, RunContext{.seed = 2});
  for (const auto& v : values) {
    const Trial t = ignoring->ask();
    if (v) ignoring->tell(t, *v);
    else ignoring->tell_failed(t, "failed");
  }
  EXPECT_EQ(dynamic_cast<const GpBo&>(*ignoring).model().outputs().size(), 5);
}
