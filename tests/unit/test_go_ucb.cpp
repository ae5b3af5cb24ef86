#include <gtest/gtest.h>
#include <algorithm>
#include <set>

#include <Eigen/QR>

#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/algorithms/parametric/go_ucb_variants.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;
using Rep = GradientEllipsoid::Representation;

namespace {

struct LinearizedData {
  Vector w0;
  std::vector<Vector> g;
  std::vector<double> c;  // linearization targets g_i^T w_i + y_i - f_i
};

LinearizedData linearized_data(Eigen::Index d, int t, std::uint64_t seed) {
  Rng rng(seed);
  LinearizedData data{rng.normal_vector(d), {}, {}};
  for (int i = 0; i < t; ++i) {
    data.g.push_back(rng.normal_vector(d));
    const Vector w_i = rng.normal_vector(d);
    const double y = rng.normal(), f = rng.normal();
    data.c.push_back(data.g.back().dot(w_i) + y - f);
  }
  return data;
}

GradientEllipsoid build(const LinearizedData& data, double lambda, Rep rep) {
  GradientEllipsoid e(data.w0, lambda, rep);
  for (std::size_t i = 0; i < data.g.size(); ++i) e.add(data.g[i], data.c[i]);
  return e;
}

}  // namespace

TEST(GradientEllipsoid, ClosedFormCenterMinimizesTheLinearizedLeastSquares) {
  // Eq. (4) as a stacked least-squares problem [sqrt(lambda) I; G] w ~ [sqrt(lambda) w0; c], solved by QR.
  for (Rep rep : {Rep::Dense, Rep::LowRank}) {
    for (int t : {3, 40}) {
      const Eigen::Index d = 12;
      const double lambda = 0.7;
      const LinearizedData data = linearized_data(d, t, 17 + t);
      Matrix A(d + t, d);
      Vector b(d + t);
      A.topRows(d) = std::sqrt(lambda) * Matrix::Identity(d, d);
      b.head(d) = std::sqrt(lambda) * data.w0;
      for (int i = 0; i < t; ++i) {
        A.row(d + i) = data.g[static_cast<std::size_t>(i)].transpose();
        b[d + i] = data.c[static_cast<std::size_t>(i)];
      }
      const Vector direct = A.colPivHouseholderQr().solve(b);
      const GradientEllipsoid e = build(data, lambda, rep);
      EXPECT_LT((e.center() - direct).norm(), 1e-9 * (1 + direct.norm())) << "t = " << t;
    }
  }
}

TEST(GradientEllipsoid, IncrementalFactorEqualsFullRecomputation) {
  const Eigen::Index d = 30;
  const double lambda = 2.0;
  const LinearizedData data = linearized_data(d, 120, 5);
  Matrix sigma = lambda * Matrix::Identity(d, d);
  for (const auto& g : data.g) sigma += g * g.transpose();
  const Matrix L = Eigen::LLT<Matrix>(sigma).matrixL();
  const GradientEllipsoid dense = build(data, lambda, Rep::Dense);
  EXPECT_LT((dense.dense_factor() - L).norm(), 1e-9 * L.norm());
  const GradientEllipsoid low = build(data, lambda, Rep::LowRank);
  EXPECT_LT((low.sigma() - sigma).norm(), 1e-9 * sigma.norm());
  Rng rng(3);
  for (int k = 0; k < 10; ++k) {
    const Vector g = rng.normal_vector(d);
    const double exact = std::sqrt(g.dot(sigma.llt().solve(g)));
    EXPECT_NEAR(dense.inverse_norm(g), exact, 1e-9 * exact);
    EXPECT_NEAR(low.inverse_norm(g), exact, 1e-9 * exact);
  }
}

TEST(GradientEllipsoid, InverseNormsOfManyRowsEqualTheExactBonusNorm) {
  // Step 5 scores its raw samples in blocks through inverse_norms (a triangular solve or one
  // product with the low-rank basis): each row must be ||g||_{Sigma^-1} of eq. (3), also before
  // any Phase II gradient (t = 0: Sigma = lambda I), and by BLAS's solve once a Dense Sigma of
  // kLapackFrom weights or more holds kLapackFrom gradients (d = 130, t = 140).
  const double lambda = 0.9;
  for (Rep rep : {Rep::Dense, Rep::LowRank}) {
    for (auto [d, t] : {std::pair<Eigen::Index, int>{20, 0}, {20, 1}, {20, 7}, {20, 35}, {130, 140}}) {
      const LinearizedData data = linearized_data(d, t, 31 + t);
      const GradientEllipsoid e = build(data, lambda, rep);
      Matrix sigma = lambda * Matrix::Identity(d, d);
      for (const auto& g : data.g) sigma += g * g.transpose();
      Rng rng(9);
      Matrix J(6, d);
      for (Eigen::Index i = 0; i < J.rows(); ++i) J.row(i) = rng.normal_vector(d).transpose();
      if (t > 0) J.row(2) = data.g[0].transpose();  // a kept direction
      J.row(3).setZero();
      const Vector norms = e.inverse_norms(J);
      ASSERT_EQ(norms.size(), J.rows());
      for (Eigen::Index i = 0; i < J.rows(); ++i) {
        const Vector g = J.row(i).transpose();
        const double exact = std::sqrt(g.dot(sigma.llt().solve(g)));
        EXPECT_NEAR(norms[i], exact, 1e-9 * (1 + exact)) << "t = " << t << ", row " << i;
        EXPECT_NEAR(norms[i], e.inverse_norm(g), 1e-12 * (1 + exact)) << "t = " << t << ", row " << i;
      }
    }
  }
}

TEST(GradientEllipsoid, AddManyIsBitForBitTheSameAsAddingOneByOne) {
  // A refit rebuilds Sigma_t from all Phase II gradients at once (add_many): the same state as
  // the one-by-one adds it replaced, so that runs keep their points exactly.
  // (t = 150 crosses the point where LowRank becomes Dense, 128.)
  for (auto [rep, t] : {std::pair{Rep::Dense, 40}, std::pair{Rep::Dense, 100}, std::pair{Rep::LowRank, 40},
                        std::pair{Rep::LowRank, 150}}) {
    const Eigen::Index d = 25;
    const LinearizedData data = linearized_data(d, t, 21);
    const GradientEllipsoid one_by_one = build(data, 0.8, rep);
    GradientEllipsoid batch(data.w0, 0.8, rep);
    batch.add(data.g[0], data.c[0]);  // a batch can follow single adds
    Matrix G(t - 1, d);
    Vector c(t - 1);
    for (Eigen::Index i = 0; i < t - 1; ++i) {
      G.row(i) = data.g[static_cast<std::size_t>(i + 1)].transpose();
      c[i] = data.c[static_cast<std::size_t>(i + 1)];
    }
    batch.add_many(G, c);
    EXPECT_EQ(batch.size(), static_cast<std::size_t>(t));
    EXPECT_EQ(batch.representation(), t >= 128 ? Rep::Dense : rep);
    EXPECT_TRUE(batch.center() == one_by_one.center());
    if (batch.representation() == Rep::Dense) {
      EXPECT_TRUE(batch.dense_factor() == one_by_one.dense_factor());
    }
    Rng rng(4);
    for (int k = 0; k < 5; ++k) {
      const Vector g = rng.normal_vector(d);
      EXPECT_EQ(batch.inverse_norm(g), one_by_one.inverse_norm(g));
    }
    EXPECT_THROW(batch.add_many(G, c.head(3)), InvalidArgument);
  }
}

