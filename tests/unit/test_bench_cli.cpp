// End-to-end tests of `optimist bench` and `optimist plot`.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "temp_test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

fs::path test_dir() { return optimist::testing::test_dir("optimist_bench_cli"); }

Result cli(const std::string& args) {
  const fs::path dir = test_dir();
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "cd '" + dir.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' " + args + " > '" +
                          out.string() + "' 2> '" + err.string() + "' < /dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::vector<json> untimed(const fs::path& path) {
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

bool have_matplotlib() { return std::system("/usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1") == 0; }

TEST(BenchCli, TraceEqualsOptimistRunWithTheSameSeed) {
  const fs::path dir = test_dir();
  // TOML config; sequool plans with the horizon (gets the budget), random does not.
  write(dir / "sweep.toml",
        "name = \"same\"\nseeds = 2\nfirst_seed = 3\nbudget = 12\n"
        "algorithms = [\"random\", { name = \"sequool\", options = { children = 3 } }]\n"
        "[[problems]]\nname = \"branin\"\nnoise = 0.1\n");
  const Result b = cli("bench --config sweep.toml --out out --jobs 2 --no-plot");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_NE(b.err.find("4/4 runs"), std::string::npos) << b.err;
  for (const std::string alg : {"random", "sequool"}) {
    const std::string set = alg == "sequool" ? " --set children=3" : "";
    const Result r = cli("run --problem branin --algorithm " + alg + " --budget 12 --seed 4 --noise 0.1 -q --out r-" +
                         alg + ".jsonl" + set);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(untimed(dir / ("r-" + alg + ".jsonl")), untimed(dir / "out/traces/branin" / alg / "seed-4.jsonl")) << alg;
  }
  EXPECT_TRUE(fs::exists(dir / "out/summary.json"));
  EXPECT_TRUE(fs::exists(dir / "out/summary.md"));
  const Result again = cli("bench --config sweep.toml --out out --no-plot");
  EXPECT_EQ(again.code, 0);
  EXPECT_NE(again.err.find("4 already done"), std::string::npos) << again.err;
  // A finished trace that lost a line since: named, not summarized from 11 evaluations.
  const fs::path damaged = dir / "out/traces/branin/random/seed-3.jsonl";
  std::vector<std::string> lines;
  {
    std::ifstream in(damaged);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  {
    std::ofstream out(damaged);
    for (std::size_t k = 0; k < lines.size(); ++k)
      if (k != 3) out << lines[k] << "\n";
  }
  const Result damaged_run = cli("bench --config sweep.toml --out out --no-plot");
  EXPECT_EQ(damaged_run.code, 2);
  EXPECT_NE(damaged_run.err.find("seed-3.jsonl' is damaged"), std::string::npos) << damaged_run.err;
}

TEST(BenchCli, AnotherSweepIsNotWrittenIntoAFolderThatHoldsOne) {
  const fs::path dir = test_dir();
  write(dir / "a.json", R"({"name": "first", "seeds": 1, "budget": 5, "algorithms": ["random"], "problems": ["branin"]})");
  write(dir / "b.json", R"({"name": "second", "seeds": 1, "budget": 5, "algorithms": ["random"], "problems": ["branin"]})");
  ASSERT_EQ(cli("bench --config a.json --out out --no-plot -q").code, 0);
  const std::string sweep = slurp(dir / "out/sweep.json"), summary = slurp(dir / "out/summary.json");
  const Result other = cli("bench --config b.json --out out --no-plot -q");
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("holds the sweep 'first'"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("'second' to another --out folder"), std::string::npos) << other.err;
  EXPECT_EQ(slurp(dir / "out/sweep.json"), sweep);
  EXPECT_EQ(slurp(dir / "out/summary.json"), summary);
  // The same sweep with a changed budget is refused by its traces, and keeps its sweep.json too.
  write(dir / "a9.json", R"({"name": "first", "seeds": 1, "budget": 9, "algorithms": ["random"], "problems": ["branin"]})");
  const Result changed = cli("bench --config a9.json --out out --no-plot -q");
  EXPECT_EQ(changed.code, 2);
  EXPECT_NE(changed.err.find("budget 5, but the sweep asks for 9"), std::string::npos) << changed.err;
  EXPECT_EQ(slurp(dir / "out/sweep.json"), sweep);
  // A changed noise level is named as written, not with 17 digits.
  write(dir / "n.json", R"({"name": "noisy", "seeds": 1, "budget": 5, "noise": 0.1, "algorithms": ["random"], "problems": ["branin"]})");
  ASSERT_EQ(cli("bench --config n.json --out noisy --no-plot -q").code, 0);
  write(dir / "n3.json", R"({"name": "noisy", "seeds": 1, "budget": 5, "noise": 0.3, "algorithms": ["random"], "problems": ["branin"]})");
  const Result noise = cli("bench --config n3.json --out noisy --no-plot -q");
  EXPECT_EQ(noise.code, 2);
  EXPECT_NE(noise.err.find("noise 0.1, but the sweep asks for 0.3"), std::string::npos) << noise.err;
  // The same sweep with more seeds continues it.
  const Result more = cli("bench --config a.json --seeds 2 --out out --no-plot -q");
  EXPECT_EQ(more.code, 0) << more.err;
  EXPECT_NE(slurp(dir / "out/sweep.json").find("\"seeds\": 2"), std::string::npos);
  write(dir / "out/sweep.json", "{not json");
  const Result broken = cli("bench --config a.json --out out --no-plot -q");
  EXPECT_EQ(broken.code, 2);
  EXPECT_NE(broken.err.find("is not a sweep file"), std::string::npos) << broken.err;
  // Two unnamed sweeps (both "custom") into one folder: the second replaced the first's
  // sweep.json and summary, its traces left out of both. A sweep may add to a folder, not leave out.
  write(dir / "u1.json", R"({"seeds": 1, "budget": 5, "algorithms": ["random"], "problems": ["branin"]})");
  write(dir / "u2.json", R"({"seeds": 1, "budget": 5, "algorithms": ["random"], "problems": ["hartmann6"]})");
  write(dir / "u3.json", R"({"seeds": 1, "budget": 5, "algorithms": ["random", "sobol"], "problems": ["branin", "hartmann6"]})");
  ASSERT_EQ(cli("bench --config u1.json --out unnamed --no-plot -q").code, 0);
  const Result unrelated = cli("bench --config u2.json --out unnamed --no-plot -q");
  EXPECT_EQ(unrelated.code, 2);
  EXPECT_NE(unrelated.err.find("with problems 'branin' that this one leaves out"), std::string::npos) << unrelated.err;
  const Result added = cli("bench --config u3.json --out unnamed --no-plot -q");
  EXPECT_EQ(added.code, 0) << added.err;
  EXPECT_NE(slurp(dir / "unnamed/summary.md").find("## branin"), std::string::npos);
  EXPECT_NE(slurp(dir / "unnamed/summary.md").find("## hartmann6"), std::string::npos);
}

TEST(BenchCli, ASecondInstanceAddedToASweepKeepsTheFirstOnesFolder) {
  const fs::path dir = test_dir();
  write(dir / "a.json", R"({"name": "s", "seeds": 2, "budget": 5, "algorithms": ["random"], "problems": ["branin"]})");
  ASSERT_EQ(cli("bench --config a.json --out out --no-plot -q").code, 0);
  // A second instance of branin: default labels would now be branin-noise0 and branin-noise1.
  write(dir / "b.json", R"({"name": "s", "seeds": 2, "budget": 5, "algorithms": ["random"],
                            "problems": ["branin", {"name": "branin", "noise": 1}]})");
  const Result more = cli("bench --config b.json --out out --no-plot");
  ASSERT_EQ(more.code, 0) << more.err;
  EXPECT_NE(more.err.find("4/4 runs (2 already done)"), std::string::npos) << more.err;
  EXPECT_TRUE(fs::exists(dir / "out/traces/branin/random/seed-1.jsonl"));
  EXPECT_TRUE(fs::exists(dir / "out/traces/branin-noise1/random/seed-1.jsonl"));
  EXPECT_FALSE(fs::exists(dir / "out/traces/branin-noise0"));
  const json sweep = json::parse(slurp(dir / "out/sweep.json"));
  EXPECT_EQ(sweep["problems"][0]["label"], "branin");
  EXPECT_NE(slurp(dir / "out/summary.md").find("branin-noise1"), std::string::npos);
  // In a new folder the same config labels both instances.
  ASSERT_EQ(cli("bench --config b.json --out fresh --no-plot -q").code, 0);
  EXPECT_TRUE(fs::exists(dir / "fresh/traces/branin-noise0/random/seed-0.jsonl"));
}

TEST(BenchCli, RunsThatUsedUpTheirSpaceAreNotedInTheSummary) {
  const fs::path dir = test_dir();
  // cat_pair has 20 points: a budget of 25 ends every run at 20 evaluations.
  write(dir / "s.json", R"({"name": "s", "seeds": 2, "budget": 25, "algorithms": ["random"], "problems": ["cat_pair"]})");
  const Result r = cli("bench --config s.json --out out --no-plot -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(slurp(dir / "out/summary.json"));
  const json& random = summary["problems"][0]["algorithms"][0];
  EXPECT_EQ(random["stopped_early"], 2);
  EXPECT_EQ(random["stopped_early_reasons"], json::array({"space exhausted"}));
  EXPECT_NE(slurp(dir / "out/summary.md").find("| random | 2/2 (2 stopped before T: space exhausted) |"), std::string::npos)
      << slurp(dir / "out/summary.md");
}

TEST(BenchCli, MissingAlgorithmFailsNamingIt) {
  const fs::path dir = test_dir();
  write(dir / "s.json", R"({"budget": 5, "algorithms": ["random", "no-such-algo"], "problems": ["branin"]})");
  const Result r = cli("bench --config s.json --out out");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no-such-algo"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/traces"));
}

