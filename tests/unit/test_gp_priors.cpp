// Gamma hyperparameter priors (BoTorch 0.8's SingleTaskGP), the GPyTorch-style Adam fit of
// TuRBO's reference recipe, and the gp-bo / turbo options that select them.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/gp/adam_fit.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

using namespace optimist;

namespace {

GaussianProcess smooth_gp(GpOptions opt, Eigen::Index d = 3, Eigen::Index n = 30) {
  Rng rng(5);
  Matrix X(d, n);
  Vector y(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    X.col(j) = rng.uniform_vector(d);
    y[j] = std::sin(4.0 * X(0, j)) + (X.col(j).array() - 0.3).square().sum() + 0.01 * rng.normal();
  }
  GaussianProcess gp(d, opt);
  gp.set_data(X, y);
  return gp;
}

GpOptions botorch_priors() {
  GpOptions o;
  o.lengthscale_prior = GammaPrior{3.0, 6.0};
  o.outputscale_prior = GammaPrior{2.0, 0.15};
  o.noise_prior = GammaPrior{1.1, 0.05};
  o.min_noise_variance = 1e-4;
  return o;
}

}  // namespace

TEST(GammaPrior, DensityGradientAndModeMatchClosedForms) {
  const GammaPrior g{3.0, 6.0};
  // log p(0.5) = 3 log 6 - log Gamma(3) + 2 log 0.5 - 6 * 0.5.
  EXPECT_NEAR(g.log_density(0.5), 3.0 * std::log(6.0) - std::log(2.0) + 2.0 * std::log(0.5) - 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(g.mode(), 1.0 / 3.0);
  for (double theta : {0.01, 0.3, 2.0}) {
    const double h = 1e-6;
    const double fd = (g.log_density(theta * std::exp(h)) - g.log_density(theta * std::exp(-h))) / (2 * h);
    EXPECT_NEAR(g.log_density_gradient(theta), fd, 1e-6);
  }
  EXPECT_GT(GammaPrior({0.5, 1.0}).mode(), 0.0);  // no interior mode: the smallest positive value
  const HyperparameterPrior wrapped = GammaPrior{2.0, 0.15};
  EXPECT_NEAR(wrapped.mode(), 1.0 / 0.15, 1e-12);
  EXPECT_FALSE(HyperparameterPrior(GammaPrior{0.0, 1.0}).valid());
  EXPECT_FALSE(HyperparameterPrior(LogNormalPrior{0.0, -1.0}).valid());
}

TEST(GammaPrior, LogPosteriorGradientMatchesFiniteDifferences) {
  const GaussianProcess gp = smooth_gp(botorch_priors());
  Vector theta = gp.parameters();
  theta.head(3) << -1.2, -0.4, 0.2;
  theta[3] = 0.3;
  theta[4] = std::log(0.02);
  Vector g;
  gp.log_marginal_likelihood(theta, &g, true);
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    Vector a = theta, b = theta;
    a[i] += 1e-5;
    b[i] -= 1e-5;
    const double fd = (gp.log_marginal_likelihood(a, nullptr, true) - gp.log_marginal_likelihood(b, nullptr, true)) / 2e-5;
    EXPECT_NEAR(g[i], fd, 1e-5 * std::max(1.0, std::abs(fd))) << i;
  }
  // The model starts at the prior modes (noise: 0.1 / 0.05 = 2, inside the bounds).
  const GaussianProcess fresh(3, botorch_priors());
  EXPECT_NEAR(fresh.hyperparameters().lengthscales[0], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(fresh.hyperparameters().outputscale, 1.0 / 0.15, 1e-9);
  GpOptions bad = botorch_priors();
  bad.noise_prior = GammaPrior{1.0, -1.0};
  EXPECT_THROW(GaussianProcess(2, bad), InvalidArgument);
}

TEST(AdamFit, ImprovesTheLikelihoodStaysInBoundsAndApproachesLbfgs) {
  GpOptions o;
  o.use_priors = false;  // the reference fits maximum likelihood
  o.min_lengthscale = 0.005;
  o.max_lengthscale = 2.0;
  o.min_outputscale = 0.05;
  o.max_outputscale = 20.0;
  o.min_noise_variance = 5e-4;
  o.max_noise_variance = 0.2;
  GaussianProcess gp = smooth_gp(o);
  GpHyperparameters h;
  h.lengthscales = Vector::Constant(3, 0.5);
  h.outputscale = 1.0;
  h.noise_variance = 0.005;
  gp.set_hyperparameters(h);
  const double start = gp.log_marginal_likelihood();

  GaussianProcess adam50 = gp;
  fit_hyperparameters_adam(adam50);
  EXPECT_GT(adam50.log_marginal_likelihood(), start);
  Vector lo, hi;
  adam50.parameter_bounds(lo, hi);
  const Vector theta = adam50.parameters();
  for (Eigen::Index i = 0; i + 1 < theta.size(); ++i) {  // the mean (last) is unconstrained
    EXPECT_GE(theta[i], lo[i] - 1e-12);
    EXPECT_LE(theta[i], hi[i] + 1e-12);
  }
  // Many steps reach about the L-BFGS-B optimum.
  GaussianProcess adam_long = gp;
  AdamFitOptions long_run;
  long_run.steps = 2000;
  long_run.learning_rate = 0.02;
  fit_hyperparameters_adam(adam_long, long_run);
  GaussianProcess lbfgs = gp;
  Rng rng(3);
  lbfgs.fit(rng);
  EXPECT_GT(adam_long.log_marginal_likelihood(), lbfgs.log_marginal_likelihood() - 0.05 * std::abs(lbfgs.log_marginal_likelihood()) - 0.5);
  // No data: no-op.
  GaussianProcess empty(2, o);
  EXPECT_NO_THROW(fit_hyperparameters_adam(empty));
}

TEST(GpBoPriors, AutoIsTheDefaultAndOptionsAreChecked) {
  const Space space = Space::box(3, 0.0, 1.0);
  EXPECT_EQ(GpBoOptions{}.prior, GpPrior::Auto);
  // auto: BoTorch 0.8's noise prior for gp-ei with 2 to 12 parameters, the gammas otherwise.
  GpBoOptions ei, ucb;
  ucb.acquisition = Acquisition::Ucb;
  EXPECT_EQ(GpBo::resolved_prior(ei, 12), GpPrior::Botorch);
  EXPECT_EQ(GpBo::resolved_prior(ei, 13), GpPrior::Gamma);
  EXPECT_EQ(GpBo::resolved_prior(ei, 1), GpPrior::Gamma);  // precision on smooth 1-D functions
  EXPECT_EQ(GpBo::resolved_prior(ucb, 3), GpPrior::Gamma);
  // output_warp auto: alternate for gp-ei and gp-pi with 2 to 12 parameters, none of them categorical.
  EXPECT_EQ(GpBoOptions{}.output_warp, OutputWarp::Auto);
  EXPECT_EQ(GpBo::resolved_output_warp(ei, Space::box(12, 0.0, 1.0)), OutputWarp::Alternate);
  EXPECT_EQ(GpBo::resolved_output_warp(ei, Space::box(13, 0.0, 1.0)), OutputWarp::None);
  EXPECT_EQ(GpBo::resolved_output_warp(ei, Space::box(1, 0.0, 1.0)), OutputWarp::None);  // the 1-D workshop tasks
  EXPECT_EQ(GpBo::resolved_output_warp(ucb, space), OutputWarp::None);
  GpBoOptions pi;
  pi.acquisition = Acquisition::Pi;
  EXPECT_EQ(GpBo::resolved_output_warp(pi, space), OutputWarp::Alternate);
  EXPECT_EQ(GpBo::resolved_output_warp(pi, Space::box(13, 0.0, 1.0)), OutputWarp::None);
  Space mixed;
  mixed.add_continuous("a", 0.0, 1.0).add_integer("b", 0, 9);
  EXPECT_EQ(GpBo::resolved_output_warp(ei, mixed), OutputWarp::Alternate);
  mixed.add_categorical("c", {"x", "y"});
  EXPECT_EQ(GpBo::resolved_output_warp(ei, mixed), OutputWarp::None);  // a choice between landscapes
  ei.output_warp = OutputWarp::Compress;
  EXPECT_EQ(GpBo::resolved_output_warp(ei, mixed), OutputWarp::Compress);
  ei.output_warp = OutputWarp::Auto;
  // mean auto: the worst value on raw steps for gp-ei and gp-pi with 1 to 12 parameters (docs/gp-bo.md, "The prior mean").
  EXPECT_EQ(GpBoOptions{}.mean, GpMean::Auto);
  EXPECT_EQ(GpBo::resolved_mean(ei, 1), GpMean::WorstUnwarped);
  EXPECT_EQ(GpBo::resolved_mean(ei, 12), GpMean::WorstUnwarped);
  EXPECT_EQ(GpBo::resolved_mean(ei, 13), GpMean::Learned);  // styblinski_tang-20 worse, ackley-20 better: mixed
  EXPECT_EQ(GpBo::resolved_mean(ucb, 3), GpMean::Learned);
  EXPECT_EQ(GpBo::resolved_mean(pi, 3), GpMean::WorstUnwarped);
  EXPECT_EQ(GpBo::resolved_mean(pi, 13), GpMean::Learned);
  ei.mean = GpMean::Worst;
  EXPECT_EQ(GpBo::resolved_mean(ei, 20), GpMean::Worst);
  ei.mean = GpMean::Auto;
  ei.prior = GpPrior::Classic;
  EXPECT_EQ(GpBo::resolved_prior(ei, 3), GpPrior::Classic);
  auto in_3d = make_optimizer({{"name", "gp-ei"}}, space, Direction::Maximize, RunContext{.seed = 2});
  EXPECT_EQ(dynamic_cast<GpBo&>(*in_3d).model().options().min_noise_variance, 1e-4);  // BoTorch 0.8's bound
  auto in_20d = make_optimizer({{"name", "gp-ei"}}, Space::box(20, 0.0, 1.0), Direction::Maximize, RunContext{.seed = 2});
  EXPECT_EQ(dynamic_cast<GpBo&>(*in_20d).model().options().min_noise_variance, 1e-6);
  // What auto resolved to is the run's decision (trace meta, summary, res.decisions); a prior the
  // user named is not a decision.
  EXPECT_EQ(in_3d->decisions(),
            nlohmann::json::parse(R"({"resolved": {"prior": "botorch", "output_warp": "alternate", "mean": "worst-unwarped", "mean_margin": 0.0, "rotation": "none"}})"));
  EXPECT_EQ(in_20d->decisions(),
            nlohmann::json::parse(R"({"resolved": {"prior": "gamma", "output_warp": "none", "mean": "learned", "rotation": "none"}})"));
  EXPECT_TRUE(make_optimizer({{"name", "gp-ei"}, {"prior", "gamma"}, {"output_warp", "compress"}, {"mean", "learned"}, {"rotation", "none"}}, space)
                  ->decisions()
                  .empty());
  EXPECT_EQ(make_optimizer({{"name", "gp-ucb"}}, space)->decisions(),
            nlohmann::json::parse(R"({"resolved": {"prior": "gamma", "output_warp": "none", "mean": "learned", "rotation": "none", "beta": 4.0}})"));  // none of gp-ei's rules; two sds (a continuous space)
  EXPECT_EQ(make_optimizer({{"name", "gp-pi"}}, space)->decisions(),
            nlohmann::json::parse(R"({"resolved": {"prior": "gamma", "output_warp": "alternate", "mean": "worst-unwarped", "mean_margin": 0.0, "rotation": "none"}})"));  // not the prior's
  for (const char* prior : {"auto", "gamma", "botorch", "classic", "dimension-scaled"})
    for (const char* fit : {"warm", "fresh"}) {
      auto opt = make_optimizer({{"name", "gp-ei"}, {"prior", prior}, {"fit", fit}, {"n_init", 4}}, space, Direction::Maximize, RunContext{.seed = 2});
      for (int k = 0; k < 6; ++k) {
        const Trial t = opt->ask();
        opt->tell(t, -(t.unit.array() - 0.3).square().sum());
      }
      const GaussianProcess& gp = dynamic_cast<GpBo&>(*opt).model();
      EXPECT_EQ(gp.size(), 6);
      EXPECT_GE(gp.hyperparameters().noise_variance, gp.options().min_noise_variance);
    }
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"prior", "lognormal"}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "gp-ei"}, {"fit", "adam"}}, space), InvalidArgument);
}