TEST(GradientEllipsoid, LowRankBecomesDenseAtManyObservationsAndStaysExact) {
  // Past dense_from(d_w) = max(128, d_w / 2) observations a LowRank ellipsoid's O(t^3) update costs
  // more than Dense's; it converts itself, and Sigma, w_t and the bonus stay those of eq. (3)-(5).
  const Eigen::Index d = 30;
  const double lambda = 1.5;
  const LinearizedData data = linearized_data(d, 200, 8);
  EXPECT_EQ(GradientEllipsoid::dense_from(30), 128u);
  EXPECT_EQ(GradientEllipsoid::dense_from(541), 270u);  // d_w / 2
  EXPECT_EQ(GradientEllipsoid::dense_from(2701), 900u);  // cbrt(100 d_w^2): the additive model at d_x = 100
  GradientEllipsoid e(data.w0, lambda, Rep::LowRank);
  Matrix sigma = lambda * Matrix::Identity(d, d);
  for (std::size_t i = 0; i < data.g.size(); ++i) {
    e.add(data.g[i], data.c[i]);
    sigma += data.g[i] * data.g[i].transpose();
    EXPECT_EQ(e.representation(), i + 1 >= 128 ? Rep::Dense : Rep::LowRank) << i;
  }
  EXPECT_LT((e.sigma() - sigma).norm(), 1e-9 * sigma.norm());
  const GradientEllipsoid dense = build(data, lambda, Rep::Dense);
  EXPECT_LT((e.center() - dense.center()).norm(), 1e-9 * (1 + dense.center().norm()));
  Rng rng(6);
  for (int k = 0; k < 5; ++k) {
    const Vector g = rng.normal_vector(d);
    const double exact = std::sqrt(g.dot(sigma.llt().solve(g)));
    EXPECT_NEAR(e.inverse_norm(g), exact, 1e-9 * exact);
  }
}

TEST(GradientEllipsoid, ProjectionIsTheExactMahalanobisProjection) {
  for (Rep rep : {Rep::Dense, Rep::LowRank}) {
    const Eigen::Index d = 8;
    const LinearizedData data = linearized_data(d, 5, 9);
    const GradientEllipsoid e = build(data, 0.5, rep);
    const Matrix sigma = e.sigma();
    const double beta = 0.3;
    Rng rng(11);
    for (int k = 0; k < 50; ++k) {
      const Vector w = e.center() + 3.0 * rng.normal_vector(d);
      const Vector p = e.project(w, beta);
      const Vector dp = p - e.center();
      ASSERT_LE(dp.dot(sigma * dp), beta * (1 + 1e-9));  // on or inside Ball_t
      // Variational inequality of the projection in the Sigma inner product:
      // (w - p)^T Sigma (q - p) <= 0 for every q in the ellipsoid.
      for (int j = 0; j < 50; ++j) {
        Vector u = rng.normal_vector(d);
        u *= std::pow(rng.uniform(), 1.0 / static_cast<double>(d)) / u.norm();
        const Vector q = e.from_ball(u, beta);
        ASSERT_LE((w - p).dot(sigma * (q - p)), 1e-8 * (1 + (w - p).norm()));
      }
      // Points inside are left alone; ball coordinates round-trip.
      const Vector inside = e.from_ball(0.5 * rng.normal_vector(d).normalized(), beta);
      EXPECT_LT((e.project(inside, beta) - inside).norm(), 1e-10);
      EXPECT_NEAR(e.to_ball(inside, beta).norm(), 0.5, 1e-9);
    }
  }
}

TEST(GoUcb, DefaultPhaseOneLengthFollowsTheorem41) {
  EXPECT_EQ(GoUcb::default_n_init(72), 8u);
  EXPECT_EQ(GoUcb::default_n_init(30), 5u);
  EXPECT_EQ(GoUcb::default_n_init(20), 4u);
}

TEST(GoUcb, RejectsBadOptionsWithTheirNames) {
  const Space s = Space::box(2, 0, 1);
  // The specs below name the horizon "budget" for brevity; it reaches the optimizer as the run's.
  auto error_of = [&](nlohmann::json spec) {
    RunContext run;
    if (spec.contains("budget")) {
      run.horizon = spec.at("budget").get<std::size_t>();
      spec.erase("budget");
    }
    try {
      make_optimizer(spec, s, Direction::Maximize, run);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of({{"name", "go-ucb"}}).find("budget"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"n_init", 10}}).find("n_init"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"acquisition", "greedy"}}).find("greedy"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"activation", "gelu"}}).find("gelu"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"trust_shape", "sphere"}}).find("sphere"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"trust_region", 1.5}}).find("trust_region"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"trust_max", 0.05}}).find("trust_max"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"trust_rule", "always"}}).find("always"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"model", "gam"}}).find("\"gam\""), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"model", "additive"}, {"units_per_input", 0}}).find("units_per_input"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"model", "additive"}, {"activation", "tanh"}}).find("tanh"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"model", "additive"}, {"hidden", {50}}}).find("hidden"), std::string::npos);
  // Ranges of the option table: the option, the range and the value named.
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"budget", 10}, {"trust_region", 1.5}}), "go-ucb: option 'trust_region' must be \"auto\" or a finite number in [0, 1], got 1.5");
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"budget", 10}, {"lambda", 0.0}}), "go-ucb: option 'lambda' must be > 0, got 0");
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"budget", 10}, {"units_per_input", 0}}), "go-ucb: option 'units_per_input' must be in 1..100000, got 0");
  EXPECT_EQ(error_of({{"name", "go-ucb-workshop"}, {"budget", 10}, {"u", -1.0}}), "go-ucb-workshop: option 'u' must be >= 0, got -1");
  EXPECT_EQ(error_of({{"name", "exploration-first"}, {"budget", 10}, {"oracle_iterations", 3000000000LL}}),
            "exploration-first: option 'oracle_iterations' must be in 0..2147483647, got 3000000000");
  // As the acquisition's restarts: a count that would make a tell run for hours is refused.
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"budget", 10}, {"oracle_restarts", 10001}}),
            "go-ucb: option 'oracle_restarts' must be in 0..10000, got 10001");
  for (const nlohmann::json& hidden : {nlohmann::json::array(), nlohmann::json::array({0}), nlohmann::json::array({-3}), nlohmann::json::array({"a"})})
    EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"hidden", hidden}}).find("option 'hidden' must be a non-empty list of layer sizes from 1 to 100000, got " + hidden.dump()),
              std::string::npos) << hidden.dump();
}

TEST(GoUcb, ModelSizesAreRefusedByNameBeforeAnythingIsAllocated) {
  // hidden=[1000000000] and units_per_input=1000000000 ended in std::bad_alloc (exit 1).
  const Space s = Space::box(2, 0, 1);
  auto error_of = [&](nlohmann::json spec, std::size_t horizon, const Space& space) {
    try {
      make_optimizer(spec, space, Direction::Maximize, RunContext{.horizon = horizon});
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"hidden", {1000000000}}}, 5, s),
            "go-ucb: option 'hidden' must be a non-empty list of layer sizes from 1 to 100000, got [1000000000]");
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"model", "additive"}, {"units_per_input", 1000000000}}, 5, s),
            "go-ucb: option 'units_per_input' must be in 1..100000, got 1000000000");
  // Each layer within the limit, the network not: d_w = 3 * 5000 + 5001 * 5000 + 5001.
  const std::string too_many = error_of({{"name", "exploration-first"}, {"hidden", {5000, 5000}}}, 5, s);
  EXPECT_NE(too_many.find("exploration-first: the built-in network (model=mlp, hidden=[5000, 5000], 2 inputs) would have 25025001 "
                          "weights d_w, more than 10000000"), std::string::npos) << too_many;
  // Within both limits, but the oracle's Jacobian over 100,000 points (9,015,001 weights) is ~7 TB.
  const std::string memory = error_of({{"name", "go-ucb"}, {"hidden", {3000, 3000}}}, 100000, s);
  EXPECT_NE(memory.find("go-ucb: a run of 100000 evaluations with the built-in network of 9015001 weights d_w would need about"),
            std::string::npos) << memory;
  EXPECT_NE(memory.find("choose a smaller network"), std::string::npos) << memory;
  // The opening's radial network has a unit per data point and a dense d_w x d_w Sigma.
  const std::string opening = error_of({{"name", "go-ucb"}, {"model", "additive"}, {"opening_steps", 1000000}}, 1000000, Space::box(3, 0, 1));
  EXPECT_NE(opening.find("go-ucb: the opening's radial network (opening_steps = 1000000: up to 1000000 units on 3 parameters)"),
            std::string::npos) << opening;
  EXPECT_NE(opening.find("lower opening_steps"), std::string::npos) << opening;
  // Options set in C++ bypass the option table: the constructor checks them too.
  GoUcbOptions o;
  o.model = GoUcbModel::Mlp;
  o.hidden = {1000000000};
  try {
    GoUcb(s, Direction::Maximize, o, RunContext{.horizon = 5});
    ADD_FAILURE() << "hidden = {1000000000} was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("option 'hidden' must be a non-empty list of layer sizes from 1 to 100000, got [1000000000]"),
              std::string::npos) << e.what();
  }
  // The defaults and the docs' largest network (d_x = 100, hidden 50: 5,101 weights) are fine.
  EXPECT_EQ(error_of({{"name", "go-ucb"}, {"hidden", {50}}}, 1000, Space::box(100, 0, 1)), "");
  EXPECT_EQ(error_of({{"name", "go-ucb"}}, 10000, Space::box(20, 0, 1)), "");
}