// A budget exploration-first cannot plan with (1), or one beyond memory (1e10), failed inside every
// run with exit 1 after the sweep had started; `optimist run` refuses both before its first evaluation.
TEST(BenchCli, RunsThatOptimistRunWouldRefuseAreRefusedBeforeAnyRun) {
  const fs::path dir = test_dir();
  write(dir / "b1.toml", "name = \"sb1\"\nseeds = 1\nalgorithms = [\"random\", \"exploration-first\", \"go-ucb-workshop\"]\n"
                         "[[problems]]\nname = \"branin\"\nbudget = 1\n");
  Result r = cli("bench --config b1.toml --out o1 --no-plot -q");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("algorithm 'exploration-first' on problem 'branin' (budget 1, 2 parameters) of sweep 'sb1': exploration-first: "),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "o1/traces"));
  write(dir / "huge.toml", "name = \"huge\"\nseeds = 1\nalgorithms = [\"random\"]\n[[problems]]\nname = \"branin\"\nbudget = 10000000000\n");
  r = cli("bench --config huge.toml --out o2 --no-plot -q");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("algorithm 'random' on problem 'branin' (budget 10000000000, 2 parameters) of sweep 'huge': random with "
                       "10000000000 evaluations of 2 parameters would need about"),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "o2/traces"));
}

