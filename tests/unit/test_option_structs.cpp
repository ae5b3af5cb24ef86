// The Options and Config structs of the public headers are meant to be written with designated
// initializers, naming only what differs from the defaults (`RunOptions{.budget = 40}`). Every
// member has a default member initializer, so such code compiles without -Wextra's
// missing-field-initializers warning (this file is built with -Wall -Wextra, -Werror in CI: a
// member added without one fails the build here), and the members not named keep their defaults.
#include <gtest/gtest.h>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/algorithms/baseline/coordinate_search.hpp"
#include "optimist/algorithms/baseline/sobol_search.hpp"
#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/parametric/go_ucb_options.hpp"
#include "optimist/algorithms/tree/tree_search.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/objective.hpp"
#include "optimist/experiment/minimize.hpp"
#include "optimist/experiment/runner.hpp"
#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/solvers/mixed_maximizer.hpp"
#include "optimist/solvers/space_filling.hpp"
#include "optimist/study/storage.hpp"
#include "optimist/study/study.hpp"
#include "optimist/study/worker.hpp"

using namespace optimist;

TEST(OptionStructs, DesignatedInitializersNameOnlyWhatDiffers) {
  const RunOptions run{.budget = 40};
  EXPECT_EQ(run.budget, 40u);
  EXPECT_FALSE(run.time_limit_s || run.target || run.on_progress || run.should_stop);
  EXPECT_TRUE(run.resume_from.empty());
  const Objective objective{.direction = Direction::Minimize};
  EXPECT_FALSE(objective.function || objective.optimum || objective.noise_free);
  EXPECT_EQ(objective.name, "objective");
  const EvaluationRecord record{.i = 3};
  EXPECT_FALSE(record.y || record.f || record.regret || record.cum_regret || record.best_f);
  EXPECT_TRUE(record.error.empty() && record.x.size() == 0);
  [[maybe_unused]] const MinimizeOptions minimize{.budget = 5};
  [[maybe_unused]] const RunContext context{.seed = 3};
  const GpBoOptions gp_bo{.acquisition = Acquisition::Ucb};
  EXPECT_FALSE(gp_bo.beta || gp_bo.noise_sd);
  const GoUcbOptions go_ucb{.n_init = 5};
  EXPECT_FALSE(go_ucb.standardize || go_ucb.refit_every || go_ucb.trust_region || go_ucb.trust_max || go_ucb.opening_steps);
  [[maybe_unused]] const TurboOptions turbo{.kernel = TurboOptions{}.kernel};
  [[maybe_unused]] const TreeOptions tree{.children = 3};
  [[maybe_unused]] const ArmBanditOptions arms{.preset = ArmBanditOptions{}.preset};
  [[maybe_unused]] const SobolSearchOptions sobol{.scramble = false};
  [[maybe_unused]] const CoordinateSearchOptions coordinate{.initial_step = 0.1};
  [[maybe_unused]] const GpOptions gp{.kernel = GpOptions{}.kernel};
  [[maybe_unused]] const GpFitOptions fit{.random_starts = 2};
  [[maybe_unused]] const MixedMaximizerOptions mixed{.box = BoxMaximizerOptions{.raw_samples = 64}};
  const SpaceFillingOptions filling{.candidates = 10};
  EXPECT_FALSE(filling.snap || filling.excluded);
  [[maybe_unused]] const experiment::RunnerOptions runner{.jobs = 2};
  [[maybe_unused]] const StorageOptions storage{.retry_s = 1.0};
  const StudySettings settings{.heartbeat_interval_s = 1.0};
  EXPECT_FALSE(settings.horizon);
  const StudyConfig config{.name = "lab"};
  EXPECT_FALSE(config.budget || config.f_star);
  EXPECT_TRUE(config.space.empty());
  [[maybe_unused]] const StudyOptions study{.worker = "w"};
  const WorkerOptions worker{.jobs = 2};
  EXPECT_FALSE(worker.max_trials || worker.should_stop || worker.on_evaluation);
}