TEST(GoUcb, OptionTablesKeepEachVariantsDefaultsAndReadEveryChoice) {
  // The workshop variant and exploration-first default to the paper's network.
  for (const char* name : {"go-ucb-workshop", "exploration-first"}) {
    const auto& specs = algorithm_info(name).options;
    const auto model = std::find_if(specs.begin(), specs.end(), [](const OptionSpec& o) { return o.key == "model"; });
    ASSERT_NE(model, specs.end());
    EXPECT_EQ(model->default_value, "mlp") << name;
    EXPECT_EQ(model->allowed, (std::vector<std::string>{"auto", "mlp", "additive"})) << name;
  }
  const Space s = Space::box(3, 0, 1);
  auto opt = make_optimizer({{"name", "go-ucb-workshop"}, {"init", "sobol"}, {"output", "uniform"}, {"oracle", "sgd"}},
                            s, Direction::Maximize, RunContext{.horizon = 20});
  const GoUcbOptions& w = dynamic_cast<const GoUcb&>(*opt).options();
  EXPECT_EQ(w.variant, GoUcbVariant::Workshop);
  EXPECT_EQ(w.model, GoUcbModel::Mlp);
  EXPECT_EQ(w.init, InitialDesign::Sobol);
  EXPECT_EQ(w.output, GoUcbOutput::Uniform);
  EXPECT_EQ(w.oracle.method, OracleMethod::Sgd);
  EXPECT_EQ(w.refit_every, 0u);  // go-ucb's deviations keep their paper values in the other variants
  EXPECT_EQ(w.trust_region, 0.0);
  opt = make_optimizer({{"name", "go-ucb"}, {"trust_shape", "box"}, {"trust_rule", "ratio"}, {"discrete_step", "trust-region"},
                        {"acquisition", "joint"}, {"beta_schedule", "log"}, {"inputs", "centered"}, {"activation", "tanh"}, {"model", "mlp"}},
                       s, Direction::Maximize, RunContext{.horizon = 20});
  const GoUcbOptions& g = dynamic_cast<const GoUcb&>(*opt).options();
  EXPECT_EQ(g.variant, GoUcbVariant::GoUcb);
  EXPECT_EQ(g.trust_shape, TrustShape::Box);
  EXPECT_EQ(g.trust_rule, TrustRule::Ratio);
  EXPECT_EQ(g.discrete_step, DiscreteStep::TrustRegion);
  EXPECT_EQ(g.acquisition, GoUcbAcquisition::Joint);
  EXPECT_EQ(g.beta_schedule, BetaSchedule::Log);
  EXPECT_EQ(g.inputs, ModelInputs::Centered);
  EXPECT_EQ(g.activation, Activation::Tanh);
  // A value outside its enum (a cast integer in C++) is refused, naming the option.
  GoUcbOptions bad;
  bad.trust_shape = static_cast<TrustShape>(9);
  try {
    GoUcb(s, Direction::Maximize, bad, RunContext{.horizon = 20});
    ADD_FAILURE() << "a trust_shape outside its enum was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'trust_shape'"), std::string::npos) << e.what();
  }
}

namespace {
double workshop_final_regret(const std::string& algorithm, std::uint64_t seed) {
  const Problem p = make_problem("sigmoid_1d");
  auto model = std::make_shared<Mlp>(1, std::vector<std::size_t>{1}, Activation::Sigmoid);  // w2/(1+e^-(w1 x+b1)) + b2
  GoUcbOptions o;
  o.variant = kGoUcbVariantNames.parse(algorithm, "test variant");
  o.n_init = 5;
  o.standardize = false;
  const std::unique_ptr<GoUcb> opt = make_go_ucb_variant(p.space, p.direction, o, RunContext{.seed = seed, .horizon = 20}, model);
  RunOptions ro;
  ro.budget = 20;
  const RunSummary s = optimize(*opt, p.objective(0.01, seed), ro);
  return *s.simple_regret;
}
}  // namespace

TEST(GoUcb, EachVariantIsItsOwnType) {
  const Space s = Space::box(2, 0, 1);
  const RunContext run{.horizon = 20};
  GoUcbOptions o;
  o.variant = GoUcbVariant::Workshop;
  EXPECT_NE(dynamic_cast<GoUcbWorkshop*>(make_go_ucb_variant(s, Direction::Maximize, o, run).get()), nullptr);
  o.variant = GoUcbVariant::ExplorationFirst;
  EXPECT_NE(dynamic_cast<ExplorationFirst*>(make_go_ucb_variant(s, Direction::Maximize, o, run).get()), nullptr);
  // A variant's options given to Algorithm 1's type would silently run Algorithm 1 under its name.
  try {
    GoUcb(s, Direction::Maximize, o, run);
    ADD_FAILURE() << "GoUcb accepted exploration-first's options";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("make_go_ucb_variant"), std::string::npos) << e.what();
  }
  auto registry_built = make_optimizer({{"name", "go-ucb-workshop"}}, s, Direction::Maximize, run);
  EXPECT_NE(dynamic_cast<GoUcbWorkshop*>(registry_built.get()), nullptr);
}

TEST(GoUcb, WorkshopRealizableSigmoidTask) {
  for (const std::string variant : {"workshop", "go-ucb"}) {
    int good = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) good += workshop_final_regret(variant, seed) <= 0.05;
    EXPECT_GE(good, 9) << variant;
  }
}

TEST(GoUcb, RealizableTwentyDimensionalTaskBeatsRandomSearch) {
  const Problem p = make_problem("goucb_f1", 20);
  double goucb = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RunOptions ro;
    ro.budget = 30;
    auto g = make_optimizer({{"name", "go-ucb"}}, p.space, p.direction, RunContext{.seed = seed, .horizon = 30});
    goucb += *optimize(*g, p.objective(0.01, seed), ro).cum_regret;
    auto r = make_optimizer({{"name", "random"}}, p.space, p.direction, RunContext{.seed = seed});
    random += *optimize(*r, p.objective(0.01, seed), ro).cum_regret;
  }
  EXPECT_LT(goucb, 0.5 * random) << "go-ucb " << goucb / 10 << " random " << random / 10;
}

// ---- Deviations from Algorithm 1 (docs/go-ucb.md): each is an option whose paper value stays available.

namespace {
// Runs `steps` evaluations of noisy Styblinski-Tang in 4-D, posed on the unit box (so user and
// unit points are the same doubles and a replay of tells is bit-exact); returns the optimizer.
std::unique_ptr<Optimizer> run_steps(const nlohmann::json& spec, const RunContext& run, std::size_t steps,
                                     std::vector<Trial>* trials = nullptr, std::vector<double>* values = nullptr) {
  const Problem p = make_problem("styblinski_tang", 4);
  const Objective obj = p.objective(0.01, 3);
  auto opt = make_optimizer(spec, Space::box(4, 0, 1), p.direction, run);
  for (std::size_t i = 0; i < steps; ++i) {
    const Trial t = opt->ask();
    const double y = obj.function(p.space.to_user(t.unit));
    opt->tell(t, y);
    if (trials) trials->push_back(t);
    if (values) values->push_back(y);
  }
  return opt;
}
}  // namespace