// `bench --out` into a folder of one's own wrote summary.md and summary.json over the files there.
TEST(BenchCli, AFolderThatIsNoSweepsIsNotWrittenInto) {
  const fs::path dir = test_dir();
  write(dir / "s.json", R"({"name": "s", "seeds": 1, "budget": 4, "algorithms": ["random"], "problems": ["branin"]})");
  fs::create_directories(dir / "notes");
  write(dir / "notes/summary.md", "my notes\n");
  const Result r = cli("bench --config s.json --out notes --no-plot -q");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--out: the folder 'notes' holds 'summary.md' and no sweep.json: it is not a sweep's folder"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(dir / "notes/summary.md"), "my notes\n");
  EXPECT_FALSE(fs::exists(dir / "notes/traces"));
  // An empty folder is fine, and so is a sweep's, also one killed before it wrote its sweep.json.
  fs::create_directories(dir / "empty");
  ASSERT_EQ(cli("bench --config s.json --out empty --no-plot -q").code, 0);
  fs::remove(dir / "empty/sweep.json");
  fs::remove(dir / "empty/summary.md");
  fs::remove(dir / "empty/summary.json");
  const Result again = cli("bench --config s.json --out empty --no-plot");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("(1 already done)"), std::string::npos) << again.err;
}

TEST(BenchCli, BadInputNamesTheValue) {
  const fs::path dir = test_dir();
  write(dir / "s.toml", "budget = 5\nalgorithms = [\"random\"]\nproblems = [\"branin\"]\nlevle = 0.9\n");
  Result r = cli("bench --config s.toml --out out");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown key 'levle'"), std::string::npos) << r.err;
  r = cli("bench --preset no-such-preset --out out");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'no-such-preset'"), std::string::npos) << r.err;
  r = cli("bench --preset tree-deterministic");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  r = cli("bench --preset tree-deterministic --seeds 0 --out o");
  EXPECT_EQ(r.code, 2);
  // TOML's nan is named as such (once "got null").
  write(dir / "nan.toml", "budget = 5\nalgorithms = [\"random\"]\n[[problems]]\nname = \"branin\"\nnoise = nan\n");
  r = cli("bench --config nan.toml --out out");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("got nan"), std::string::npos) << r.err;
}