TEST(TurboReference, LatinHypercubeDesignAndReferenceRecipeRun) {
  const Space space = Space::box(4, 0.0, 1.0);
  auto opt = make_optimizer({{"name", "turbo"}, {"recipe", "reference"}, {"init", "lhs"}, {"n_init", 5}}, space, Direction::Maximize, RunContext{.seed = 3});
  std::vector<Trial> design = opt->ask(5);
  // One point per cell of width 1/5 in every coordinate.
  for (Eigen::Index i = 0; i < 4; ++i) {
    std::vector<int> hits(5, 0);
    for (const Trial& t : design) ++hits[static_cast<std::size_t>(std::min(4.0, std::floor(5.0 * t.unit[i])))];
    for (int h : hits) EXPECT_EQ(h, 1) << "coordinate " << i;
  }
  for (const Trial& t : design) opt->tell(t, -(t.unit.array() - 0.6).square().sum());
  double best = -1e9;
  for (int k = 0; k < 15; ++k) {
    const Trial t = opt->ask();
    const double y = -(t.unit.array() - 0.6).square().sum();
    best = std::max(best, y);
    opt->tell(t, y);
  }
  const GaussianProcess& gp = dynamic_cast<Turbo&>(*opt).model();
  EXPECT_EQ(gp.size(), 20);
  EXPECT_LE(gp.hyperparameters().lengthscales.maxCoeff(), 2.0 + 1e-12);
  EXPECT_GT(best, -0.15);  // the bowl's maximum is 0; a random point averages about -0.45
  EXPECT_THROW(make_optimizer({{"name", "turbo"}, {"recipe", "paper"}}, space), InvalidArgument);
}