TEST(GoUcb, RefitRebuildsTheEllipsoidAndStaysDeterministic) {
  const nlohmann::json spec = {{"name", "go-ucb"}, {"refit_every", 2}, {"trust_region", 0.0}};
  const RunContext run{.seed = 5, .horizon = 20};
  std::vector<Trial> trials;
  std::vector<double> values;
  auto a = run_steps(spec, run, 12, &trials, &values);
  const auto& ga = dynamic_cast<const GoUcb&>(*a);
  ASSERT_TRUE(ga.in_phase_two());
  const std::size_t phase_two = 12 - ga.n_init();
  EXPECT_EQ(a->diagnostics().at("refits").get<std::size_t>(), phase_two / 2);
  // A fresh optimizer fed the same tells (as external observations) asks the same next point.
  auto b = make_optimizer(spec, Space::box(4, 0, 1), Direction::Maximize, run);
  for (std::size_t i = 0; i < trials.size(); ++i) b->tell(trials[i].x, values[i]);
  EXPECT_EQ(b->diagnostics().at("refits"), a->diagnostics().at("refits"));
  const Trial ta = a->ask(), tb = b->ask();
  EXPECT_LT((ta.unit - tb.unit).norm(), 1e-12);
  EXPECT_LT((ga.current_parameters() - dynamic_cast<const GoUcb&>(*b).current_parameters()).norm(), 1e-12);
}

TEST(GoUcb, RefitCenterFitsAllTheData) {
  // Right after a refit, w_t = Sigma^{-1} (sum g_i c_i + lambda w_0) with g_i, c_i taken at the new
  // w_0 (a damped Gauss-Newton step from the refit): f_{w_t} must fit every observation so far,
  // Phase II included (151 parameters, 20 points: R^2 near 1 on the training data).
  auto opt = run_steps({{"name", "go-ucb"}, {"refit_every", 1}}, {.seed = 2, .horizon = 30}, 20);
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  EXPECT_EQ(opt->diagnostics().at("refits").get<std::size_t>(), 20 - g.n_init());
  // Standardization with all values so far (mean, sample sd; restandardize), as the oracle saw them.
  const auto& h = opt->history();
  const double n = static_cast<double>(h.size());
  double mean = 0, var = 0;
  for (const auto& o : h) mean += o.value / n;  // styblinski_tang is maximized
  for (const auto& o : h) var += std::pow(o.value - mean, 2) / (n - 1);
  double sse = 0, sst = 0, all_mean = 0;
  for (const auto& o : h) all_mean += (o.value - mean) / std::sqrt(var) / static_cast<double>(h.size());
  for (const auto& o : h) {
    const double ys = (o.value - mean) / std::sqrt(var);
    sse += std::pow(g.model().value(g.current_parameters(), o.trial.unit) - ys, 2);
    sst += std::pow(ys - all_mean, 2);
  }
  EXPECT_LT(sse, 0.1 * sst) << "R^2 = " << 1 - sse / sst;
}

TEST(GoUcb, AutomaticRefitScheduleRefitsEveryStepUpToThreeHundredPointsThenEveryFivePercent) {
  // refit_every "auto" (the default): refit_due's schedule on the number of data points, every
  // step up to kGoUcbRefitEveryStepUpTo (300).
  ASSERT_EQ(kGoUcbRefitEveryStepUpTo, 300u);
  const RunContext run{.seed = 4, .horizon = 341};  // n_init = 18 (Theorem 4.1)
  // A small model and a light acquisition keep 340 steps cheap; the schedule does not depend on them.
  const nlohmann::json spec = {{"name", "go-ucb"}, {"units_per_input", 2}, {"raw_samples", 16}, {"restarts", 1}, {"oracle_iterations", 2}};
  std::vector<Trial> trials;
  std::vector<double> values;
  auto a = run_steps(spec, run, 300, &trials, &values);
  EXPECT_FALSE(dynamic_cast<const GoUcb&>(*a).options().refit_every.has_value());
  EXPECT_EQ(a->diagnostics().at("refits").get<std::size_t>(), 282u);  // after each of the points 19..300
  const Problem p = make_problem("styblinski_tang", 4);
  const Objective obj = p.objective(0.01, 3);
  for (std::size_t n = 301; n <= 340; ++n) {
    const Trial t = a->ask();
    trials.push_back(t);
    values.push_back(obj.function(p.space.to_user(t.unit)));
    a->tell(t, values.back());
  }
  // Then at 315 (period 315 / 20 = 15) and 331 (period 16).
  EXPECT_EQ(a->diagnostics().at("refits").get<std::size_t>(), 284u);
  // refit_every = 1 refits after every Phase II step.
  nlohmann::json every_step = spec;
  every_step["refit_every"] = 1;
  auto every = run_steps(every_step, run, 340);
  EXPECT_EQ(every->diagnostics().at("refits").get<std::size_t>(), 322u);
  // A replay of the tells refits at the same sizes and asks the same point.
  auto b = make_optimizer(spec, Space::box(4, 0, 1), Direction::Maximize, run);
  for (std::size_t i = 0; i < trials.size(); ++i) b->tell(trials[i].x, values[i]);
  EXPECT_EQ(b->diagnostics().at("refits"), a->diagnostics().at("refits"));
  EXPECT_LT((a->ask().unit - b->ask().unit).norm(), 1e-12);
  try {
    make_optimizer({{"name", "go-ucb"}, {"refit_every", "sometimes"}}, Space::box(4, 0, 1), Direction::Maximize, run);
    ADD_FAILURE() << "refit_every \"sometimes\" accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("option 'refit_every' must be \"auto\" or an integer >= 0, got \"sometimes\""), std::string::npos)
        << e.what();
  }
}

TEST(GoUcb, TrustRegionKeepsProposalsNearTheIncumbent) {
  const double side = 0.2;
  const Problem p = make_problem("styblinski_tang", 4);
  const Objective obj = p.objective(0.01, 3);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"trust_region", side}, {"trust_shape", "box"}, {"trust_adapt", false}, {"opening_steps", 0}}, p.space, p.direction, RunContext{.seed = 9, .horizon = 25});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  std::size_t checked = 0;
  for (int i = 0; i < 25; ++i) {
    const Vector incumbent = opt->best() ? opt->best()->trial.unit : Vector();
    const bool phase_two = g.in_phase_two();
    const Trial t = opt->ask();
    if (phase_two) {
      EXPECT_LE((t.unit - incumbent).lpNorm<Eigen::Infinity>(), 0.5 * side + 1e-12) << "step " << i;
      ++checked;
    }
    opt->tell(t, obj.function(t.x));
  }
  EXPECT_EQ(checked, 25 - g.n_init());  // every Phase II step was checked
}

TEST(GoUcb, BallTrustRegionAdaptsAndBoundsEveryStep) {
  // Default shape: a Euclidean ball around the incumbent whose radius grows x1.5 (capped at
  // trust_region) after an improving step and shrinks x0.7 (floored at trust_region / 4) otherwise.
  const double radius = 0.2;
  const Problem p = make_problem("styblinski_tang", 4);
  const Objective obj = p.objective(0.01, 3);
  // The stall rule's space-filling steps leave the region by design: off here (tested below).
  auto opt = make_optimizer({{"name", "go-ucb"}, {"trust_region", radius}, {"trust_max", 0}, {"stall_steps", 0}, {"opening_steps", 0}}, p.space, p.direction,
                            RunContext{.seed = 4, .horizon = 30});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  ASSERT_EQ(g.options().trust_shape, TrustShape::Ball);
  ASSERT_TRUE(g.options().trust_adapt);
  int grew = 0, shrank = 0;
  for (int i = 0; i < 30; ++i) {
    const bool phase_two = g.in_phase_two();
    const Vector incumbent = opt->best() ? opt->best()->trial.unit : Vector();
    const double best_before = opt->best() ? opt->best()->value : -1e300;
    const double size = phase_two ? opt->diagnostics().at("trust_size").get<double>() : radius;
    const Trial t = opt->ask();
    const double y = obj.function(t.x);
    opt->tell(t, y);
    if (!phase_two) continue;
    EXPECT_LE((t.unit - incumbent).norm(), size + 1e-9) << "step " << i;
    const double next = opt->diagnostics().at("trust_size").get<double>();
    EXPECT_GE(next, 0.25 * radius - 1e-12);
    EXPECT_LE(next, radius + 1e-12);
    const double grown = std::min(radius, 1.5 * size), shrunk = std::max(0.25 * radius, 0.7 * size);
    if (y <= best_before) {  // no improvement: always shrinks
      ++shrank;
      EXPECT_NEAR(next, shrunk, 1e-12) << "step " << i;
    } else {  // an improvement grows it unless it is below the 1e-3 sd tolerance
      grew += next > size;
      EXPECT_TRUE(std::abs(next - grown) < 1e-12 || std::abs(next - shrunk) < 1e-12) << "step " << i;
    }
  }
  EXPECT_GT(shrank, 0);
  EXPECT_GT(grew, 0);
}