// Seeds past 2^64 - 1 once wrapped to seed 0; the range is checked with the count --seeds gives.
TEST(BenchCli, TheSeedRangeIsCheckedWithTheSeedsFlag) {
  const fs::path dir = test_dir();
  write(dir / "s.json", R"({"budget": 3, "algorithms": ["random"], "problems": ["branin"], "first_seed": 18446744073709551613})");
  Result r = cli("bench --config s.json --seeds 4 --out out -q --no-plot");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'first_seed' 18446744073709551613 with 4 seeds in 's.json': the last seed would be past 2^64 - 1"),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/traces"));
  r = cli("bench --config s.json --seeds 3 --out out -q --no-plot");  // the file's default of 5 seeds would not fit
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out/traces/branin/random/seed-18446744073709551615.jsonl"));
  EXPECT_FALSE(fs::exists(dir / "out/traces/branin/random/seed-0.jsonl"));
}

// Student's t intervals by default; --interval wald (or the sweep's "interval") gives the papers'
// 1.96 sd / sqrt(K), and a rerun on the same folder re-summarizes without running again.
TEST(BenchCli, TheIntervalIsStudentsTByDefaultAndWaldOnRequest) {
  const fs::path dir = test_dir();
  write(dir / "s.json", R"({"name": "iv", "seeds": 3, "budget": 6, "algorithms": ["random", "sobol"], "problems": ["branin"]})");
  const auto half_width_per_sd = [&] {
    const json s = json::parse(slurp(dir / "out/summary.json"));
    const json& m = s.at("problems")[0].at("algorithms")[0].at("metric");
    return std::pair{s.at("interval").get<std::string>(),
                     m.at("half_width").get<double>() / (m.at("sd").get<double>() / std::sqrt(3.0))};
  };
  ASSERT_EQ(cli("bench --config s.json --out out -q --no-plot").code, 0);
  auto [kind, multiplier] = half_width_per_sd();
  EXPECT_EQ(kind, "t");
  EXPECT_NEAR(multiplier, 4.302652729911275, 1e-9);  // scipy.stats.t.ppf(0.975, 2)
  EXPECT_NE(slurp(dir / "out/summary.md").find("t = 4.303 at K = 3"), std::string::npos);
  const auto trace = dir / "out/traces/branin/random/seed-0.jsonl";
  const auto written = fs::last_write_time(trace);
  ASSERT_EQ(cli("bench --config s.json --out out -q --no-plot --interval wald").code, 0);
  std::tie(kind, multiplier) = half_width_per_sd();
  EXPECT_EQ(kind, "wald");
  EXPECT_NEAR(multiplier, 1.959963984540054, 1e-9);
  EXPECT_NE(slurp(dir / "out/summary.md").find("Wald interval covers the mean of normal values only 81.1%"), std::string::npos);
  EXPECT_EQ(fs::last_write_time(trace), written);  // re-summarized, not run again
  const Result bad = cli("bench --config s.json --out out -q --no-plot --interval normal");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("normal"), std::string::npos) << bad.err;
  write(dir / "w.json", R"({"name": "iv", "interval": "Wald", "seeds": 3, "budget": 6, "algorithms": ["random"], "problems": ["branin"]})");
  const Result bad_key = cli("bench --config w.json --out out2 -q --no-plot");
  EXPECT_EQ(bad_key.code, 2);
  EXPECT_NE(bad_key.err.find("'interval' in 'w.json' must be \"t\""), std::string::npos) << bad_key.err;
}

