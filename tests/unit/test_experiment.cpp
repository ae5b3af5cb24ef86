// optimist::experiment: statistics, sweep parsing, presets, the resumable parallel runner, summary.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/experiment/runner.hpp"
#include "optimist/experiment/statistics.hpp"
#include "optimist/experiment/summary.hpp"
#include "optimist/experiment/sweep.hpp"
#include "optimist/problems/problem.hpp"
#include "scoped_env.hpp"
#include "temp_test_dir.hpp"

namespace {

namespace fs = std::filesystem;
namespace ex = optimist::experiment;
using nlohmann::json;

fs::path fresh_dir() { return optimist::testing::test_dir("optimist_experiment"); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const optimist::InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

// The lines of a trace without the timing fields (docs/trace-format.md, Determinism).
std::vector<json> untimed(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    j.erase("suggest_s");
    j.erase("eval_s");
    j.erase("tell_s");
    lines.push_back(j);
  }
  return lines;
}

ex::RunnerOptions with_jobs(std::size_t jobs, std::function<bool()> should_stop = {}) {
  ex::RunnerOptions o;
  o.jobs = jobs;
  o.should_stop = std::move(should_stop);
  return o;
}

ex::SweepSpec tiny_sweep(std::size_t seeds = 2) {
  return ex::parse_sweep({{"name", "tiny"},
                          {"seeds", seeds},
                          {"algorithms", {"random", "sobol"}},
                          {"problems", {{{"name", "branin"}, {"budget", 8}, {"noise", 0.1}}}}},
                         "test");
}

TEST(ExperimentStatistics, MeanIntervalsMatchHandComputedValues) {
  // {1, 2, 3, 4}: mean 2.5, sample sd sqrt(5/3) = 1.2909944; z(95%) = 1.9599640, z(98%) = 2.3263479;
  // Student's t with 3 degrees of freedom: 3.1824463 at 95% (scipy.stats.t.ppf(0.975, 3)).
  const auto w95 = ex::mean_interval({1, 2, 3, 4}, 0.95, ex::IntervalKind::Wald);
  EXPECT_EQ(w95.n, 4u);
  EXPECT_DOUBLE_EQ(w95.mean, 2.5);
  EXPECT_NEAR(w95.sd, 1.2909944487358056, 1e-12);
  EXPECT_NEAR(*w95.half_width, 1.959963984540054 * 1.2909944487358056 / 2, 1e-12);
  EXPECT_NEAR(*w95.half_width, 1.2651, 1e-4);
  const auto w98 = ex::mean_interval({1, 2, 3, 4}, 0.98, ex::IntervalKind::Wald);
  EXPECT_NEAR(*w98.half_width, 2.3263478740408408 * 1.2909944487358056 / 2, 1e-12);
  const auto t95 = ex::mean_interval({1, 2, 3, 4}, 0.95, ex::IntervalKind::StudentT);
  EXPECT_NEAR(*t95.multiplier, 3.182446305284263, 1e-9);
  EXPECT_NEAR(*t95.half_width, 3.182446305284263 * 1.2909944487358056 / 2, 1e-9);
  EXPECT_DOUBLE_EQ(t95.mean, w95.mean);
  // Equal values: their value and no spread (ten 0.1s sum to 0.9999999999999999, and the mean
  // of that showed as "0.1 +- 1.5e-17").
  const auto same = ex::mean_interval(std::vector<double>(10, 0.1), 0.95, ex::IntervalKind::StudentT);
  EXPECT_EQ(same.mean, 0.1);
  EXPECT_EQ(same.sd, 0.0);
  EXPECT_EQ(*same.half_width, 0.0);
  const auto one = ex::mean_interval({7}, 0.95, ex::IntervalKind::StudentT);
  EXPECT_DOUBLE_EQ(one.mean, 7);
  EXPECT_FALSE(one.half_width.has_value());
  EXPECT_FALSE(one.multiplier.has_value());
  EXPECT_NEAR(ex::normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(ex::normal_quantile(0.001), -3.090232306167813, 1e-13);
  EXPECT_NEAR(ex::normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(ex::median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(ex::median({4, 1, 3, 2}), 2.5);
  for (const auto kind : {ex::IntervalKind::Wald, ex::IntervalKind::StudentT}) {
    EXPECT_NE(error_of([&] { ex::mean_interval({}, 0.95, kind); }).find("no values"), std::string::npos);
    EXPECT_NE(error_of([&] { ex::mean_interval({1, 2}, 1.0, kind); }).find("level"), std::string::npos);
    EXPECT_NE(error_of([&] { ex::mean_interval({1, std::nan("")}, 0.95, kind); }).find("nan"), std::string::npos);
  }
  // Round-off is no spread (a summary showed 18.3 +- 6.24e-15 beside 18.3 +- 0).
  const auto round_off = ex::mean_interval({18.3, 18.3 + 3.5e-15, 18.3}, 0.95, ex::IntervalKind::StudentT);
  EXPECT_EQ(round_off.sd, 0.0);
  EXPECT_EQ(round_off.half_width, 0.0);
}

// The papers' Wald interval uses the normal quantile: with K seeds it covers what Student's t with
// K - 1 degrees of freedom gives (values from scipy.stats.t), and summary.md says so when K is small.
TEST(ExperimentStatistics, AWaldIntervalsCoverageWithFewSeedsIsStatedInTheSummary) {
  EXPECT_NEAR(ex::wald_coverage(3, 0.95), 0.8109375885315384, 1e-9);
  EXPECT_NEAR(ex::wald_coverage(10, 0.95), 0.9183508682693182, 1e-9);
  EXPECT_NEAR(ex::wald_coverage(2, 0.95), 0.6996523724985437, 1e-9);
  EXPECT_NEAR(ex::t_quantile(3, 0.95), 4.302652729911275, 1e-9);
  EXPECT_NEAR(ex::t_quantile(10, 0.98), 2.8214379233005493, 1e-6);
  EXPECT_NE(error_of([] { ex::wald_coverage(1, 0.95); }).find("n >= 2"), std::string::npos);
  EXPECT_NE(error_of([] { ex::t_quantile(3, 1.0); }).find("level"), std::string::npos);
  const fs::path dir = fresh_dir();
  const auto wald = [](std::size_t seeds) {
    ex::SweepSpec spec = tiny_sweep(seeds);
    spec.interval = ex::IntervalKind::Wald;
    return spec;
  };
  const std::string few = ex::summary_markdown(ex::summarize(wald(3), dir.string()));
  EXPECT_NE(few.find("With K = 3 seeds a 95% Wald interval covers the mean of normal values only 81.1% of the time "
                     "(Student's t would multiply sd / sqrt(K) by 4.303, not 1.96"),
            std::string::npos)
      << few;
  EXPECT_EQ(ex::summary_markdown(ex::summarize(wald(30), dir.string())).find("With K ="), std::string::npos);
  // The default is Student's t: no warning, and the multiplier is stated.
  const std::string t = ex::summary_markdown(ex::summarize(tiny_sweep(3), dir.string()));
  EXPECT_EQ(t.find("With K ="), std::string::npos) << t;
  EXPECT_NE(t.find("Student's t with K - 1 degrees of freedom, 95%; t = 4.303 at K = 3"), std::string::npos) << t;
}

TEST(ExperimentSweep, ParseErrorsNameTheKeyAndValue) {
  const json ok = {{"algorithms", {"random"}}, {"problems", {{{"name", "branin"}, {"budget", 5}}}}};
  auto with = [&](const std::string& key, const json& v) {
    json j = ok;
    j[key] = v;
    return error_of([&] { ex::parse_sweep(j, "s.toml"); });
  };
  EXPECT_NE(with("seed", 3).find("unknown key 'seed' in s.toml"), std::string::npos);
  EXPECT_NE(with("seeds", -2).find("'seeds' in s.toml must be a positive integer, got -2"), std::string::npos);
  EXPECT_NE(with("level", 95).find("'level'"), std::string::npos);
  EXPECT_NE(with("interval", "normal").find("'interval' in s.toml must be \"t\""), std::string::npos);
  EXPECT_NE(with("metric", "regret").find("'regret'"), std::string::npos);
  EXPECT_NE(with("plots", {"pretty"}).find("plots[0]"), std::string::npos);
  EXPECT_NE(with("problems", {"branin", {{"name", "levy"}, {"dim", 0}, {"budget", 5}}}).find("problems[0].budget"),
            std::string::npos);
  EXPECT_NE(with("problems", {{{"name", "levy"}, {"dim", "3"}, {"budget", 5}}}).find("'problems[0].dim' in s.toml must be a positive integer, got '3'"),
            std::string::npos);
  EXPECT_NE(with("problems", {{{"name", "levy"}, {"budget", 5}, {"noise", {0.1, -1}}}}).find("problems[0].noise[1]"),
            std::string::npos);
  EXPECT_NE(with("algorithms", {{{"name", "random"}, {"options", {{"seed", 1}}}}}).find("algorithms[0].options.seed"),
            std::string::npos);
  EXPECT_NE(with("algorithms", {{{"name", "random"}, {"colour", 1}}}).find("unknown key 'algorithms[0].colour'"),
            std::string::npos);
  EXPECT_NE(with("algorithms", {"random", "random"}).find("label 'random'"), std::string::npos);
  EXPECT_NE(with("algorithms", {{{"name", "random"}, {"label", "../x"}}}).find("'../x'"), std::string::npos);
  json avg = ok;
  avg["metric"] = "average_phase2_regret";
  EXPECT_NE(error_of([&] { ex::parse_sweep(avg, "s"); }).find("'phase1'"), std::string::npos);
}

// Seeds first_seed .. first_seed + K - 1 once wrapped past 2^64 - 1 to 0, 1, ... (runs of other
// seeds filed as the sweep's), and a count of 10^12 seeds ended in std::bad_alloc; `--seeds`
// changes the count after parsing, so check_available checks the range again.
TEST(ExperimentSweep, SeedsPastTheLastOneOrTooManyAreRefused) {
  const std::uint64_t last = std::numeric_limits<std::uint64_t>::max();
  json config = {{"budget", 4}, {"algorithms", {"random"}}, {"problems", {"branin"}}, {"first_seed", last}, {"seeds", 2}};
  EXPECT_NE(error_of([&] { ex::parse_sweep(config, "s.json"); })
                .find("'first_seed' 18446744073709551615 with 2 seeds in s.json: the last seed would be past 2^64 - 1"),
            std::string::npos);
  config["seeds"] = 1;
  ex::SweepSpec spec = ex::parse_sweep(config, "s.json");
  EXPECT_EQ(ex::plan_runs(spec, "out").back().seed, last);
  spec.seeds = 3;  // --seeds 3
  EXPECT_NE(error_of([&] { ex::check_available(spec); }).find("the last seed would be past 2^64 - 1"), std::string::npos);
  config["first_seed"] = 0;
  config["seeds"] = 1000000000000ull;
  EXPECT_NE(error_of([&] { ex::parse_sweep(config, "s.json"); }).find("'seeds' in s.json must be a positive integer up to 1000000, got 1000000000000"),
            std::string::npos);
  // The Optuna peers' 32-bit seeds, checked again after --seeds.
  config = {{"budget", 4}, {"algorithms", {{{"name", "tpe"}, {"peer", "optuna"}}}}, {"problems", {"branin"}},
            {"first_seed", 4294967295ull}, {"seeds", 1}};
  spec = ex::parse_sweep(config, "s.json");
  spec.seeds = 2;
  EXPECT_NE(error_of([&] { ex::check_available(spec); }).find("the Optuna peers take seeds below 2^32"), std::string::npos);
}

TEST(ExperimentSweep, NoiseListsExpandWithDistinctLabels) {
  const auto s = ex::parse_sweep({{"budget", 10},
                                  {"algorithms", {"random"}},
                                  {"problems", {{{"name", "garland"}, {"noise", {0, 0.1, 1}}}, "branin"}}},
                                 "t");
  ASSERT_EQ(s.problems.size(), 4u);
  EXPECT_EQ(s.problems[0].label, "garland-noise0");
  EXPECT_EQ(s.problems[1].label, "garland-noise0.1");
  EXPECT_EQ(s.problems[2].noise, 1.0);
  EXPECT_EQ(s.problems[3].label, "branin");
  EXPECT_EQ(s.run_count(), 4u * 5u);
}

TEST(ExperimentSweep, BudgetListsExpandLikeNoiseLists) {
  const auto s = ex::parse_sweep({{"budget", {30, 50}},
                                  {"algorithms", {"random"}},
                                  {"problems", {"branin", {{"name", "garland"}, {"budget", {7}}, {"noise", {0, 1}}}}}},
                                 "t");
  ASSERT_EQ(s.problems.size(), 4u);
  EXPECT_EQ(s.problems[0].label, "branin-T30");
  EXPECT_EQ(s.problems[1].label, "branin-T50");
  EXPECT_EQ(s.problems[1].budget, 50u);
  EXPECT_EQ(s.problems[2].label, "garland-noise0");
  EXPECT_EQ(s.problems[3].budget, 7u);
  const std::string bad = error_of([] {
    ex::parse_sweep({{"algorithms", {"random"}}, {"problems", {{{"name", "branin"}, {"budget", {10, 0}}}}}}, "t");
  });
  EXPECT_NE(bad.find("'problems[0].budget[1]'"), std::string::npos) << bad;
  const std::string labelled = error_of([] {
    ex::parse_sweep({{"algorithms", {"random"}}, {"problems", {{{"name", "branin"}, {"label", "b"}, {"budget", {10, 20}}}}}},
                    "t");
  });
  EXPECT_NE(labelled.find("cannot name several"), std::string::npos) << labelled;
}

TEST(ExperimentSweep, MissingAlgorithmsProblemsAndBadOptionsAreNamed) {
  const auto s = ex::parse_sweep({{"budget", 10},
                                  {"algorithms", {"random", "no-such-algorithm"}},
                                  {"problems", {"branin", "no_such_problem"}}},
                                 "t");
  const std::string msg = error_of([&] { ex::check_available(s); });
  EXPECT_NE(msg.find("no-such-algorithm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no_such_problem"), std::string::npos) << msg;
  // Typos get the closest name, as `optimist run` gives it.
  const auto typos = ex::parse_sweep({{"budget", 10}, {"algorithms", {"gpei"}}, {"problems", {"branni"}}}, "t");
  const std::string guessed = error_of([&] { ex::check_available(typos); });
  EXPECT_NE(guessed.find("'gpei' (did you mean 'gp-ei'?)"), std::string::npos) << guessed;
  EXPECT_NE(guessed.find("'branni' (did you mean 'branin'?)"), std::string::npos) << guessed;
  const auto bad_option = ex::parse_sweep(
      {{"budget", 10}, {"algorithms", {{{"name", "random"}, {"options", {{"bogus", 1}}}}}}, {"problems", {"branin"}}}, "t");
  EXPECT_NE(error_of([&] { ex::check_available(bad_option); }).find("bogus"), std::string::npos);
  const auto bad_dim = ex::parse_sweep({{"budget", 10}, {"algorithms", {"random"}}, {"problems", {{{"name", "branin"}, {"dim", 7}}}}}, "t");
  EXPECT_NE(error_of([&] { ex::check_available(bad_dim); }).find("7"), std::string::npos);
}

// "branin" and "branin" with dim 2 (its default) once ran every run twice.
TEST(ExperimentSweep, EntriesThatMakeTheSameRunsAreRefused) {
  const std::string twice = error_of([&] {
    ex::parse_sweep(
        {{"name", "dup"}, {"budget", 10}, {"algorithms", {"random"}}, {"problems", {"branin", {{"name", "branin"}, {"dim", 2}}}}}, "t");
  });
  EXPECT_NE(twice.find("two problems in t make the same runs (branin, dim 2, noise 0, budget 10); drop one"), std::string::npos)
      << twice;
  // Labelled apart, they still make the same runs.
  const auto problems = ex::parse_sweep({{"name", "dup"}, {"budget", 10}, {"algorithms", {"random"}},
                                         {"problems", {"branin", {{"name", "branin"}, {"dim", 2}, {"label", "b2"}}}}},
                                        "t");
  const std::string labelled = error_of([&] { ex::check_available(problems); });
  EXPECT_NE(labelled.find("problems 'branin' and 'b2' of sweep 'dup' make the same runs (branin, dim 2, noise 0, budget 10)"),
            std::string::npos)
      << labelled;
  const auto algorithms = ex::parse_sweep({{"budget", 10},
                                           {"algorithms", {"gp-ei", {{"name", "gp-ei"}, {"label", "ei"}, {"options", {{"xi", 0.0}}}}}},
                                           {"problems", {"branin"}}},
                                          "t");
  const std::string same = error_of([&] { ex::check_available(algorithms); });
  EXPECT_NE(same.find("algorithms 'gp-ei' and 'ei'"), std::string::npos) << same;
  // Different instances and options are not the same runs.
  const auto fine = ex::parse_sweep({{"budget", 10},
                                     {"algorithms", {"gp-ei", {{"name", "gp-ei"}, {"label", "ei"}, {"options", {{"xi", 0.1}}}}}},
                                     {"problems", {"branin", {{"name", "branin"}, {"noise", 0.1}}, "ackley"}}},
                                    "t");
  EXPECT_EQ(error_of([&] { ex::check_available(fine); }), "(no error)");
}

TEST(ExperimentSweep, EveryPresetParsesAndNamesExactlyWhatIsMissing) {
  std::set<std::string> registered, catalog;
  for (const auto& a : optimist::algorithms()) registered.insert(a.name);
  for (const auto& p : optimist::problems()) catalog.insert(p.name);
  ASSERT_GE(ex::presets().size(), 6u);
  for (const auto& preset : ex::presets()) {
    const std::string name = preset.name;
    const ex::SweepSpec s = ex::preset_sweep(name);
    std::vector<std::string> missing;
    for (const auto& a : s.algorithms)
      if (a.peer.empty() && !registered.count(a.name)) missing.push_back(a.name);
    for (const auto& p : s.problems)
      if (!catalog.count(p.name)) missing.push_back(p.name);
    const std::string msg = error_of([&] { ex::check_available(s); });
    if (missing.empty() && msg.find("dataset '") != std::string::npos) {
      // goucb-hpo in a checkout without ../shared/datasets: refused, naming the data set.
      EXPECT_TRUE(msg.find("dataset '") != std::string::npos) << name << ": " << msg;
    } else if (missing.empty()) {
      EXPECT_EQ(msg, "(no error)") << name;
    } else {
      for (const auto& m : missing) EXPECT_NE(msg.find(m), std::string::npos) << name << ": " << msg;
    }
  }
  EXPECT_EQ(ex::preset_sweep("goucb-workshop").level, 0.98);
  EXPECT_EQ(ex::preset_sweep("tree-noisy").problems.size(), 6u);
  EXPECT_NE(error_of([] { ex::preset_sweep("nope"); }).find("goucb-synthetic"), std::string::npos);
}

TEST(ExperimentRunner, FinishedTracesAreSkippedAndPartialOnesContinued) {
  const fs::path dir = fresh_dir();
  const ex::SweepSpec spec = tiny_sweep();
  const auto first = ex::run_sweep(spec, dir.string(), with_jobs(2));
  EXPECT_EQ(first.progress.done, 4u);
  EXPECT_EQ(first.progress.skipped, 0u);
  const auto runs = ex::plan_runs(spec, dir.string());
  EXPECT_EQ(runs[3].trace_path, (dir / "traces" / "branin" / "sobol" / "seed-1.jsonl").string());
  for (const auto& r : runs) EXPECT_TRUE(optimist::read_trace(r.trace_path).complete());

  const auto again = ex::run_sweep(spec, dir.string(), with_jobs(2));
  EXPECT_EQ(again.progress.skipped, 4u);
  EXPECT_EQ(again.progress.done, 0u);

  // A killed run: only a partial file, cut mid-line; it is continued from its one complete
  // evaluation, never taken as finished.
  const std::string path = runs[1].trace_path;
  const auto complete = untimed(path);
  {
    std::ifstream in(path);
    std::string l1, l2, l3;
    std::getline(in, l1), std::getline(in, l2), std::getline(in, l3);
    std::ofstream partial(ex::temporary_path(path));
    partial << l1 << "\n" << l2 << "\n" << l3.substr(0, l3.size() / 2);
  }
  fs::remove(path);
  EXPECT_FALSE(ex::is_finished(runs[1]));
  const auto resumed = ex::run_sweep(spec, dir.string(), with_jobs(1));
  EXPECT_EQ(resumed.progress.skipped, 3u);
  EXPECT_EQ(resumed.progress.done, 1u);
  EXPECT_FALSE(fs::exists(ex::temporary_path(path)));
  auto continued = untimed(path);
  EXPECT_EQ(continued.front().at("meta").at("run").at("resumed_after"), json::array({1}));
  continued.front().at("meta").at("run").erase("resumed_after");
  EXPECT_EQ(continued, complete);

  // Other settings in the same folder are refused, naming the file and the field.
  ex::SweepSpec longer = spec;
  longer.problems[0].budget = 9;
  const auto plan = ex::plan_runs(longer, dir.string());
  const std::string msg = error_of([&] { ex::is_finished(plan[0]); });
  EXPECT_NE(msg.find("budget 8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("seed-0.jsonl"), std::string::npos) << msg;
}

// An algorithm with "batch": q asks q points at a time, as `optimist run --batch q` does (the
// cost of K parallel workers per evaluation, docs/robust.md); its default label says so, a peer
// cannot take it, and a folder's traces of another batch size are refused, not reused.
TEST(ExperimentRunner, ABatchedAlgorithmRunsAsRunWithBatchDoes) {
  const json config = {{"seeds", 1},
                       {"algorithms", {"gp-ei", {{"name", "gp-ei"}, {"batch", 4}}}},
                       {"problems", {{{"name", "branin"}, {"budget", 12}}}}};
  const ex::SweepSpec spec = ex::parse_sweep(config, "b.json");
  ASSERT_EQ(spec.algorithms.size(), 2u);
  EXPECT_EQ(spec.algorithms[1].label, "gp-ei-q4");
  EXPECT_EQ(spec.algorithms[1].batch, 4u);
  EXPECT_EQ(ex::parse_sweep(spec.to_json(), "sweep.json").algorithms[1].batch, 4u);
  EXPECT_NO_THROW(ex::check_available(spec));  // not the same runs as gp-ei's
  json same = config;
  same["algorithms"][0] = {{"name", "gp-ei"}, {"batch", 4}, {"label", "first"}};
  EXPECT_NE(error_of([&] { ex::check_available(ex::parse_sweep(same, "b.json")); }).find("the same algorithm, options and batch size"),
            std::string::npos);
  const fs::path dir = fresh_dir();
  ASSERT_EQ(ex::run_sweep(spec, dir.string(), with_jobs(2)).progress.done, 2u);
  const auto runs = ex::plan_runs(spec, dir.string());
  const optimist::Trace one = optimist::read_trace(runs[0].trace_path), four = optimist::read_trace(runs[1].trace_path);
  EXPECT_EQ(one.meta.run.at("batch"), 1);
  EXPECT_EQ(four.meta.run.at("batch"), 4);
  // The same run through the driver with batch_size 4: the same points.
  const optimist::Problem problem = optimist::make_problem("branin", 0);
  optimist::RunOptions driver;
  driver.budget = 12;
  driver.batch_size = 4;
  const ex::PreparedRun prepared = ex::prepare_run(problem, ex::run_spec(spec.algorithms[1], spec.problems[0], 0), driver);
  const optimist::RunSummary direct = optimist::optimize(*prepared.optimizer, prepared.objective, driver);
  ASSERT_EQ(four.evaluations.size(), 12u);
  bool differs_from_sequential = false;
  for (std::size_t i = 0; i < 12; ++i) {
    const optimist::Vector x = direct.evaluations[i].x;  // the log hands out copies
    EXPECT_EQ(four.evaluations[i].at("x"), json(std::vector<double>(x.begin(), x.end()))) << i;
    differs_from_sequential |= four.evaluations[i].at("x") != one.evaluations[i].at("x");
  }
  EXPECT_TRUE(differs_from_sequential);  // the batch is not ignored
  // Refused: a peer with a batch, a batch of 0; the folder's q = 4 traces for a q = 2 sweep.
  json peer = config;
  peer["algorithms"][1] = {{"name", "tpe"}, {"peer", "optuna"}, {"batch", 2}};
  EXPECT_NE(error_of([&] { ex::parse_sweep(peer, "b.json"); }).find("'algorithms[1].batch' in b.json must be absent for a peer"),
            std::string::npos);
  json zero = config;
  zero["algorithms"][1]["batch"] = 0;
  EXPECT_NE(error_of([&] { ex::parse_sweep(zero, "b.json"); }).find("'algorithms[1].batch' in b.json must be a positive integer, got 0"),
            std::string::npos);
  json two = config;
  two["algorithms"][1]["batch"] = 2;
  two["algorithms"][1]["label"] = "gp-ei-q4";
  const ex::SweepSpec two_spec = ex::parse_sweep(two, "b.json");  // the plan points into it
  const auto plan = ex::plan_runs(two_spec, dir.string());
  const std::string msg = error_of([&] { ex::is_finished(plan[1]); });
  EXPECT_NE(msg.find("batch 4, but the sweep asks for 2"), std::string::npos) << msg;
}

TEST(ExperimentRunner, CancelledRunKeepsItsEvaluationsForTheNextSweep) {
  const fs::path root = fresh_dir(), dir = root / "sweep", uninterrupted = root / "uninterrupted";
  ex::SweepSpec spec = tiny_sweep(1);
  spec.algorithms.resize(1);  // random search alone: one run
  int polls = 0;
  // Polled once by the worker before the run, then before every ask: stop at the 4th ask.
  const auto out = ex::run_sweep(spec, dir.string(), with_jobs(1, [&] { return ++polls > 4; }));
  EXPECT_TRUE(out.cancelled);
  const ex::SweepRun run = ex::plan_runs(spec, dir.string())[0];
  EXPECT_FALSE(fs::exists(run.trace_path));
  ASSERT_TRUE(fs::exists(ex::temporary_path(run.trace_path)));
  EXPECT_EQ(optimist::read_trace(ex::temporary_path(run.trace_path)).evaluations.size(), 3u);

  // The next sweep continues it: the 3 paid evaluations are kept, and the trace is the one an
  // uninterrupted sweep writes.
  const auto again = ex::run_sweep(spec, dir.string(), with_jobs(1));
  EXPECT_EQ(again.progress.done, 1u);
  EXPECT_FALSE(fs::exists(ex::temporary_path(run.trace_path)));
  ex::run_sweep(spec, uninterrupted.string(), with_jobs(1));
  auto continued = untimed(run.trace_path);
  EXPECT_EQ(continued.front().at("meta").at("run").at("resumed_after"), json::array({3}));
  continued.front().at("meta").at("run").erase("resumed_after");
  EXPECT_EQ(continued, untimed(ex::plan_runs(spec, uninterrupted.string())[0].trace_path));

  // A partial trace of other settings is not continued but overwritten.
  ex::SweepSpec other = spec;
  other.problems[0].budget = 5;
  const fs::path odir = root / "other";
  const ex::SweepRun orun = ex::plan_runs(other, odir.string())[0];
  fs::create_directories(fs::path(orun.trace_path).parent_path());
  fs::copy_file(run.trace_path, ex::temporary_path(orun.trace_path));
  ex::run_sweep(other, odir.string(), with_jobs(1));
  const auto fresh = optimist::read_trace(orun.trace_path);
  EXPECT_EQ(fresh.evaluations.size(), 5u);
  EXPECT_FALSE(fresh.meta.run.contains("resumed_after"));
}

// A run whose objective failed is an error of the sweep, not a result: it was renamed as finished,
// never retried, and its regret (summed over fewer evaluations) entered the means, the paired
// intervals and the ranks, better the earlier it failed (stop 68's probe). Its partial trace is
// kept and a rerun continues it. The objective: a fake HPO worker that fails its 4th request.
TEST(ExperimentRunner, ARunWhoseObjectiveFailedIsAnErrorAndIsContinuedNextTime) {
  const fs::path root = fresh_dir(), data = root / "data", dir = root / "sweep";
  fs::create_directories(data);
  std::ofstream(data / "breast-cancer.dat") << "placeholder: the fake worker reads nothing\n";
  std::ofstream(root / "worker.py") << "import json, math, os, sys\n"
                                      "fail_at = int(os.environ.get('FAKE_FAIL_AT', '0'))\n"
                                      "n = 0\n"
                                      "for line in sys.stdin:\n"
                                      "    n += 1\n"
                                      "    p = json.loads(line)['params']\n"
                                      "    if n == fail_at:\n"
                                      "        print(json.dumps({'error': 'the worker lost its GPU'}), flush=True)\n"
                                      "        continue\n"
                                      "    v = sum(math.sin(float(x)) for x in p.values() if isinstance(x, (int, float)))\n"
                                      "    print(json.dumps({'y': 0.9 + 0.01 * v}), flush=True)\n";
  fs::permissions(root / "worker.py", fs::perms::owner_all);
  const optimist::testing::ScopedEnv datasets("OPTIMIST_DATASETS", data.c_str());
  const optimist::testing::ScopedEnv worker("OPTIMIST_HPO_WORKER", (root / "worker.py").c_str());
  const ex::SweepSpec spec = ex::parse_sweep({{"name", "failing"},
                                              {"seeds", 1},
                                              {"algorithms", {"random"}},
                                              {"problems", {{{"name", "hpo_rf_breast_cancer"}, {"budget", 8}}}}},
                                             "test");
  const ex::SweepRun run = ex::plan_runs(spec, dir.string())[0];
  {
    const optimist::testing::ScopedEnv fail("FAKE_FAIL_AT", "4");
    const auto out = ex::run_sweep(spec, dir.string(), with_jobs(1));
    ASSERT_EQ(out.errors.size(), 1u);
    EXPECT_NE(out.errors[0].find("the objective failed after 4 evaluations"), std::string::npos) << out.errors[0];
    EXPECT_NE(out.errors[0].find("the worker lost its GPU"), std::string::npos) << out.errors[0];
    EXPECT_FALSE(fs::exists(run.trace_path));
    ASSERT_TRUE(fs::exists(ex::temporary_path(run.trace_path)));
    EXPECT_FALSE(ex::is_finished(run));
  }
  // The failure gone, the rerun continues the partial trace to the budget.
  const auto again = ex::run_sweep(spec, dir.string(), with_jobs(1));
  EXPECT_TRUE(again.errors.empty());
  const auto trace = optimist::read_trace(run.trace_path);
  EXPECT_EQ(trace.evaluations.size(), 8u);
  EXPECT_EQ(trace.recommend->value("stop_reason", ""), "budget");
  EXPECT_TRUE(trace.meta.run.contains("resumed_after"));
}

TEST(ExperimentRunner, ParallelRunsEqualSequentialOnes) {
  const fs::path a = fresh_dir() / "a", b = a.parent_path() / "b";
  const auto spec = ex::parse_sweep({{"seeds", 3},
                                     {"algorithms", {"random", {{"name", "sequool"}}, "gp-ei"}},
                                     {"problems", {{{"name", "branin"}, {"budget", 6}, {"noise", 0.2}}}}},
                                    "t");
  ex::run_sweep(spec, a.string(), with_jobs(1));
  ex::run_sweep(spec, b.string(), with_jobs(3));
  for (const auto& r : ex::plan_runs(spec, a.string())) {
    const std::string other = (b / fs::relative(r.trace_path, a)).string();
    EXPECT_EQ(untimed(r.trace_path), untimed(other)) << r.trace_path;
  }
  // Algorithms that plan with the horizon got the budget, as `optimist run` passes it.
  EXPECT_EQ(optimist::read_trace((a / "traces/branin/sequool/seed-0.jsonl").string()).meta.horizon, 6u);
}

// A finished trace written before RunContext (seed and horizon among its options, no meta horizon)
// counts as finished when its settings are the sweep's, and as another run's when they are not.
TEST(ExperimentRunner, TracesWrittenBeforeRunContextStillCount) {
  const fs::path dir = fresh_dir();
  const auto spec = ex::parse_sweep({{"algorithms", {"sequool"}}, {"problems", {{{"name", "branin"}, {"budget", 6}}}}}, "t");
  ex::run_sweep(spec, dir.string(), with_jobs(1));
  const ex::SweepRun run = ex::plan_runs(spec, dir.string()).front();
  const auto rewrite_meta = [&](std::size_t budget_option) {
    std::vector<json> lines;
    std::ifstream in(run.trace_path);
    for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
    json& meta = lines.front().at("meta");
    meta.erase("horizon");
    meta.at("options")["seed"] = 0;
    meta.at("options")["budget"] = budget_option;
    std::ofstream out(run.trace_path, std::ios::trunc);
    for (const auto& l : lines) out << l.dump() << "\n";
  };
  rewrite_meta(6);
  EXPECT_TRUE(ex::is_finished(run));
  EXPECT_EQ(ex::run_sweep(spec, dir.string(), with_jobs(1)).progress.skipped, spec.run_count());
  rewrite_meta(5);  // planned for another horizon: not this sweep's run
  EXPECT_NE(error_of([&] { ex::is_finished(run); }).find("horizon 5, but the sweep asks for 6"), std::string::npos);
}

TEST(ExperimentSummary, NumbersComeFromTheTraces) {
  const fs::path dir = fresh_dir();
  const ex::SweepSpec spec = tiny_sweep();
  ex::run_sweep(spec, dir.string(), with_jobs(2));
  const json s = ex::write_summary(spec, dir.string());
  EXPECT_EQ(json::parse(std::ifstream(dir / "summary.json")), s);
  EXPECT_NE(std::ifstream(dir / "summary.md").peek(), EOF);
  ASSERT_EQ(s.at("problems").size(), 1u);
  const json& p = s.at("problems")[0];
  EXPECT_EQ(p.at("f_star_source"), "known");
  std::vector<std::vector<double>> cum_of(2);
  for (std::size_t a = 0; a < 2; ++a) {
    const json& alg = p.at("algorithms")[a];
    std::vector<double>& cum = cum_of[a];
    std::vector<double> simple, suggest;
    for (std::size_t seed = 0; seed < 2; ++seed) {
      const auto t = optimist::read_trace((dir / "traces/branin" / spec.algorithms[a].label /
                                           ("seed-" + std::to_string(seed) + ".jsonl")).string());
      cum.push_back(t.evaluations.back().at("cum_regret").get<double>());
      simple.push_back(t.recommend->at("simple_regret").get<double>());
      for (const auto& e : t.evaluations) suggest.push_back(e.at("suggest_s").get<double>() + e.at("tell_s").get<double>());
    }
    const auto w = ex::mean_interval(cum, 0.95, ex::IntervalKind::StudentT);
    EXPECT_NEAR(alg.at("cum_regret").at("mean").get<double>(), (cum[0] + cum[1]) / 2, 1e-9);
    // Two seeds: Student's t with one degree of freedom, 12.706 (scipy.stats.t.ppf(0.975, 1)).
    EXPECT_NEAR(alg.at("cum_regret").at("half_width").get<double>(), 12.706204736174698 * std::abs(cum[0] - cum[1]) / std::sqrt(2.0) / std::sqrt(2.0), 1e-6);
    EXPECT_NEAR(alg.at("metric").at("mean").get<double>(), w.mean, 1e-9);
    EXPECT_NEAR(alg.at("recommend_simple_regret").at("mean").get<double>(), (simple[0] + simple[1]) / 2, 1e-9);
    EXPECT_DOUBLE_EQ(alg.at("median_suggest_s").get<double>(), ex::median(suggest));
    const json& curve = alg.at("curves").at("cum_regret");
    ASSERT_EQ(curve.at("mean").size(), 8u);
    EXPECT_NEAR(curve.at("mean")[7].get<double>(), w.mean, 1e-9);
    EXPECT_EQ(alg.at("curves").at("t")[7], 8);
  }
  // The second algorithm paired by seed with the first: mean and sign count of the differences.
  const json& paired = p.at("algorithms")[1].at("paired");
  EXPECT_EQ(paired.at("reference"), spec.algorithms[0].label);
  const double d0 = cum_of[1][0] - cum_of[0][0], d1 = cum_of[1][1] - cum_of[0][1];
  EXPECT_EQ(paired.at("difference").at("n"), 2);
  EXPECT_NEAR(paired.at("difference").at("mean").get<double>(), (d0 + d1) / 2, 1e-9);
  EXPECT_EQ(paired.at("lower").get<int>(), (d0 < 0) + (d1 < 0));
  EXPECT_FALSE(p.at("algorithms")[0].contains("paired"));
  EXPECT_NE(ex::summary_markdown(s).find("Paired by seed"), std::string::npos);
}

TEST(ExperimentSummary, UnknownOptimumIsTheBestValueSeenInTheSweep) {
  const fs::path dir = fresh_dir();
  const ex::SweepSpec spec = tiny_sweep();
  ex::run_sweep(spec, dir.string(), with_jobs(2));
  // Make every trace look like a problem without f* (as the hpo_* tasks are).
  double best = std::numeric_limits<double>::infinity();  // branin is minimized
  for (const auto& r : ex::plan_runs(spec, dir.string())) {
    std::ifstream in(r.trace_path);
    std::vector<json> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
    lines[0]["meta"]["f_star"] = nullptr;
    for (auto& l : lines)
      if (l.contains("i")) best = std::min(best, l.at("f").get<double>());
    std::ofstream outf(r.trace_path, std::ios::trunc);
    for (const auto& l : lines) outf << l.dump() << "\n";
  }
  const json s = ex::summarize(spec, dir.string());
  const json& p = s.at("problems")[0];
  EXPECT_EQ(p.at("f_star_source"), "best observed in sweep");
  EXPECT_DOUBLE_EQ(p.at("f_star").get<double>(), best);
  EXPECT_NE(ex::summary_markdown(s).find("best value observed"), std::string::npos);
  double min_simple = 1e300;
  for (const auto& a : p.at("algorithms"))
    min_simple = std::min(min_simple, a.at("curves").at("simple_regret").at("mean").back().get<double>());
  EXPECT_GE(min_simple, 0.0);
}

// One task at several budgets shares its unknown f* (the best value seen at any budget); the
// across-problems ranks average the per-problem ranks of the mean metric.
TEST(ExperimentSummary, BudgetsShareTheUnknownOptimumAndRanksAverageOverProblems) {
  const fs::path dir = fresh_dir();
  const auto spec = ex::parse_sweep({{"name", "two-budgets"},
                                     {"seeds", 2},
                                     {"metric", "simple_regret"},
                                     {"algorithms", {"random", "sobol"}},
                                     {"problems", {{{"name", "branin"}, {"budget", {4, 12}}}}}},
                                    "t");
  ex::run_sweep(spec, dir.string(), with_jobs(2));
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : ex::plan_runs(spec, dir.string())) {
    std::ifstream in(r.trace_path);
    std::vector<json> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
    lines[0]["meta"]["f_star"] = nullptr;
    for (auto& l : lines)
      if (l.contains("i")) best = std::min(best, l.at("f").get<double>());
    std::ofstream outf(r.trace_path, std::ios::trunc);
    for (const auto& l : lines) outf << l.dump() << "\n";
  }
  const json s = ex::summarize(spec, dir.string());
  ASSERT_EQ(s.at("problems").size(), 2u);
  std::vector<std::vector<double>> mean(2, std::vector<double>(2));
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(s.at("problems")[i].at("f_star").get<double>(), best);  // the T = 12 runs' best, for T = 4 too
    for (std::size_t a = 0; a < 2; ++a)
      mean[i][a] = s.at("problems")[i].at("algorithms")[a].at("metric").at("mean").get<double>();
  }
  const json& across = s.at("across_problems");
  EXPECT_EQ(across.at("ranked_problems"), 2);
  for (std::size_t a = 0; a < 2; ++a) {
    double rank = 0.0;
    for (std::size_t i = 0; i < 2; ++i)
      rank += mean[i][a] < mean[i][1 - a] ? 1.0 : mean[i][a] > mean[i][1 - a] ? 2.0 : 1.5;
    EXPECT_DOUBLE_EQ(across.at("algorithms")[a].at("mean_rank").get<double>(), rank / 2.0);
  }
  EXPECT_NE(ex::summary_markdown(s).find("## Across problems"), std::string::npos);
}

TEST(ExperimentSummary, AveragePhase2RegretIsTheMeanRegretAfterPhaseOne) {
  const fs::path dir = fresh_dir();
  const auto spec = ex::parse_sweep({{"seeds", 1},
                                     {"metric", "average_phase2_regret"},
                                     {"phase1", 3},
                                     {"algorithms", {"random"}},
                                     {"problems", {{{"name", "sine_1d"}, {"budget", 7}}}}},
                                    "t");
  ex::run_sweep(spec, dir.string(), with_jobs(1));
  const auto t = optimist::read_trace((dir / "traces/sine_1d/random/seed-0.jsonl").string());
  double sum = 0;
  for (std::size_t i = 3; i < 7; ++i) sum += t.evaluations[i].at("regret").get<double>();
  const json alg = ex::summarize(spec, dir.string()).at("problems")[0].at("algorithms")[0];
  EXPECT_NEAR(alg.at("metric").at("mean").get<double>(), sum / 4, 1e-12);
  EXPECT_TRUE(alg.at("curves").at("metric").at("mean")[2].is_null());  // t = 3: still Phase I
}

}  // namespace

// A problem's default dimension is its dimension: "branin" and "branin" with dim 2 are one task
// (their labels no longer say "-d0", and they share an unknown f*). The sweep.json written from a
// spec is a config again, peers included; seeds Optuna's peers cannot take are refused up front.
TEST(ExperimentSweep, DefaultDimensionsResolveAndTheWrittenSweepParsesAgain) {
  const json config = {{"name", "dims"},
                       {"seeds", 1},
                       {"algorithms", {"random", {{"name", "tpe"}, {"peer", "optuna"}}}},
                       {"problems", {{{"name", "branin"}, {"budget", 4}}, {{"name", "branin"}, {"dim", 2}, {"budget", 12}}}}};
  const ex::SweepSpec spec = ex::parse_sweep(config, "t");
  ASSERT_EQ(spec.problems.size(), 2u);
  EXPECT_EQ(spec.problems[0].dim, 2u);
  EXPECT_EQ(spec.problems[0].label, "branin-T4");
  EXPECT_EQ(spec.problems[1].label, "branin-T12");
  const ex::SweepSpec again = ex::parse_sweep(spec.to_json(), "sweep.json");
  EXPECT_EQ(again.to_json(), spec.to_json());
  json far = config;
  far["first_seed"] = 4294967295ull;
  far["seeds"] = 2;
  EXPECT_NE(error_of([&] { ex::parse_sweep(far, "t"); }).find("'first_seed' 4294967295 with 2 seeds"), std::string::npos);
  far["algorithms"] = {"random"};
  EXPECT_NO_THROW(ex::parse_sweep(far, "t"));  // our algorithms take 64-bit seeds
}

namespace {

// Rewrites every trace of `label` in a finished sweep: f* 0 and these noise-free values.
void set_values(const ex::SweepSpec& spec, const fs::path& dir, const std::string& label, const std::vector<double>& f) {
  for (const auto& r : ex::plan_runs(spec, dir.string())) {
    if (r.algorithm->label != label) continue;
    std::ifstream in(r.trace_path);
    std::vector<json> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
    in.close();
    lines[0]["meta"]["f_star"] = 0.0;
    for (auto& l : lines)
      if (l.contains("i")) l["f"] = f.at(l.at("i").get<std::size_t>() - 1);
    std::ofstream out(r.trace_path, std::ios::trunc);
    for (const auto& l : lines) out << l.dump() << "\n";
  }
}

}  // namespace

// Metric values equal but for round-off are a tie: 0.1 + 0.2 + 0.3 summed in two orders gives
// 0.6000000000000001 and 0.6, which ranked 1 and 2 and counted as "lower" before.
// Results are tied to the code that made them: every trace records the build's git revision, and
// the summary the revisions of its runs, marked when they are mixed (a folder half-run before an
// upgrade; stop 68's probe found nothing said which build a number came from).
TEST(ExperimentSummary, TheRevisionsOfTheRunsAreRecorded) {
  const fs::path dir = fresh_dir();
  const ex::SweepSpec spec = tiny_sweep(1);
  ex::run_sweep(spec, dir.string(), with_jobs(1));
  const auto runs = ex::plan_runs(spec, dir.string());
  EXPECT_EQ(optimist::read_trace(runs[0].trace_path).meta.revision, optimist::revision());
  json summary = ex::summarize(spec, dir.string());
  EXPECT_EQ(summary.at("optimist").at("revision"), optimist::revision());
  EXPECT_EQ(summary.at("trace_revisions"), json({{optimist::revision(), runs.size()}}));
  // One trace of another build: both are listed, and the Markdown says they are mixed.
  std::ifstream in(runs[0].trace_path);
  std::string first, rest, line;
  std::getline(in, first);
  while (std::getline(in, line)) rest += line + "\n";
  in.close();
  json meta = json::parse(first);
  meta.at("meta")["revision"] = "0123456789ab";
  std::ofstream(runs[0].trace_path, std::ios::trunc) << meta.dump() << "\n" << rest;
  summary = ex::summarize(spec, dir.string());
  EXPECT_EQ(summary.at("trace_revisions").size(), 2u);
  EXPECT_EQ(summary.at("trace_revisions").at("0123456789ab"), 1);
  EXPECT_NE(ex::summary_markdown(summary).find("(mixed: delete the traces of the others"), std::string::npos);
}

TEST(ExperimentSummary, RoundOffIsATie) {
  const fs::path dir = fresh_dir();
  const auto spec = ex::parse_sweep({{"name", "ties"}, {"seeds", 2}, {"algorithms", {"random", "sobol"}},
                                     {"problems", {{{"name", "branin"}, {"budget", 3}}}}},
                                    "t");
  ex::run_sweep(spec, dir.string(), with_jobs(1));
  set_values(spec, dir, "random", {0.1, 0.2, 0.3});
  set_values(spec, dir, "sobol", {0.3, 0.2, 0.1});
  const json s = ex::summarize(spec, dir.string());
  const json& algs = s.at("problems")[0].at("algorithms");
  ASSERT_NE(algs[0].at("metric").at("mean"), algs[1].at("metric").at("mean"));  // the round-off is there
  EXPECT_EQ(algs[1].at("paired").at("lower"), 0);
  EXPECT_EQ(algs[1].at("paired").at("difference").at("mean"), 0.0);
  for (const auto& row : s.at("across_problems").at("algorithms")) {
    EXPECT_EQ(row.at("mean_rank"), 1.5) << row.dump();
    EXPECT_EQ(row.at("significantly_better"), 0) << row.dump();
  }
}

// A problem without a finished run is listed with its own dimension, direction and f*, and each
// algorithm with 0 of K runs (it said d = 0, f* n/a, with no rows); a problem where some algorithm
// has not finished every seed is not ranked (its means would be over other seeds).
TEST(ExperimentSummary, UnfinishedProblemsAreDescribedAndNotRanked) {
  const fs::path dir = fresh_dir();
  const auto spec = ex::parse_sweep({{"name", "part"}, {"seeds", 2}, {"algorithms", {"random", "sobol"}},
                                     {"problems", {{{"name", "branin"}, {"budget", 4}}, {{"name", "hartmann6"}, {"budget", 4}}}}},
                                    "t");
  ex::run_sweep(spec, dir.string(), with_jobs(1));
  for (const auto& r : ex::plan_runs(spec, dir.string()))
    if (r.problem->label == "hartmann6" || (r.algorithm->label == "sobol" && r.seed == 1)) fs::remove(r.trace_path);
  const json s = ex::summarize(spec, dir.string());
  const json& h = s.at("problems")[1];
  EXPECT_EQ(h.at("dim"), 6);
  EXPECT_EQ(h.at("direction"), "minimize");
  EXPECT_NEAR(h.at("f_star").get<double>(), -3.32237, 1e-5);
  ASSERT_EQ(h.at("algorithms").size(), 2u);
  EXPECT_EQ(h.at("algorithms")[0].at("finished"), 0);
  EXPECT_EQ(s.at("problems")[0].at("algorithms")[1].at("finished"), 1);
  EXPECT_EQ(s.at("across_problems").at("ranked_problems"), 0);
  EXPECT_NE(ex::summary_markdown(s).find("`hartmann6`, d = 6"), std::string::npos);
}

// A terminal's Ctrl-C reaches a peer's process too: a peer that fails once the sweep is stopping
// was stopped, not failed, and leaves no files.
TEST(ExperimentRunner, APeerCutShortByTheStopIsNotAFailure) {
  const fs::path dir = fresh_dir();
  const auto spec = ex::parse_sweep({{"name", "peer"}, {"seeds", 1}, {"algorithms", {{{"name", "tpe"}, {"peer", "optuna"}}}},
                                     {"problems", {{{"name", "branin"}, {"budget", 4}}}}},
                                    "t");
  const auto runs = ex::plan_runs(spec, dir.string());
  const ex::PeerRunner interrupted = [](const ex::SweepRun&, const std::string& path) {
    std::ofstream(path + ".tmp") << "{\"meta\":{}}\n";
    throw std::runtime_error("optuna_peers.py failed (exit status 130)");
  };
  EXPECT_FALSE(ex::execute_peer_run(runs[0], interrupted, [] { return true; }));
  EXPECT_FALSE(fs::exists(ex::temporary_path(runs[0].trace_path) + ".tmp"));
  EXPECT_THROW(ex::execute_peer_run(runs[0], interrupted, [] { return false; }), std::runtime_error);
}