TEST(GoUcb, TrustMaxLetsTheRegionGrowPastItsStart) {
  // On the realizable, monotone goucb_f1 most steps improve, so the radius grows x1.5 per
  // improvement up to trust_max instead of stopping at trust_region.
  const double radius = 0.05, cap = 0.2;
  const Problem p = make_problem("goucb_f1", 5);
  const Objective obj = p.objective(0.01, 2);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"trust_region", radius}, {"trust_max", cap}, {"stall_steps", 0}, {"opening_steps", 0}}, p.space,
                            p.direction, RunContext{.seed = 2, .horizon = 20});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  double largest = 0.0;
  for (int i = 0; i < 20; ++i) {
    const bool phase_two = g.in_phase_two();
    const Vector incumbent = opt->best() ? opt->best()->trial.unit : Vector();
    const double size = phase_two ? opt->diagnostics().at("trust_size").get<double>() : radius;
    const Trial t = opt->ask();
    opt->tell(t, obj.function(t.x));
    if (!phase_two) continue;
    EXPECT_LE((t.unit - incumbent).norm(), size + 1e-9) << "step " << i;
    const double next = opt->diagnostics().at("trust_size").get<double>();
    EXPECT_LE(next, cap + 1e-12);
    largest = std::max(largest, next);
  }
  EXPECT_GT(largest, radius * 1.4);
}

TEST(GoUcb, RatioRuleNeverGrowsWithoutAnImprovement) {
  // trust_rule=ratio: after a step the size is grown (improvement >= half the predicted one),
  // kept (a smaller improvement) or shrunk (no improvement); never kept or grown otherwise.
  const double radius = 0.2;
  const Problem p = make_problem("styblinski_tang", 4);
  const Objective obj = p.objective(0.01, 3);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"trust_region", radius}, {"trust_max", 0}, {"trust_rule", "ratio"}, {"stall_steps", 0}}, p.space,
                            p.direction, RunContext{.seed = 4, .horizon = 30});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  int kept_or_grown = 0;
  for (int i = 0; i < 30; ++i) {
    const bool phase_two = g.in_phase_two();
    const double best_before = opt->best() ? opt->best()->value : -1e300;
    const double size = phase_two ? opt->diagnostics().at("trust_size").get<double>() : radius;
    const Trial t = opt->ask();
    const double y = obj.function(t.x);
    opt->tell(t, y);
    if (!phase_two) continue;
    const double next = opt->diagnostics().at("trust_size").get<double>();
    const double grown = std::min(radius, 1.5 * size), shrunk = std::max(0.25 * radius, 0.7 * size);
    if (y <= best_before) {
      EXPECT_NEAR(next, shrunk, 1e-12) << "step " << i;
    } else {
      EXPECT_TRUE(std::abs(next - grown) < 1e-12 || std::abs(next - size) < 1e-12 || std::abs(next - shrunk) < 1e-12) << "step " << i;
      kept_or_grown += std::abs(next - shrunk) > 1e-12;
    }
  }
  EXPECT_GT(kept_or_grown, 0);
}

TEST(GoUcb, JointAscentStaysInTheBallTrustRegion) {
  const double radius = 0.1;
  const Problem p = make_problem("styblinski_tang", 4);
  const Objective obj = p.objective(0.01, 5);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"trust_region", radius}, {"acquisition", "joint"}, {"opening_steps", 0}}, p.space, p.direction, RunContext{.seed = 5, .horizon = 20});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  std::size_t checked = 0;
  for (int i = 0; i < 20; ++i) {
    const bool phase_two = g.in_phase_two();
    const Vector incumbent = opt->best() ? opt->best()->trial.unit : Vector();
    const double size = phase_two ? opt->diagnostics().at("trust_size").get<double>() : radius;
    const Trial t = opt->ask();
    opt->tell(t, obj.function(t.x));
    if (phase_two) {
      EXPECT_LE((t.unit - incumbent).norm(), size + 1e-9) << "step " << i;
      ++checked;
    }
  }
  EXPECT_EQ(g.options().acquisition, GoUcbAcquisition::Joint);
  EXPECT_EQ(checked, 20 - g.n_init());  // every Phase II step was checked
}

TEST(GoUcb, GlobalCandidateStepsLeaveTheTrustRegionOnlyWhenTaken) {
  // Every step stays in the ball around the incumbent except those counted as global steps.
  const double radius = 0.05;
  const Problem p = make_problem("goucb_f1", 5);
  const Objective obj = p.objective(0.01, 7);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"trust_region", radius}, {"global_candidate", true}, {"opening_steps", 0}}, p.space, p.direction, RunContext{.seed = 7, .horizon = 20});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  int outside = 0;
  for (int i = 0; i < 20; ++i) {
    const bool phase_two = g.in_phase_two();
    const Vector incumbent = opt->best() ? opt->best()->trial.unit : Vector();
    const double size = phase_two ? opt->diagnostics().at("trust_size").get<double>() : radius;
    const int before = phase_two ? opt->diagnostics().at("global_steps").get<int>() : 0;
    const Trial t = opt->ask();
    const int after = phase_two ? opt->diagnostics().at("global_steps").get<int>() : 0;
    opt->tell(t, obj.function(t.x));
    if (!phase_two) continue;
    const bool out = (t.unit - incumbent).norm() > size + 1e-9;
    outside += out;
    if (out) {
      EXPECT_EQ(after, before + 1) << "step " << i;
    }
  }
  EXPECT_EQ(opt->diagnostics().at("global_steps").get<int>(), outside);
  EXPECT_GT(outside, 0) << "no global step was taken: the rule above went untested";
}

TEST(GoUcb, PaperPresetTurnsEveryDeviationOff) {
  const Space s = Space::box(3, 0, 1);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"preset", "paper"}}, s, Direction::Maximize, RunContext{.horizon = 30});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  EXPECT_EQ(g.options().trust_region, 0.0);
  EXPECT_EQ(g.options().refit_every, 0u);
  EXPECT_EQ(g.options().inputs, ModelInputs::Unit);
  EXPECT_EQ(g.options().weight_decay, 0.0);
  EXPECT_EQ(g.options().beta_schedule, BetaSchedule::Constant);
  EXPECT_EQ(g.options().stall_steps, 0u);
  EXPECT_FALSE(g.options().global_candidate);
  EXPECT_EQ(g.model().describe().find("centered"), std::string::npos);
  const double T = 30.0 - static_cast<double>(g.n_init());
  EXPECT_NEAR(g.lambda(), std::sqrt(T) * std::pow(std::log(T), 2), 1e-12);  // appendix D.1
  const double dw = static_cast<double>(g.model().num_params());
  EXPECT_GT(g.beta(1), 0.0);
  EXPECT_NEAR(g.beta(2) / g.beta(1), 2.0, 1e-12);  // d_w^3 F^4 t / T: linear in t
  EXPECT_GT(dw, 0.0);
  // The preset's own values may be given too (a config that spells the paper out).
  EXPECT_NO_THROW(make_optimizer({{"name", "go-ucb"}, {"preset", "paper"}, {"trust_region", 0.0}, {"refit_every", 0},
                                  {"inputs", "unit"}, {"stall_steps", 0}, {"beta_schedule", "constant"}},
                                 s, Direction::Maximize, RunContext{.horizon = 30}));
}