// A peer that cannot run (no Optuna, no Python package) once failed each of its runs, after our
// algorithms' runs, with the same error each time: now the sweep stops before any run.
TEST(BenchCli, PeersThatCannotRunStopTheSweepBeforeAnyRun) {
  const fs::path dir = test_dir();
  write(dir / "broken_peer.py", "import sys\nsys.exit('broken_peer.py: cannot import optuna (test)')\n");
  write(dir / "s.json", R"({"seeds": 2, "budget": 5, "algorithms": ["random", {"name": "tpe", "peer": "optuna"}],
                           "problems": ["branin"]})");
  setenv("OPTIMIST_PEER_SCRIPT", (dir / "broken_peer.py").c_str(), 1);
  const Result r = cli("bench --config s.json --out out --jobs 1 --no-plot -q");
  unsetenv("OPTIMIST_PEER_SCRIPT");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot import optuna (test)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the sweep's Optuna peers cannot run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/traces")) << "runs were started";
}

TEST(BenchCli, ListPresets) {
  const Result r = cli("bench --list-presets");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name :
       {"goucb-synthetic", "goucb-workshop", "tree-noisy", "tree-deterministic", "bkb-scaling", "goucb-hpo", "parallel"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

TEST(BenchCli, PlotWritesPngAndSvg) {
  if (!have_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  const fs::path dir = test_dir();
  write(dir / "s.json",
        R"({"seeds": 2, "budget": 6, "plots": ["metric", "simple_regret", "suggest_time"],
            "algorithms": ["random", "sobol"], "problems": ["branin", "hartmann6"]})");
  Result r = cli("bench --config s.json --out out --no-plot -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/plots"));
  r = cli("plot out");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"metric", "simple_regret", "suggest_time"})
    for (const char* ext : {".png", ".svg"}) EXPECT_GT(fs::file_size(dir / "out/plots" / (std::string(f) + ext)), 1000u);
  r = cli("plot nowhere");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("summary.json"), std::string::npos);
  // A single trace is not a bench folder: said so, with the command that shows one.
  r = cli("plot out/traces/branin/random/seed-0.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is a file; optimist plot draws a bench folder"), std::string::npos) << r.err;
  // A summary.json that is not a sweep's: one line naming it (once a Python traceback, exit 1).
  fs::create_directories(dir / "odd");
  write(dir / "odd/summary.json", "{}");
  r = cli("plot odd");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not a summary written by 'optimist bench' (missing field 'problems')"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
}

// Colours came from matplotlib's cycle in each panel and the legend from the first panel: with
// "random" lacking a line in the first panel (no finished run there), the legend left it out and
// named sobol's colour there, while in the second panel that colour was random's line.
TEST(BenchCli, PlotColoursAreTheAlgorithmsInEveryPanelAndTheLegendNamesThemAll) {
  if (!have_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  const fs::path dir = test_dir();
  write(dir / "s.json", R"({"seeds": 1, "budget": 5, "algorithms": ["random", "sobol"], "problems": ["branin", "hartmann6"]})");
  ASSERT_EQ(cli("bench --config s.json --out out --no-plot -q").code, 0);
  json summary = json::parse(slurp(dir / "out/summary.json"));
  json& mean = summary["problems"][0]["algorithms"][0]["curves"]["metric"]["mean"];
  ASSERT_EQ(summary["problems"][0]["algorithms"][0]["label"], "random");
  for (auto& m : mean) m = nullptr;  // random: no line on branin
  write(dir / "out/summary.json", summary.dump());
  const Result r = cli("plot out");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = slurp(dir / "out/plots/metric.svg");
  EXPECT_NE(svg.find("<!-- random -->"), std::string::npos) << "random is not in the legend";
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("stroke: #ff7f0e"), 3u);  // sobol's colour (C1): its two lines and its legend entry
  EXPECT_EQ(count("stroke: #1f77b4"), 2u);  // random's (C0): its line on hartmann6 and its legend entry
}

}  // namespace

