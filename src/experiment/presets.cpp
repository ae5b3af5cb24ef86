// The built-in sweeps: each reproduces one figure of a paper in /work/shared/papers/ (docs/bench.md).
#include <algorithm>

#include "optimist/core/types.hpp"
#include "optimist/experiment/sweep.hpp"

namespace optimist::experiment {

namespace {

using json = nlohmann::json;

json gp_workshop(const char* name) {
  // The workshop compares after the same 5 uniform Phase I points (N = 5).
  return {{"name", name}, {"options", {{"n_init", 5}, {"init", "uniform"}}}};
}

// x_{h,i} drawn uniformly in its cell (docs/tree-search.md), seeded by the run's seed.
json tree_random(const char* name) { return {{"name", name}, {"options", {{"representative", "random"}}}}; }

std::vector<Preset> make_presets() {
  std::vector<Preset> p;
  p.push_back({"goucb-synthetic", "GO-UCB paper (ICML 2023) Fig. 2: 20-D synthetic functions, noise 0.01",
               {{"name", "goucb-synthetic"},
                {"seeds", 5},  // Sec. 6.1: 5 repetitions, Wald 95%
                {"level", 0.95},
                {"noise", 0.01},
                {"dim", 20},
                {"metric", "cumulative_regret"},
                {"plots", {"metric", "simple_regret"}},
                // The baselines start like GO-UCB's Phase I on the 72-evaluation tasks: 8 uniform points
                // (the BoTorch comparison). GO-UCB's own n is Theorem 4.1's: 8 for N = 72, 5 for N = 30.
                {"algorithms",
                 {"go-ucb",  // at d = 20 its default model is the additive family (docs/go-ucb.md, seventh round)
                  // GO-UCB with the paper's network (section 6: one hidden layer of 25 sigmoid units).
                  {{"name", "go-ucb"}, {"label", "go-ucb-mlp"}, {"options", {{"model", "mlp"}}}},
                  {{"name", "gp-ucb"}, {"options", {{"n_init", 8}, {"init", "uniform"}}}},
                  {{"name", "gp-ei"}, {"options", {{"n_init", 8}, {"init", "uniform"}}}},
                  {{"name", "gp-pi"}, {"options", {{"n_init", 8}, {"init", "uniform"}}}},
                  {{"name", "turbo"}, {"options", {{"n_init", 8}, {"init", "uniform"}}}},
                  "random"}},
                {"problems",
                 {{{"name", "goucb_f1"}, {"budget", 30}},
                  {{"name", "styblinski_tang"}, {"budget", 72}},
                  {{"name", "rastrigin"}, {"budget", 72}}}}}});
  p.push_back({"goucb-workshop",
               "GO-UCB workshop paper Fig. 1: sigmoid and sine in 1-D, N = 5, T = 20, average Phase II regret, "
               "98% intervals",
               {{"name", "goucb-workshop"},
                {"seeds", 100},  // Sec. 4: repeated 100 times
                {"level", 0.98},
                {"metric", "average_phase2_regret"},
                {"phase1", 5},
                {"noise", 0.01},
                {"budget", 20},
                {"plots", {"metric", "simple_regret"}},
                {"algorithms",
                 {// eq. (13): w2 sigmoid(w1 x + b1) + b2, one hidden sigmoid unit; U = 10, N = 5
                  {{"name", "go-ucb-workshop"}, {"options", {{"n_init", 5}, {"hidden", {1}}, {"u", 10.0}}}},
                  gp_workshop("gp-ei"), gp_workshop("gp-pi"), gp_workshop("gp-ucb")}},
                {"problems", {"sigmoid_1d", "sine_1d"}}}});
  p.push_back({"discrete",
               "Integer, categorical and mixed spaces of 20 to 5,000 points (issue 27): simple regret at T, "
               "paired against random search (listed first); Optuna's TPE and random sampler as peers",
               {{"name", "discrete"},
                {"seeds", 10},
                {"level", 0.95},
                {"metric", "simple_regret"},
                {"plots", {"simple_regret"}},
                {"algorithms",
                 {"random", "auto", "sobol", "gp-ei", "gp-ucb", "gp-pi", "turbo", "go-ucb", "bkb", "sequool", "soo",
                  // Optuna 3.1's samplers on the same problems, seeds and noise streams (bench/optuna_peers.py).
                  {{"name", "tpe"}, {"peer", "optuna"}},
                  {{"name", "random"}, {"peer", "optuna"}}}},
                // Budgets from about a third to two thirds of the small spaces, 100 on the largest.
                {"problems",
                 {{{"name", "int_sincos"}, {"budget", 64}},
                  {{"name", "mixed_separable"}, {"budget", 40}},
                  {{"name", "cat_pair"}, {"budget", 12}},
                  {{"name", "cat_additive"}, {"budget", 40}},
                  {{"name", "int_rosenbrock"}, {"budget", 60}},
                  {{"name", "cat_conditional"}, {"budget", 50}},
                  {{"name", "bool_quadratic"}, {"budget", 60}},
                  {{"name", "int_styblinski_tang"}, {"budget", 60}},
                  {{"name", "int_ackley"}, {"budget", 80}},
                  {{"name", "mixed_large"}, {"budget", 100}}}}}});
  p.push_back({"tree-noisy",
               "SequOOL/StroquOOL paper (ALT 2019) Figs. 3 and 5: wrapped sine and garland with noise b in "
               "{0, 0.1, 1}",
               {{"name", "tree-noisy"},
                {"seeds", 10},
                {"level", 0.95},
                {"budget", 1000},
                {"metric", "simple_regret"},
                {"plots", {"metric_log"}},
                // Random representatives: a cell center would hit wrapped_sine's optimum x = 1/2 at once.
                {"algorithms", {tree_random("stroquool"), tree_random("poo"), tree_random("hoo")}},
                {"problems",
                 {{{"name", "wrapped_sine"}, {"noise", {0.0, 0.1, 1.0}}},
                  {{"name", "garland"}, {"noise", {0.0, 0.1, 1.0}}}}}}});
  p.push_back({"tree-deterministic",
               "SequOOL/StroquOOL paper (ALT 2019) Fig. 4: deterministic feedback, simple regret on a log scale",
               {{"name", "tree-deterministic"},
                {"seeds", 5},  // the runs differ by their random representatives only
                {"level", 0.95},
                {"budget", 1000},
                {"noise", 0.0},
                {"metric", "simple_regret"},
                {"plots", {"metric_log"}},
                {"algorithms",
                 {tree_random("sequool"), tree_random("stroquool"), tree_random("soo"), tree_random("uniform-grid")}},
                {"problems", {"garland", "wrapped_sine"}}}});
  p.push_back({"bkb-scaling",
               "BKB (COLT 2019) against exact GP-UCB on the same 1000 Sobol arms of hartmann6, with their defaults "
               "and with Thm. 4's beta: time per step and regret against t",
               {{"name", "bkb-scaling"},
                {"seeds", 2},
                {"level", 0.95},
                {"budget", 1000},
                {"noise", 0.05},
                {"metric", "cumulative_regret"},
                {"plots", {"metric", "suggest_time"}},
                {"algorithms",
                 {{{"name", "bkb"}, {"options", {{"arms", 1000}}}},
                  {{"name", "gp-ucb-arms"}, {"options", {{"arms", 1000}}}},
                  {{"name", "bbkb"}, {"options", {{"arms", 1000}}}},
                  {{"name", "bkb"}, {"label", "bkb-theorem4"}, {"options", {{"arms", 1000}, {"beta", "theorem4"}}}},
                  {{"name", "gp-ucb-arms"},
                   {"label", "gp-ucb-arms-theorem4"},
                   {"options", {{"arms", 1000}, {"beta", "theorem4"}}}}}},
                {"problems", {"hartmann6"}}}});
  json hpo = json::array();
  for (const char* model : {"rf", "mlp", "gb"})
    for (const char* data : {"breast_cancer", "australian", "diabetes"})
      hpo.push_back(std::string("hpo_") + model + "_" + data);
  p.push_back({"goucb-hpo",
               "GO-UCB paper (ICML 2023) Sec. 6.2, Figs. 3-5: hyperparameter tuning of random forest, MLP and "
               "gradient boosting on three UCI data sets; f* = best accuracy seen in the sweep",
               {{"name", "goucb-hpo"},
                {"seeds", 3},  // Sec. 6.2 uses 5 folds; 3 keeps the sweep near 2 h on 2 cores
                {"level", 0.95},
                {"budget", 72},
                {"noise", 0.0},
                {"metric", "cumulative_regret"},
                {"plots", {"metric"}},
                {"algorithms",
                 {"go-ucb",  // at d = 7-11 its default model is the additive family
                  {{"name", "go-ucb"}, {"label", "go-ucb-mlp"}, {"options", {{"model", "mlp"}}}},  // the paper's network
                  "gp-ucb", "gp-ei", "gp-pi", "turbo", "random"}},
                {"problems", hpo}}});
  // docs/robust.md: the tasks a new user brings, which no default here was tuned on. Random search
  // comes first: every other algorithm's paired interval is against it.
  p.push_back({"robust",
               "Robust defaults: 9 scikit-learn tuning tasks and 7 synthetic tasks (plateaus, ridges, steps, "
               "ill-conditioning, conditional and mixed spaces), 1-12 D, budgets 30, 50 and 100; simple regret, "
               "f* = the best value seen in the sweep where unknown",
               {{"name", "robust"},
                {"seeds", 10},
                {"level", 0.95},
                {"budget", {30, 50, 100}},
                {"noise", 0.0},
                {"metric", "simple_regret"},
                {"plots", {"metric_log"}},
                {"algorithms",
                 {"random", "auto", "gp-ei", "go-ucb", "turbo",
                  // Optuna 3.1's samplers on the same tasks and seeds (bench/optuna_peers.py).
                  {{"name", "tpe"}, {"peer", "optuna"}},
                  {{"name", "random"}, {"peer", "optuna"}}}},
                {"problems",
                 {"svm_rbf_breast_cancer", "svm_kernel_wine", "knn_wine", "logistic_breast_cancer", "tree_australian",
                  "elasticnet_diabetes", "sgd_breast_cancer", "forest_australian", "mlp_pima", "plateau_ridge",
                  "steps_1d", "step_ellipsoid", "sharp_ridge", "conditional_mixed", "illcond_ellipsoid",
                  "mixed_int_12d"}}}});
  // docs/robust.md, "Parallel evaluation": what a batch costs per evaluation, with random search
  // first (the paired table is against it) and sequential `auto` as the reference.
  p.push_back({"parallel",
               "Parallel evaluation: auto asking batches of 4 and 8 against sequential auto and random search, "
               "15 synthetic tasks (1-12 D), budgets 50 and 100, no noise; simple regret",
               {{"name", "parallel"},
                {"seeds", 20},
                {"level", 0.95},
                {"budget", {50, 100}},
                {"noise", 0.0},
                {"metric", "simple_regret"},
                {"plots", {"metric_log"}},
                {"algorithms", {"random", "auto", {{"name", "auto"}, {"batch", 4}}, {{"name", "auto"}, {"batch", 8}}}},
                {"problems",
                 {"branin", "himmelblau", "hartmann6", {{"name", "ackley"}, {"dim", 5}}, {{"name", "levy"}, {"dim", 5}},
                  {{"name", "rosenbrock"}, {"dim", 4}}, {{"name", "ackley"}, {"dim", 10}}, {{"name", "levy"}, {"dim", 10}},
                  "plateau_ridge", "steps_1d", "step_ellipsoid", "sharp_ridge", "conditional_mixed", "illcond_ellipsoid",
                  "mixed_int_12d"}}}});
  return p;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = make_presets();
  return all;
}

SweepSpec preset_sweep(const std::string& name) {
  std::string names;
  for (const auto& p : presets()) {
    if (p.name == name) {
      SweepSpec s = parse_sweep(p.spec, "preset '" + name + "'");
      s.description = p.description;
      return s;
    }
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw InvalidArgument("unknown preset '" + name + "'; valid presets: " + names);
}

}  // namespace optimist::experiment