TEST(GoUcb, PaperPresetRejectsAnOptionItWouldOverride) {
  const Space s = Space::box(3, 0, 1);
  const std::vector<std::pair<std::string, nlohmann::json>> conflicts = {
      {"trust_region", 0.3}, {"refit_every", 2},    {"inputs", "centered"}, {"weight_decay", 1.5},
      {"beta_schedule", "log"}, {"stall_steps", 5}, {"global_candidate", true}, {"lambda", 2.5}, {"beta", 0.5}};
  for (const auto& [key, value] : conflicts) {
    try {
      make_optimizer({{"name", "go-ucb"}, {"preset", "paper"}, {key, value}}, s, Direction::Maximize, RunContext{.horizon = 30});
      ADD_FAILURE() << key << " = " << value.dump() << " was accepted with preset=paper";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("preset=paper"), std::string::npos) << what;
      EXPECT_NE(what.find("'" + key + "'"), std::string::npos) << what;
      const std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
      EXPECT_NE(what.find("got " + shown), std::string::npos) << what;
    }
    // The same value with the default preset is fine.
    EXPECT_NO_THROW(make_optimizer({{"name", "go-ucb"}, {key, value}}, s, Direction::Maximize, RunContext{.horizon = 30})) << key;
  }
  // In C++ too: the struct's preset is checked the same way.
  GoUcbOptions o;
  o.preset = GoUcbPreset::Paper;
  o.trust_region = 0.3;
  EXPECT_THROW(GoUcb(s, Direction::Maximize, o, RunContext{.horizon = 30}), InvalidArgument);
}

TEST(GoUcb, AutoModelIsAdditiveFromThreeInputsUnlessTheNetworkIsAskedFor) {
  auto chosen = [](std::size_t dim, nlohmann::json spec) {
    auto opt = make_optimizer(spec, Space::box(dim, 0, 1), Direction::Maximize, {.horizon = 30});
    const auto& g = dynamic_cast<const GoUcb&>(*opt);
    EXPECT_EQ(g.diagnostics().at("model"), kGoUcbModelKindNames.name(g.options().model));  // Phase I records name the family
    return std::make_pair(std::string(kGoUcbModelKindNames.name(g.options().model)), g.model().num_params());
  };
  EXPECT_EQ(chosen(2, {{"name", "go-ucb"}}), std::make_pair(std::string("mlp"), std::size_t{25 * 2 + 51}));
  EXPECT_EQ(chosen(3, {{"name", "go-ucb"}}), std::make_pair(std::string("additive"), std::size_t{3 * 3 * 9 + 1}));
  EXPECT_EQ(chosen(20, {{"name", "go-ucb"}}).second, std::size_t{541});
  EXPECT_EQ(chosen(20, {{"name", "go-ucb"}, {"model", "mlp"}}).second, std::size_t{551});  // the paper's network
  EXPECT_EQ(chosen(2, {{"name", "go-ucb"}, {"model", "additive"}}).first, "additive");
  EXPECT_EQ(chosen(5, {{"name", "go-ucb"}, {"hidden", {10}}}).first, "mlp");
  EXPECT_EQ(chosen(5, {{"name", "go-ucb"}, {"activation", "tanh"}}).first, "mlp");
  EXPECT_EQ(chosen(5, {{"name", "go-ucb"}, {"preset", "paper"}}).first, "mlp");
  EXPECT_EQ(chosen(5, {{"name", "go-ucb-workshop"}}).first, "mlp");
  EXPECT_EQ(chosen(5, {{"name", "exploration-first"}}).first, "mlp");
}

TEST(GoUcb, CenteredInputsChainRuleIsExact) {
  const Space s = Space::box(3, 0, 1);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"inputs", "centered"}, {"model", "mlp"}}, s, Direction::Maximize, RunContext{.horizon = 30});
  const ParametricModel& m = dynamic_cast<const GoUcb&>(*opt).model();
  const Mlp inner(3, {25}, Activation::Sigmoid);
  Rng rng(4);
  const Vector w = m.sample_params(rng), x = rng.uniform_vector(3), v = rng.normal_vector(static_cast<Eigen::Index>(m.num_params()));
  EXPECT_NEAR(m.value(w, x), inner.value(w, (2.0 * x.array() - 1.0).matrix()), 1e-14);
  Vector gx, mx;
  m.gradient_x(w, x, gx);
  m.mixed_product(w, x, v, mx);
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < 3; ++i) {
    Vector xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    EXPECT_NEAR(gx[i], (m.value(w, xp) - m.value(w, xm)) / (2 * h), 1e-6);
    Vector gp, gm;
    m.gradient_w(w, xp, gp);
    m.gradient_w(w, xm, gm);
    EXPECT_NEAR(mx[i], (gp.dot(v) - gm.dot(v)) / (2 * h), 1e-5 * (1 + std::abs(mx[i])));
  }
}

TEST(GoUcb, WeightDecayShrinksTheOracleFit) {
  auto norm_after_phase_one = [](double decay) {
    auto opt = run_steps({{"name", "go-ucb"}, {"weight_decay", decay}}, {.seed = 1, .horizon = 30}, 5);
    const auto& g = dynamic_cast<const GoUcb&>(*opt);
    EXPECT_TRUE(g.in_phase_two());
    return g.current_parameters().norm();
  };
  EXPECT_LT(norm_after_phase_one(100.0), 0.5 * norm_after_phase_one(0.0));
}

TEST(GoUcb, BetaScheduleLogGrowsLikeLogT) {
  const Space s = Space::box(2, 0, 1);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"beta", 2.0}, {"beta_schedule", "log"}}, s, Direction::Maximize, RunContext{.horizon = 30});
  const auto& g = dynamic_cast<const GoUcb&>(*opt);
  EXPECT_NEAR(g.beta(1), 2.0, 1e-12);
  EXPECT_NEAR(g.beta(10), 2.0 * (1 + std::log(10.0)), 1e-12);
}

namespace {
// The paper's network with one deliberately wrong derivative: grad_w entry 0 halved, as a
// hand-written model with a slip in its chain rule would have.
class SlippedGradientModel : public Mlp {
 public:
  using Mlp::Mlp;
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override {
    const double f = Mlp::gradient_w(w, x, grad);
    grad[0] *= 0.5;
    return f;
  }
};
}  // namespace

TEST(GoUcb, RejectsAModelWhoseDerivativesDisagreeWithItsValues) {
  const Space space = Space::box(3, 0.0, 1.0);
  GoUcbOptions o;
  const RunContext run{.horizon = 20};
  auto wrong = std::make_shared<SlippedGradientModel>(3, std::vector<std::size_t>{4}, Activation::Sigmoid);
  try {
    GoUcb opt(space, Direction::Maximize, o, run, wrong);
    FAIL() << "a model with a wrong gradient_w was accepted";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("go-ucb"), std::string::npos) << what;
    EXPECT_NE(what.find("grad_w"), std::string::npos) << what;
    EXPECT_NE(what.find("finite differences"), std::string::npos) << what;
  }
  // The same family with correct derivatives is accepted; the check can be switched off.
  EXPECT_NO_THROW(GoUcb(space, Direction::Maximize, o, run, std::make_shared<Mlp>(3, std::vector<std::size_t>{4})));
  o.check_model = false;
  EXPECT_NO_THROW(GoUcb(space, Direction::Maximize, o, run, wrong));
}

TEST(GoUcb, StandardizesForTheBuiltInMlpOnlyUnlessTold) {
  const Space space = Space::box(2, 0.0, 1.0);
  GoUcbOptions o;
  const RunContext run{.horizon = 20};
  EXPECT_TRUE(*GoUcb(space, Direction::Maximize, o, run).options().standardize);
  // A given family models the objective's own values (a physics law cannot fit (y - mean) / sd).
  const auto model = std::make_shared<Mlp>(2, std::vector<std::size_t>{3});
  EXPECT_FALSE(*GoUcb(space, Direction::Maximize, o, run, model).options().standardize);
  EXPECT_EQ(GoUcb(space, Direction::Maximize, o, run, model).diagnostics().at("model"), "custom");  // not what auto would build
  o.standardize = true;
  EXPECT_TRUE(*GoUcb(space, Direction::Maximize, o, run, model).options().standardize);
}