// Optuna's samplers as peers (bench/optuna_peers.py): their traces join the sweep; Optuna's own
// warning lines stay out of the sweep's stderr (CMA-ES on a categorical space printed one per
// trial, QMC an ExperimentalWarning); the sweep.json written in the folder is a config that runs
// the same sweep again (it held "options": {} for peers and "dim": 0, which the parser refuses).
// The peers import this build's Python package: absent, or (a sanitizer build's) not loadable by a
// plain interpreter, the peers cannot run here.
bool peers_can_run() {
  const fs::path build = fs::path(OPTIMIST_CLI_PATH).parent_path();
  const std::string importable = "(PYTHONPATH='" + (build / "python").string() +
                                 "' /usr/bin/python3 -c 'import optimist, optuna') > /dev/null 2>&1";
  return fs::exists(build / "python/optimist/__init__.py") && std::system(importable.c_str()) == 0;
}

TEST(BenchCli, OptunaPeersRunQuietlyAndTheWrittenSweepIsAConfig) {
  if (!peers_can_run()) GTEST_SKIP() << "this build's Python package or python3-optuna cannot be imported by /usr/bin/python3";
  const fs::path dir = test_dir();
  write(dir / "peers.json", R"({"name": "peers", "seeds": 1, "budget": 6,
    "algorithms": ["random", {"name": "cmaes", "peer": "optuna"}, {"name": "qmc", "peer": "optuna"}],
    "problems": ["mixed_separable", {"name": "branin", "budget": 5}]})");
  const Result b = cli("bench --config peers.json --out out --jobs 1 --no-plot -q");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(b.err.find("[W "), std::string::npos) << b.err;
  EXPECT_EQ(b.err.find("Warning"), std::string::npos) << b.err;
  for (const std::string label : {"optuna-cmaes", "optuna-qmc"})
    EXPECT_TRUE(fs::exists(dir / "out/traces/mixed_separable" / label / "seed-0.jsonl")) << label;
  // The peers' traces name the build that ran them, as ours do: one revision, not "mixed".
  const std::string summary = slurp(dir / "out/summary.md");
  EXPECT_NE(summary.find("its runs were made by revision "), std::string::npos) << summary;
  EXPECT_EQ(summary.find("(mixed:"), std::string::npos) << summary;
  const Result again = cli("bench --config out/sweep.json --out out --jobs 1 --no-plot");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("6 already done"), std::string::npos) << again.err;
}