TEST(GoUcb, MakeGoUcbTakesTheRegistryOptionsAndAModelOfYourOwn) {
  const Space space = Space::box(2, 0.0, 1.0);
  const auto model = std::make_shared<Mlp>(2, std::vector<std::size_t>{3});
  const RunContext run{.horizon = 12};
  const auto opt = make_go_ucb({{"name", "go-ucb"}, {"beta", 0.5}}, space, Direction::Maximize, {.seed = 4, .horizon = 12}, model);
  EXPECT_EQ(&opt->model(), model.get());
  EXPECT_EQ(opt->options().beta, 0.5);
  EXPECT_EQ(opt->seed(), 4u);
  EXPECT_FALSE(*opt->options().standardize);  // a given family models the objective's own values
  EXPECT_TRUE(*make_go_ucb({{"name", "go-ucb"}, {"standardize", true}}, space, Direction::Maximize, run, model)
                   ->options()
                   .standardize);
  EXPECT_EQ(make_go_ucb({{"name", "go-ucb-workshop"}, {"u", 3.0}}, space, Direction::Maximize, run, model)
                ->options()
                .workshop_u,
            3.0);
  EXPECT_THROW(make_go_ucb({{"name", "gp-ei"}}, space, Direction::Maximize, run, model), InvalidArgument);
  EXPECT_THROW(make_go_ucb({{"name", "go-ucb"}, {"bogus", 1}}, space, Direction::Maximize, run, model), InvalidArgument);
}

// The stall rule (docs/robust.md): on a 1-D function with jumps, the trust region settles on the
// edge of a wrong cell and re-evaluates it; after stall_steps such steps one space-filling step
// lets the search leave. Without the rule these seeds end with regret ~0.1 (the cell's jump).
// The region of the 20-D defaults (0.1, never growing), where the rule matters most: the
// low-dimensional "auto" region (0.2 up to 0.5) leaves such cells more often by itself.
TEST(GoUcb, StallRuleLeavesAStalledRegionAndStaysReplayable) {
  const Problem p = make_problem("steps_1d");
  int solved = 0, solved_without = 0;
  for (std::uint64_t seed : {4, 5, 6, 7}) {
    for (const std::size_t stall : {std::size_t{3}, std::size_t{0}}) {
      const nlohmann::json options = {{"name", "go-ucb"}, {"stall_steps", stall}, {"trust_region", 0.1}, {"trust_max", 0}};
      auto opt = make_optimizer(options, p.space, p.direction, {.seed = seed, .horizon = 60});
      Objective obj;
      obj.direction = p.direction;
      obj.function = p.f;
      RunOptions ro;
      ro.budget = 60;
      const RunSummary run = optimize(*opt, obj, ro);
      const bool ok = *run.best_y < 0.01;
      (stall > 0 ? solved : solved_without) += ok;
      if (stall == 0) continue;
      EXPECT_GT(opt->diagnostics().at("explorations").get<int>(), 0) << "seed " << seed;
      // A fresh optimizer fed the same history asks the same point (the rule's state is the history's).
      auto replay = make_optimizer(options, p.space, p.direction, {.seed = seed, .horizon = 60});
      for (const auto& o : opt->history()) replay->tell(o.trial.x, o.value);
      EXPECT_EQ(replay->ask().x, opt->ask().x) << "seed " << seed;
    }
  }
  EXPECT_GE(solved, 3);
  EXPECT_LE(solved_without, 1);
}

// trust_region / trust_max = "auto" (the defaults): a larger region that may grow up to 10
// parameters (docs/robust.md, "GO-UCB in low dimensions"), the papers' 0.1 above; a value given
// is kept.
TEST(GoUcb, AutoTrustRegionDependsOnTheDimension) {
  const auto resolved = [](std::size_t dim, const nlohmann::json& options) {
    auto opt = make_optimizer(options, Space::box(dim, 0.0, 1.0), Direction::Maximize, RunContext{.horizon = 40});
    const auto& g = dynamic_cast<const GoUcb&>(*opt);
    return std::pair{*g.options().trust_region, *g.options().trust_max};
  };
  const nlohmann::json defaults = {{"name", "go-ucb"}};
  EXPECT_EQ(resolved(1, defaults), (std::pair{0.2, 0.5}));
  EXPECT_EQ(resolved(5, defaults), (std::pair{0.2, 0.5}));
  EXPECT_EQ(resolved(10, defaults), (std::pair{0.2, 0.5}));
  EXPECT_EQ(resolved(11, defaults), (std::pair{0.1, 0.1}));
  EXPECT_EQ(resolved(20, defaults), (std::pair{0.1, 0.1}));
  EXPECT_EQ(resolved(2, {{"name", "go-ucb"}, {"trust_region", 0.7}}), (std::pair{0.7, 0.7}));
  EXPECT_EQ(resolved(2, {{"name", "go-ucb"}, {"trust_region", "auto"}, {"trust_max", 0}}), (std::pair{0.2, 0.0}));
  EXPECT_EQ(resolved(20, {{"name", "go-ucb"}, {"trust_max", 0.3}}), (std::pair{0.1, 0.3}));
  EXPECT_EQ(resolved(2, {{"name", "go-ucb"}, {"preset", "paper"}}).first, 0.0);
}

// The stall rule on an all-discrete space (docs/robust.md, "GO-UCB on small discrete spaces"): no
// step returns to a point there, so "next to an earlier point" means one integer value away in the
// same categories. The landscape is knn_wine's in miniature: a narrow best plateau on one value of
// `p`, and a broad, slightly lower ridge on another, where the region settles. Before the rule
// counted such steps it never fired on a discrete space (as stall_steps = 0 does here): over seeds
// 0-29 the plateau was found in 6 runs, with the rule in 16, a superset. Phase I is drawn as it was
// then (design_categories: independent); with the default cover of `w` the rule finds it in 13
// runs of seeds 0-29 against the same 6, also a superset, but none of the 7 more is in seeds 0-7.
TEST(GoUcb, StallRuleLeavesARidgeOnADiscreteSpace) {
  const Space space = Space().add_integer("k", 1, 50).add_categorical("w", {"a", "b"}).add_integer("p", 1, 3);
  const auto f = [](const Vector& x) {
    const double k = x[0], p = x[2];
    if (p == 2 && k >= 29 && k <= 35) return 1.0;
    if (p == 1) return 0.99 - 0.002 * std::abs(k - 9);
    return 0.9 - 0.002 * std::abs(k - 15) - 0.05 * (p - 2);
  };
  int solved = 0, solved_without = 0;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    bool ok_without = false;
    for (const std::size_t stall : {std::size_t{0}, std::size_t{3}}) {
      const nlohmann::json options = {{"name", "go-ucb"}, {"stall_steps", stall}, {"design_categories", "independent"}};
      auto opt = make_optimizer(options, space, Direction::Maximize, {.seed = seed, .horizon = 50});
      Objective obj;
      obj.function = f;
      RunOptions ro;
      ro.budget = 50;
      const bool ok = *optimize(*opt, obj, ro).best_y == 1.0;
      if (stall == 0) {
        ok_without = ok;
        solved_without += ok;
        continue;
      }
      solved += ok;
      EXPECT_TRUE(ok || !ok_without) << "seed " << seed << ": solved only without the rule";
      EXPECT_GT(opt->diagnostics().at("explorations").get<int>(), 0) << "seed " << seed;
      auto replay = make_optimizer(options, space, Direction::Maximize, {.seed = seed, .horizon = 50});
      for (const auto& o : opt->history()) replay->tell(o.trial.x, o.value);
      EXPECT_EQ(replay->ask().x, opt->ask().x) << "seed " << seed;
    }
  }
  EXPECT_GE(solved, solved_without + 2);
}