// `optimist bench` killed with kill -9 left its peer's Python process running for the rest of its
// run, and the rerun started the same run beside it, both writing one temporary file (the rerun
// failed with a Python traceback). A peer whose parent is gone now stops at its next trial.
TEST(BenchCli, APeerWhoseParentIsKilledStops) {
  if (!peers_can_run()) GTEST_SKIP() << "this build's Python package or python3-optuna cannot be imported by /usr/bin/python3";
  const fs::path dir = test_dir();
  const fs::path build = fs::path(OPTIMIST_CLI_PATH).parent_path();
  // A parent shell starts a long peer run (random sampler, 10^6 trials) and is killed.
  const std::string start = "cd '" + dir.string() + "' && { ( PYTHONPATH='" + (build / "python").string() +
                            "' /usr/bin/python3 '" + OPTIMIST_SOURCE_DIR + "/bench/optuna_peers.py' --problem branin" +
                            " --budget 1000000 --seed 0 --sampler random --out peer.jsonl 2> peer.log & echo $! > child.pid;" +
                            " wait ) > /dev/null 2>&1 & echo $! > parent.pid; }";
  ASSERT_EQ(std::system(start.c_str()), 0);
  const auto pid_in = [&](const char* file) { return static_cast<pid_t>(std::stol(slurp(dir / file))); };
  const auto running = [](pid_t pid) {  // alive and not a zombie (its new parent may not reap it at once)
    const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    const std::size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
  };
  const auto wait_for = [](const std::function<bool()>& done, int seconds) {
    for (int k = 0; k < 10 * seconds && !done(); ++k) usleep(100000);
    return done();
  };
  ASSERT_TRUE(wait_for([&] {
    return fs::exists(dir / "child.pid") && fs::file_size(dir / "child.pid") > 0 && fs::exists(dir / "parent.pid") &&
           fs::file_size(dir / "parent.pid") > 0;
  }, 10));
  const pid_t parent = pid_in("parent.pid"), child = pid_in("child.pid");
  // Trials are running once the temporary trace holds evaluation lines.
  const bool started = wait_for([&] { return fs::exists(dir / "peer.jsonl.tmp") && fs::file_size(dir / "peer.jsonl.tmp") > 2000; }, 60);
  kill(parent, SIGKILL);
  const bool stopped = started && wait_for([&] { return !running(child); }, 20);
  if (running(child)) kill(child, SIGKILL);  // the old script ran on: end it, by its id
  ASSERT_TRUE(started) << slurp(dir / "peer.log");
  EXPECT_TRUE(stopped) << "the peer ran on after its parent was killed";
  EXPECT_NE(slurp(dir / "peer.log").find("the process that started this run is gone"), std::string::npos) << slurp(dir / "peer.log");
  EXPECT_FALSE(fs::exists(dir / "peer.jsonl.tmp"));
}

// Two `optimist bench` on one --out took each other's runs in progress for failed runs; the second
// is refused now, naming the first, and a killed bench leaves no lock behind.
TEST(BenchCli, ASecondBenchOnTheSameFolderIsRefusedWhileTheFirstRuns) {
  const fs::path dir = test_dir();
  // (gp-ei in the parameters' axes: slow enough to still run, without rotated frames' six fits a step.)
  write(dir / "s.json", R"({"name": "slow", "seeds": 4, "budget": 60, "problems": ["branin"],
                            "algorithms": [{"name": "gp-ei", "options": {"rotation": "none"}}]})");
  const std::string start = "cd '" + dir.string() + "' && { '" + std::string(OPTIMIST_CLI_PATH) +
                            "' bench --config s.json --out out --no-plot -q --jobs 1 > first.log 2>&1 & echo $! > first.pid; }";
  ASSERT_EQ(std::system(start.c_str()), 0);
  for (int k = 0; k < 200 && !(fs::exists(dir / "out/.bench.lock") && fs::file_size(dir / "out/.bench.lock") > 0); ++k)
    usleep(50000);
  const std::string first = std::to_string(std::stol(slurp(dir / "first.pid")));
  ASSERT_EQ(slurp(dir / "out/.bench.lock"), first + "\n");
  const Result second = cli("bench --config s.json --out out --no-plot -q --jobs 1");
  EXPECT_EQ(second.code, 2);
  EXPECT_NE(second.err.find("another optimist bench (pid " + first + ") is running in 'out'"), std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("run failed"), std::string::npos) << second.err;
  kill(static_cast<pid_t>(std::stol(first)), SIGKILL);
  for (int k = 0; k < 100 && fs::exists("/proc/" + first); ++k) usleep(50000);
  // The kernel released the killed bench's lock: a rerun continues the sweep and finishes it.
  const Result rerun = cli("bench --config s.json --out out --no-plot -q --jobs 1");
  EXPECT_EQ(rerun.code, 0) << rerun.err;
  EXPECT_EQ(json::parse(slurp(dir / "out/summary.json")).at("problems")[0].at("algorithms")[0].at("finished"), 4);
}