// The same rule's mechanics on one run (the test above checks its outcome over eight seeds and is
// left out under the sanitizers, where this one runs): it fires on the discrete space, and a
// replay of the history asks the same next point.
TEST(GoUcb, DiscreteStallRuleFiresAndStaysReplayable) {
  const Space space = Space().add_integer("k", 1, 50).add_categorical("w", {"a", "b"}).add_integer("p", 1, 3);
  const auto f = [](const Vector& x) { return x[2] == 1 ? 0.99 - 0.002 * std::abs(x[0] - 9) : 0.9 - 0.002 * std::abs(x[0] - 15); };
  const nlohmann::json options = {{"name", "go-ucb"}, {"stall_steps", 3}};
  auto opt = make_optimizer(options, space, Direction::Maximize, {.seed = 0, .horizon = 30});
  Objective obj;
  obj.function = f;
  RunOptions ro;
  ro.budget = 30;
  optimize(*opt, obj, ro);
  EXPECT_GT(opt->diagnostics().at("explorations").get<int>(), 0);
  auto replay = make_optimizer(options, space, Direction::Maximize, {.seed = 0, .horizon = 30});
  for (const auto& o : opt->history()) replay->tell(o.trial.x, o.value);
  EXPECT_EQ(replay->ask().x, opt->ask().x);
}

// Phase I on a space with a categorical (design_categories, docs/go-ucb.md, "Phase I's
// categorical choices"): at budget 10 Phase I has 3 points, and drawn independently they saw all
// three of cat_conditional's models in only 8 of 40 seeds; Phase II then refined the best model
// seen and rarely tried an unseen one, and 7 runs ended on the worst model (regret 0.143). Covered,
// Phase I sees all three in every run, and at most one run ends on the worst model.
TEST(GoUcb, PhaseOneCoversEveryChoiceOfACategorical) {
  const Problem p = make_problem("cat_conditional");
  const auto runs = [&](const std::string& design) {
    int missed = 0, worst_model = 0;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      const nlohmann::json options = {{"name", "go-ucb"}, {"design_categories", design}};
      auto opt = make_optimizer(options, p.space, p.direction, {.seed = seed, .horizon = 10});
      Objective obj;
      obj.direction = p.direction;
      obj.function = p.f;
      RunOptions ro;
      ro.budget = 10;
      const RunSummary run = optimize(*opt, obj, ro);
      std::set<double> models;
      for (std::size_t i = 0; i < GoUcb::default_n_init(10); ++i) models.insert(opt->history()[i].trial.x[0]);
      missed += models.size() < 3;
      worst_model += *run.best_y - *p.f_star > 0.1;
    }
    return std::pair{missed, worst_model};
  };
  EXPECT_EQ(GoUcb::default_n_init(10), 3u);
  const auto [missed, worst_model] = runs("cover");
  EXPECT_EQ(missed, 0);
  EXPECT_LE(worst_model, 1);
  const auto [missed_independent, worst_model_independent] = runs("independent");
  EXPECT_GE(missed_independent, 20);
  EXPECT_GE(worst_model_independent, worst_model + 3);
  // preset=paper draws step 2 as stated, x ~ U(X).
  auto paper = make_optimizer({{"name", "go-ucb"}, {"preset", "paper"}}, p.space, p.direction, {.seed = 0, .horizon = 10});
  EXPECT_EQ(dynamic_cast<const GoUcb&>(*paper).options().design_categories, DesignCategories::Independent);
}

// The cover's mechanics on one run (the test above checks its outcome over 80 runs and is left
// out under the sanitizers, where this one runs): Phase I takes every model, and a replay of the
// history asks the same next point.
TEST(GoUcb, PhaseOneCoverTakesEveryChoiceAndStaysReplayable) {
  const Problem p = make_problem("cat_conditional");
  auto opt = make_optimizer({{"name", "go-ucb"}}, p.space, p.direction, {.seed = 5, .horizon = 10});
  std::set<double> models;
  for (int i = 0; i < 5; ++i) {
    const Trial t = opt->ask();
    if (i < 3) models.insert(t.x[0]);
    opt->tell(t, p.f(t.x));
  }
  EXPECT_EQ(models.size(), 3u);
  auto replay = make_optimizer({{"name", "go-ucb"}}, p.space, p.direction, {.seed = 5, .horizon = 10});
  for (const auto& o : opt->history()) replay->tell(o.trial.x, o.value);
  EXPECT_EQ(replay->ask().x, opt->ask().x);
}

// The flat-history rule (docs/go-ucb.md, "The stall rule"): while every value told is bit-equal
// (a plateau), the model has nothing to fit and the region around an arbitrary incumbent nothing
// to offer, so every Phase II step is space-filling. Before, the region crawled over the plateau
// between explorations: on plateau_ridge seeds 25 and 28 it never left the plateau in 50
// evaluations (now at evaluation 12); a constant objective had 1 exploration in 30, not 25.
TEST(GoUcb, FlatHistoryMakesEveryStepSpaceFilling) {
  const Space box = Space::box(2, 0.0, 1.0);
  auto flat = make_optimizer({{"name", "go-ucb"}}, box, Direction::Maximize, {.seed = 3, .horizon = 30});
  Objective constant;
  constant.function = [](const Vector&) { return 0.5; };
  RunOptions ro;
  ro.budget = 30;
  optimize(*flat, constant, ro);
  EXPECT_EQ(flat->diagnostics().at("explorations").get<std::size_t>(), 30 - GoUcb::default_n_init(30));

  const Problem p = make_problem("plateau_ridge");
  for (std::uint64_t seed : {25, 28}) {
    auto opt = make_optimizer({{"name", "go-ucb"}}, p.space, p.direction, {.seed = seed, .horizon = 50});
    Objective obj;
    obj.direction = p.direction;
    obj.function = p.f;
    ro.budget = 50;
    const RunSummary run = optimize(*opt, obj, ro);
    EXPECT_GT(*run.best_y, 0.0) << "seed " << seed << ": never left the plateau";
    auto replay = make_optimizer({{"name", "go-ucb"}}, p.space, p.direction, {.seed = seed, .horizon = 50});
    for (const auto& o : opt->history()) replay->tell(o.trial.x, o.value);
    EXPECT_EQ(replay->ask().x, opt->ask().x) << "seed " << seed;
  }
}

// failed_points=worst (an option for GO-UCB, docs/go-ucb.md): failed points enter the fits at the
// worst value, so a failing half of the square is chosen less often than when they are left out.
TEST(GoUcb, FailedPointsAtTheWorstValueSteerAwayFromAFailingRegion) {
  const Space space = Space::box(2, 0.0, 1.0);
  const auto failures = [&](const std::string& failed_points) {
    std::size_t failed = 0;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      auto opt = make_optimizer({{"name", "go-ucb"}, {"failed_points", failed_points}}, space, Direction::Minimize,
                                RunContext{.seed = seed, .horizon = 25});
      for (int i = 0; i < 25; ++i) {
        const Trial t = opt->ask();
        if (t.x[0] > 0.5) {
          opt->tell_failed(t, "failed");
          ++failed;
        } else {
          opt->tell(t, std::pow(t.x[0] - 0.3, 2) + std::pow(t.x[1] - 0.6, 2));
        }
      }
    }
    return static_cast<double>(failed) / 10.0;
  };
  const double worst = failures("worst"), ignore = failures("ignore");
  EXPECT_LT(worst, ignore - 2.0) << worst << " vs " << ignore;  // measured 6.0 vs 9.6 (Python, same task)
}

TEST(GoUcb, DecisionsNameWhatItsAutoOptionsBecame) {
  const Space space = Space::box(20, -5.0, 5.0);
  auto opt = make_optimizer({{"name", "go-ucb"}}, space, Direction::Minimize, {.seed = 3, .horizon = 40});
  const nlohmann::json resolved = opt->decisions().at("resolved");
  EXPECT_EQ(resolved.at("model"), "additive");
  EXPECT_EQ(resolved.at("opening_steps"), 4);
  EXPECT_DOUBLE_EQ(resolved.at("trust_region").get<double>(), 0.1);
  // Options the user set are not decisions.
  auto set = make_optimizer({{"name", "go-ucb"}, {"model", "mlp"}, {"trust_region", 0.2}, {"trust_max", 0.4}, {"opening_steps", 0}},
                            space, Direction::Minimize, {.seed = 3, .horizon = 40});
  EXPECT_TRUE(set->decisions().empty());
}
