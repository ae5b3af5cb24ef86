// End-to-end tests of the `optimist` binary: exit codes, messages, traces, configs, listing.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/experiment/minimize.hpp"
#include "optimist/problems/problem.hpp"
#include "temp_test_dir.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// A fresh folder per test: ctest runs tests in parallel.
fs::path test_dir() { return optimist::testing::test_dir("optimist_cli"); }

// Runs the binary through the shell with `args` (already quoted as needed) in folder `cwd`.
Result cli(const std::string& args, const fs::path& cwd = fs::temp_directory_path()) {
  const fs::path dir = test_dir();
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' " + args +
                          " > '" + out.string() + "' 2> '" + err.string() + "' < /dev/null";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::vector<nlohmann::json> json_lines(const fs::path& p) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(p);
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  return lines;
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class Cli : public ::testing::Test {};  // the test's folder goes when it passes (temp_test_dir.hpp)

struct BadInput {
  std::string args;
  std::string must_mention;  // the bad value (or path) the message has to name
};

TEST_F(Cli, BadInputExitsTwoWithOneMessage) {
  const fs::path dir = test_dir();
  write_file(dir / "bad.json", "{\"problem\": \"branin\",\n  \"budget\": }\n");
  write_file(dir / "bad.toml", "problem = \"branin\"\nbudget = = 3\n");
  write_file(dir / "unknown.toml", "problem = \"branin\"\nbugdet = 3\n");
  write_file(dir / "nan.toml", "problem = \"branin\"\nnoise = nan\n");
  write_file(dir / "twice.json", "{\"problem\": \"branin\", \"budget\": 5, \"budget\": 7}\n");
  write_file(dir / "resume.toml", "resume = \"x.jsonl\"\n");
  write_file(dir / "typo_space.json", "{\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1, \"lgo\": true}]}\n");
  const std::string ok = " --problem branin --algorithm random --budget 5 ";
  const std::vector<BadInput> cases = {
      {"run --problem nosuch --algorithm random --budget 5", "nosuch"},
      {"run --problem branin --algorithm nosuch --budget 5", "nosuch"},
      {"run" + ok + "--set bogus_key=1", "bogus_key"},
      {"run --problem branin --algorithm random --budget 0", "0"},
      {"run --problem branin --algorithm random --budget -4", "-4"},
      {"run --problem branin --algorithm random --budget abc", "abc"},
      {"run --problem branin --algorithm random --budget 2.5", "2.5"},
      {"run" + ok + "--dim 3", "3"},
      {"run" + ok + "--noise=-0.5", "-0.5"},
      {"run" + ok + "--seed xyz", "xyz"},
      {"run" + ok + "--on-failure never", "never"},
      {"run" + ok + "--set noequals", "noequals"},
      {"run" + ok + "--config '" + (dir / "missing.toml").string() + "'", "missing.toml"},
      {"run" + ok + "--config '" + (dir / "bad.json").string() + "'", "line 2"},
      {"run" + ok + "--config '" + (dir / "bad.toml").string() + "'", "line 2"},
      {"run" + ok + "--config '" + (dir / "unknown.toml").string() + "'", "bugdet"},
      {"run --algorithm random --budget 5", "--problem"},
      {"run" + ok + "--frobnicate", "--frobnicate"},
      {"list widgets", "widgets"},
      {"frobnicate", "unknown command 'frobnicate'; valid commands: run, list"},
      {"run" + ok + "--seed 18446744073709551616", "below 2^64"},
      {"run --problem branin --budget 5 --algorithm gp-ei --set restarts=-1", "option 'restarts' must be a non-negative integer, got -1"},
      // Counts are checked as typed: "-1" once wrapped to 2^64-1 and hung, 100000 threads aborted.
      {"run" + ok + "--jobs -1", "'-1'"},
      {"run" + ok + "--jobs 0", "'0'"},
      {"run" + ok + "--jobs 99999999999", "1024"},
      {"run" + ok + "--jobs 100000", "'100000'"},
      {"run" + ok + "--jobs 1.5", "'1.5'"},
      {"worker --storage sqlite:///nowhere.db --name s --jobs -2", "'-2'"},
      {"worker --storage sqlite:///nowhere.db --name s --budget -1", "'-1'"},
      {"bench --preset smoke --seeds 0", "from 1 to"},
      {"bench --preset smoke --jobs -1", "'-1'"},
      // Once "got null" (a TOML nan printed as JSON), the last of two keys, and "missing meta line".
      {"run" + ok + "--config '" + (dir / "nan.toml").string() + "'", "got nan"},
      {"run --algorithm random --config '" + (dir / "twice.json").string() + "'", "'budget' appears twice"},
      {"run --config '" + (dir / "resume.toml").string() + "'", "is not read from a config file: give --resume TRACE on the command line"},
      {"run --resume '" + dir.string() + "'", "is a directory"},
      {"run" + ok + "--study foo", "--study must be given with a storage"},
      {"dashboard --host '' --port 0", "--host is empty"},
      {"run --objective-command cat --direction maximize --budget 2 --space '" + (dir / "typo_space.json").string() + "'",
       "unknown key 'lgo'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = cli(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("optimist: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << r.err;
    EXPECT_LE(count_lines(r.err), 2u) << r.err;  // the message, plus a help hint for parse errors
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Malformed configs name the file as well as the line.
  EXPECT_NE(cli("run --config '" + (dir / "bad.toml").string() + "'").err.find("bad.toml"), std::string::npos);
  // Unknown names list the valid ones.
  EXPECT_NE(cli("run --problem nosuch --algorithm random --budget 5").err.find("branin"), std::string::npos);
  EXPECT_NE(cli("run --problem branin --algorithm nosuch --budget 5").err.find("sobol"), std::string::npos);
  // CLI11 parse errors point to the help.
  EXPECT_NE(cli("run" + ok + "--frobnicate").err.find("optimist run --help"), std::string::npos);
}

TEST_F(Cli, RunWritesTraceAndSummary) {
  const fs::path dir = test_dir();
  for (const std::string alg : {"random", "sobol"}) {
    SCOPED_TRACE(alg);
    const fs::path trace = dir / alg / "nested" / "t.jsonl";  // parent folders get created
    const Result r = cli("run --problem branin --algorithm " + alg + " --budget 12 --seed 5 --out '" +
                         trace.string() + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = json_lines(trace);
    ASSERT_EQ(lines.size(), 14u);
    const auto& meta = lines.front().at("meta");
    EXPECT_EQ(meta.at("algorithm"), alg);
    EXPECT_EQ(meta.at("problem"), "branin");
    EXPECT_EQ(meta.at("dim"), 2);
    EXPECT_EQ(meta.at("seed"), 5);
    EXPECT_EQ(meta.at("budget"), 12);
    EXPECT_EQ(meta.at("direction"), "minimize");
    EXPECT_TRUE(meta.at("f_star").is_number());
    EXPECT_EQ(meta.at("options").at("name"), alg);
    // Every point inside branin's box, its value branin's at that point; the recommendation is
    // the best of them and the summary prints it.
    const optimist::Problem branin = optimist::make_problem("branin");
    double best = INFINITY;
    nlohmann::json best_x;
    for (std::size_t k = 1; k <= 12; ++k) {
      EXPECT_EQ(lines[k].at("i"), k);
      EXPECT_EQ(lines[k].at("status"), "ok");
      ASSERT_EQ(lines[k].at("x").size(), 2u);
      const optimist::Vector x = (optimist::Vector(2) << lines[k].at("x")[0].get<double>(), lines[k].at("x")[1].get<double>()).finished();
      EXPECT_TRUE(x[0] >= -5.0 && x[0] <= 10.0 && x[1] >= 0.0 && x[1] <= 15.0) << x.transpose();
      const double y = lines[k].at("y").get<double>();
      EXPECT_NEAR(y, branin.f(x), 1e-12 * (1.0 + std::abs(y)));
      EXPECT_NEAR(lines[k].at("regret").get<double>(), y - *branin.f_star, 1e-12 * (1.0 + std::abs(y)));
      if (y < best) {
        best = y;
        best_x = lines[k].at("x");
      }
    }
    ASSERT_TRUE(lines.back().contains("recommend"));
    EXPECT_EQ(lines.back().at("recommend").at("f").get<double>(), best);
    EXPECT_EQ(lines.back().at("recommend").at("x"), best_x);
    std::ostringstream best_text;
    best_text << "y = " << best;
    EXPECT_NE(r.out.find("best observed     " + best_text.str()), std::string::npos) << best_text.str() << "\n" << r.out;
    EXPECT_TRUE(optimist::read_trace(trace.string()).complete());

    for (const char* label : {"algorithm", "problem", "evaluations", "best observed", "regret of best",
                              "cumulative regret", "recommended", "total time", "optimizer time", "trace",
                              "stop reason"})
      EXPECT_NE(r.out.find(label), std::string::npos) << label << "\n" << r.out;
    EXPECT_NE(r.out.find(trace.string()), std::string::npos);
    EXPECT_NE(r.out.find("12 of 12"), std::string::npos) << r.out;
    // Not a terminal: plain progress lines on stderr, ending with the last evaluation.
    EXPECT_NE(r.err.find("12/12"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\r'), std::string::npos);
  }
}

TEST_F(Cli, QuietHasNoProgress) {
  const Result r = cli("run --problem branin --algorithm random --budget 5 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("stop reason"), std::string::npos);
}

// plateau_ridge is exactly 0 off its ridges: gp-ei's first six points all miss them (seed 0), and the
// summary says that every value was the same; Branin's values differ, and it says nothing.
TEST_F(Cli, ASummaryNotesThatEveryValueWasTheSame) {
  const Result flat = cli("run --problem plateau_ridge --algorithm gp-ei --budget 6 --seed 0 --quiet");
  ASSERT_EQ(flat.code, 0) << flat.err;
  EXPECT_NE(flat.out.find("note              every one of the 6 values was 0: "), std::string::npos) << flat.out;
  const Result varied = cli("run --problem branin --algorithm random --budget 6 --quiet");
  ASSERT_EQ(varied.code, 0) << varied.err;
  EXPECT_EQ(varied.out.find("note"), std::string::npos) << varied.out;
}

std::vector<nlohmann::json> without_timing(std::vector<nlohmann::json> lines) {
  for (auto& l : lines) {
    l.erase("suggest_s");
    l.erase("eval_s");
    l.erase("tell_s");
  }
  return lines;
}

TEST_F(Cli, SameSeedSameTrace) {
  const fs::path dir = test_dir();
  for (const std::string alg : {"random", "sobol"}) {
    SCOPED_TRACE(alg);
    const std::string base = "run --problem ackley --dim 3 --noise 0.3 --algorithm " + alg + " --budget 20 -q ";
    ASSERT_EQ(cli(base + "--seed 11 --out '" + (dir / "a.jsonl").string() + "'").code, 0);
    ASSERT_EQ(cli(base + "--seed 11 --out '" + (dir / "b.jsonl").string() + "'").code, 0);
    ASSERT_EQ(cli(base + "--seed 12 --out '" + (dir / "c.jsonl").string() + "'").code, 0);
    const auto a = without_timing(json_lines(dir / "a.jsonl"));
    const auto b = without_timing(json_lines(dir / "b.jsonl"));
    const auto c = without_timing(json_lines(dir / "c.jsonl"));
    ASSERT_EQ(a.size(), 22u);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    // Noise is on: y differs from the noise-free f.
    EXPECT_NE(a[1].at("y"), a[1].at("f"));
  }
}

TEST_F(Cli, ConfigFilesAndFlagPrecedence) {
  const fs::path dir = test_dir();
  write_file(dir / "run.json",
             R"({"problem": "branin", "algorithm": "sobol", "budget": 6, "seed": 3,
                 "out": "from_json.jsonl", "options": {"scramble": false}})");
  write_file(dir / "run.toml",
             "problem = \"ackley\"\ndim = 4\nalgorithm = \"random\"\nbudget = 5\nnoise = 0.1\n"
             "out = \"from_toml.jsonl\"\n");
  // No recognised extension: tried as JSON, then as TOML.
  write_file(dir / "run.cfg", "problem = \"branin\"\nalgorithm = \"random\"\nbudget = 3\nout = \"cfg.jsonl\"\n");

  ASSERT_EQ(cli("run -q --config run.json", dir).code, 0);
  auto t = optimist::read_trace((dir / "from_json.jsonl").string());
  EXPECT_EQ(t.meta.algorithm, "sobol");
  EXPECT_EQ(t.meta.seed, 3u);
  EXPECT_EQ(t.evaluations.size(), 6u);
  EXPECT_EQ(t.meta.options.at("scramble"), false);
  // ...and used: an unscrambled Sobol sequence starts at the origin of the unit cube, branin's (-5, 0).
  EXPECT_EQ(t.evaluations.front().at("x"), nlohmann::json::array({-5.0, 0.0}));

  // Flags override the file; --set overrides its options.
  ASSERT_EQ(cli("run -q --config run.json --budget 4 --seed 9 --set scramble=true --out o.jsonl", dir).code, 0);
  t = optimist::read_trace((dir / "o.jsonl").string());
  EXPECT_EQ(t.evaluations.size(), 4u);
  EXPECT_EQ(t.meta.seed, 9u);
  EXPECT_EQ(t.meta.options.at("scramble"), true);
  EXPECT_NE(t.evaluations.front().at("x"), nlohmann::json::array({-5.0, 0.0}));

  ASSERT_EQ(cli("run -q --config run.toml", dir).code, 0);
  t = optimist::read_trace((dir / "from_toml.jsonl").string());
  EXPECT_EQ(t.meta.problem, "ackley");
  EXPECT_EQ(t.meta.dim, 4u);
  EXPECT_EQ(t.meta.noise, 0.1);
  EXPECT_EQ(t.evaluations.size(), 5u);

  ASSERT_EQ(cli("run -q --config run.toml --dim 2 --noise 0 --out o2.jsonl", dir).code, 0);
  t = optimist::read_trace((dir / "o2.jsonl").string());
  EXPECT_EQ(t.meta.dim, 2u);
  EXPECT_EQ(t.meta.noise, 0.0);

  ASSERT_EQ(cli("run -q --config run.cfg", dir).code, 0);
  EXPECT_EQ(optimist::read_trace((dir / "cfg.jsonl").string()).evaluations.size(), 3u);

  // Every flag but --config/--resume/--trust-command has its key: the run as a study too.
  write_file(dir / "study.toml",
             "problem = \"branin\"\nalgorithm = \"random\"\nbudget = 6\njobs = 2\nquiet = true\n"
             "storage = \"sqlite:///studies/run.db\"\nstudy = \"from-file\"\n");
  fs::create_directories(dir / "studies");
  Result r = cli("run --config study.toml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "quiet: no progress display";
  EXPECT_NE(r.out.find("study             'from-file' in sqlite:///studies/run.db"), std::string::npos) << r.out;
  r = cli("study show --storage sqlite:///studies/run.db --name from-file", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // The flag wins over the file: another study in the same storage.
  ASSERT_EQ(cli("run --config study.toml --study from-flag", dir).code, 0);
  ASSERT_EQ(cli("study show --storage sqlite:///studies/run.db --name from-flag", dir).code, 0);
  // A config file cannot put the database outside the current folder (as for 'out').
  write_file(dir / "far.toml", "problem = \"branin\"\nbudget = 3\nstorage = \"sqlite:///../far.db\"\n");
  r = cli("run --config far.toml", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'storage' in far.toml must be a SQLite file below the current folder"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.parent_path() / "far.db"));
}

TEST_F(Cli, ListShowsEveryProblemAndAlgorithm) {
  const Result all = cli("list");
  ASSERT_EQ(all.code, 0) << all.err;
  for (const auto& a : optimist::algorithms()) EXPECT_NE(all.out.find(a.name), std::string::npos) << a.name;
  for (const auto& p : optimist::problems()) EXPECT_NE(all.out.find(p.name), std::string::npos) << p.name;

  const Result algs = cli("list algorithms");
  ASSERT_EQ(algs.code, 0);
  EXPECT_EQ(algs.out.find("branin"), std::string::npos);  // only the algorithms
  // Every "key = default" is followed by at least two spaces before its help text, however long.
  EXPECT_NE(algs.out.find("sgd_learning_rate = 1e-11  "), std::string::npos);
  EXPECT_NE(algs.out.find("acquisition = \"linearized\"  "), std::string::npos);

  const Result js = cli("list --json");
  ASSERT_EQ(js.code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j.at("algorithms").size(), optimist::algorithms().size());
  ASSERT_EQ(j.at("problems").size(), optimist::problems().size());
  for (std::size_t k = 0; k < optimist::problems().size(); ++k) {
    const auto& info = optimist::problems()[k];
    const auto& row = j.at("problems")[k];
    EXPECT_EQ(row.at("name"), info.name);
    std::optional<double> f_star;
    try {
      f_star = optimist::make_problem(info.name, info.default_dim).f_star;
    } catch (const optimist::InvalidArgument&) {  // e.g. an hpo_* problem without its data set here
      EXPECT_TRUE(row.at("f_star").is_null()) << info.name;
    }
    if (f_star) {
      EXPECT_EQ(row.at("f_star").get<double>(), *f_star) << info.name;
    }
  }
  for (const auto& a : j.at("algorithms")) EXPECT_EQ(a.at("options")[0].at("key"), "seed");
}

TEST_F(Cli, VersionAndHelp) {
  const Result v = cli("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find(optimist::version()), std::string::npos);
  EXPECT_NE(v.out.find(std::string("(revision ") + optimist::revision() + ")"), std::string::npos) << v.out;
  // The build's git commit: 12 hex digits (and -dirty), or unknown outside a checkout.
  const std::string rev = optimist::revision();
  EXPECT_TRUE(rev == "unknown" || (rev.size() >= 12 && rev.find_first_not_of("0123456789abcdef") == 12) ||
              rev.find_first_not_of("0123456789abcdef") == std::string::npos)
      << rev;
  const Result h = cli("run --help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--budget"), std::string::npos);
}

TEST_F(Cli, TargetStopsEarly) {
  const fs::path dir = test_dir();
  // Branin is minimized; any first value is below 1e9, so the run stops after one evaluation.
  const Result r = cli("run -q --problem branin --algorithm random --budget 50 --target 1e9 --out '" +
                       (dir / "t.jsonl").string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = optimist::read_trace((dir / "t.jsonl").string());
  EXPECT_EQ(t.evaluations.size(), 1u);
  EXPECT_TRUE(t.complete());
  EXPECT_NE(r.out.find("target"), std::string::npos);
  // The trace records the settings that ended it.
  EXPECT_EQ(t.meta.run.at("target"), 1e9);
  EXPECT_TRUE(t.meta.run.at("time_limit_s").is_null());
  EXPECT_EQ(t.meta.run.at("batch"), 1);
  EXPECT_EQ(t.meta.run.at("on_failure"), "stop");
  // A target reached mid-run stops at the first value at or below it, not before; one below f*
  // (0.398) is never reached and the budget runs out.
  const std::string base = "run -q --problem branin --algorithm random --budget 50 --seed 1 --out '";
  ASSERT_EQ(cli(base + (dir / "all.jsonl").string() + "'").code, 0);
  const auto all = optimist::read_trace((dir / "all.jsonl").string());
  ASSERT_EQ(all.evaluations.size(), 50u);
  double target = INFINITY;
  for (std::size_t k = 0; k < 20; ++k) target = std::min(target, all.evaluations[k].at("y").get<double>());
  std::size_t first = 0;
  while (all.evaluations[first].at("y").get<double>() > target) ++first;
  ASSERT_GT(first, 0u);
  std::ostringstream target_text;
  target_text.precision(17);
  target_text << target;
  ASSERT_EQ(cli(base + (dir / "mid.jsonl").string() + "' --target " + target_text.str()).code, 0);
  const auto mid = optimist::read_trace((dir / "mid.jsonl").string());
  EXPECT_EQ(mid.evaluations.size(), first + 1);
  EXPECT_EQ(mid.recommend->at("stop_reason"), "target reached");
  ASSERT_EQ(cli(base + (dir / "never.jsonl").string() + "' --target 0.3").code, 0);
  const auto never = optimist::read_trace((dir / "never.jsonl").string());
  EXPECT_EQ(never.evaluations.size(), 50u);
  EXPECT_EQ(never.recommend->at("stop_reason"), "budget");
}

// A run killed mid-write and resumed gives the trace of the uninterrupted run.
TEST_F(Cli, ResumeContinuesAKilledRunExactly) {
  const fs::path dir = test_dir();
  for (const std::string alg : {"gp-ei", "go-ucb", "sequool"}) {
    SCOPED_TRACE(alg);
    const fs::path full = dir / (alg + "-full.jsonl"), cut = dir / (alg + "-cut.jsonl");
    ASSERT_EQ(cli("run -q --problem branin --noise 0.5 --seed 4 --budget 12 --algorithm " + alg + " --out '" +
                  full.string() + "'").code, 0);
    // The meta line, 5 evaluations and half of the 6th: what a killed writer leaves.
    std::istringstream text(slurp(full));
    std::string kept;
    std::string line;
    for (int k = 0; k < 6 && std::getline(text, line); ++k) kept += line + "\n";
    std::getline(text, line);
    write_file(cut, kept + line.substr(0, line.size() / 2));

    const Result r = cli("run -q --resume '" + cut.string() + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    auto a = without_timing(json_lines(full)), b = without_timing(json_lines(cut));
    ASSERT_EQ(b.size(), a.size());
    EXPECT_EQ(b.front().at("meta").at("run").at("resumed_after"), nlohmann::json::array({5}));
    a.erase(a.begin());
    b.erase(b.begin());
    EXPECT_EQ(a, b);  // every evaluation, and the recommendation
  }
  // Earlier resume points are carried forward; edited ones that cannot be resume points are dropped.
  {
    std::string cut = slurp(dir / "sequool-full.jsonl");
    const auto at = cut.find("\"run\":{") + 7;
    cut.insert(at, "\"resumed_after\":[2,\"x\",99,-1,4],");
    std::istringstream text(cut);
    std::string kept, line;
    for (int k = 0; k < 7 && std::getline(text, line); ++k) kept += line + "\n";
    write_file(dir / "edited.jsonl", kept);
    ASSERT_EQ(cli("run -q --resume '" + (dir / "edited.jsonl").string() + "'").code, 0);
    EXPECT_EQ(json_lines(dir / "edited.jsonl").front().at("meta").at("run").at("resumed_after"),
              nlohmann::json::array({2, 4, 6}));
  }
  // A finished run extended to a larger budget (gp-ei does not plan with the budget) equals the
  // longer run; the original trace is left alone when --out names another file.
  const fs::path longer = dir / "longer.jsonl", extended = dir / "extended.jsonl";
  ASSERT_EQ(cli("run -q --problem branin --noise 0.5 --seed 4 --budget 16 --algorithm gp-ei --out '" + longer.string() + "'").code, 0);
  const std::string before = slurp(dir / "gp-ei-full.jsonl");
  const Result ext = cli("run -q --resume '" + (dir / "gp-ei-full.jsonl").string() + "' --budget 16 --out '" + extended.string() + "'");
  ASSERT_EQ(ext.code, 0) << ext.err;
  EXPECT_EQ(slurp(dir / "gp-ei-full.jsonl"), before);
  auto a = without_timing(json_lines(longer)), b = without_timing(json_lines(extended));
  ASSERT_EQ(a.size(), 18u);
  ASSERT_EQ(b.size(), 18u);
  EXPECT_EQ(b.front().at("meta").at("budget"), 16);
  a.erase(a.begin());
  b.erase(b.begin());
  EXPECT_EQ(a, b);
}

// --x0 (repeatable) and 'x0' in a config file: evaluated first, recorded in the trace's meta, so a
// resume evaluates those still missing and ends as the uninterrupted run; with --jobs they are the
// first trials; bad points are named.
TEST_F(Cli, StartPointsRunFirstAndResume) {
  const fs::path dir = test_dir();
  const fs::path full = dir / "full.jsonl", cut = dir / "cut.jsonl", jobs = dir / "jobs.jsonl";
  const std::string x0 = "--x0 '[3.14159, 2.275]' --x0 '{\"x1\": 0, \"x2\": 5}' --x0 '[9, 1]'";
  ASSERT_EQ(cli("run -q --problem branin --algorithm gp-ei --seed 2 --budget 7 " + x0 + " --out '" + full.string() + "'").code, 0);
  const auto lines = json_lines(full);
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[0].at("meta").at("run").at("x0"), nlohmann::json::parse("[[3.14159, 2.275], [0.0, 5.0], [9.0, 1.0]]"));
  EXPECT_EQ(lines[1].at("x"), nlohmann::json::parse("[3.14159, 2.275]"));
  EXPECT_EQ(lines[2].at("x"), nlohmann::json::parse("[0.0, 5.0]"));
  EXPECT_EQ(lines[3].at("x"), nlohmann::json::parse("[9.0, 1.0]"));
  EXPECT_NEAR(lines[1].at("y").get<double>(), 0.397887, 1e-6);
  // Cut after the first evaluation: the resume evaluates x0[1] and x0[2], then as before.
  std::istringstream text(slurp(full));
  std::string kept, line;
  for (int k = 0; k < 2 && std::getline(text, line); ++k) kept += line + "\n";
  write_file(cut, kept);
  const Result r = cli("run -q --resume '" + cut.string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  auto a = without_timing(json_lines(full)), b = without_timing(json_lines(cut));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 1; k < a.size(); ++k) EXPECT_EQ(a[k], b[k]) << k;
  EXPECT_EQ(cli("run -q --resume '" + cut.string() + "' --x0 '[1, 1]'").code, 2);  // the trace fixes them
  // A config file's list; with --jobs the first trials.
  write_file(dir / "run.toml", "problem = \"branin\"\nalgorithm = \"gp-ei\"\nbudget = 6\nx0 = [[3.14159, 2.275], [9, 1]]\n");
  const Result j = cli("run -q --config run.toml --jobs 2 --out '" + jobs.string() + "'", dir);
  ASSERT_EQ(j.code, 0) << j.err;
  std::size_t found = 0;  // lines in completion order: each once, wherever it finished
  for (const auto& l : json_lines(jobs))
    found += l.contains("x") && (l.at("x") == nlohmann::json::parse("[3.14159, 2.275]") || l.at("x") == nlohmann::json::parse("[9.0, 1.0]"));
  EXPECT_EQ(found, 2u);
  // Bad points, named; nothing evaluated.
  for (const auto& [args, mention] : std::vector<std::pair<std::string, std::string>>{
           {"--x0 '[3.14159]'", "x0[0] [3.14159]: point [3.14159] has 1 values, the space has 2"},
           {"--x0 abc", "--x0 got 'abc'; expected a point"},
           {"--x0 '{\"x1\": 100, \"x2\": 3}'", "parameter 'x1': value 100 is outside [-5, 10]"},
           {"--x0 '{\"y\": 1, \"x2\": 3}'", "names unknown parameter 'y'"},
           {"--budget 1 --x0 '[1, 2]' --x0 '[2, 3]'", "x0 has 2 point(s) to evaluate, more than the budget of 1"},
           {"--jobs 2 --x0 '[1, 2]' --x0 '[2, 3]' --x0 '[3, 3]' --budget 2", "more than the budget of 2"}}) {
    const std::string budget = args.find("--budget") == std::string::npos ? " --budget 3" : "";
    const Result bad = cli("run -q --problem branin " + args + budget + " --out '" + (dir / "bad.jsonl").string() + "'");
    EXPECT_EQ(bad.code, 2) << args;
    EXPECT_NE(bad.err.find(mention), std::string::npos) << args << ": " << bad.err;
    EXPECT_FALSE(fs::exists(dir / "bad.jsonl")) << args;
  }
}

// Running the same command again instead of resuming once overwrote the evaluations a crashed run
// had paid for; resuming in place made a private trace world-readable and replaced a symlink.
// `--out` named the run's own program or space file and replaced it by a trace, and a rerun wrote
// over a finished trace of the user's paid evaluations (stop 67's probe). Resuming into the same
// trace spelled another way (./t.jsonl) said another process was writing it.
TEST_F(Cli, OutNeverReplacesAnInputOrPaidEvaluations) {
  const fs::path dir = test_dir();
  write_file(dir / "space.json", R"({"parameters": [{"name": "a", "lower": 0, "upper": 1}]})" "\n");
  write_file(dir / "obj.sh", "#!/bin/sh\nwhile read line; do echo '{\"y\": 1.5}'; done\n");
  fs::permissions(dir / "obj.sh", fs::perms::owner_all);
  const std::string space = slurp(dir / "space.json"), program = slurp(dir / "obj.sh");
  const std::string run = "run -q --objective-command ./obj.sh --space space.json --direction minimize --algorithm random --budget 3 --out ";
  for (const std::string input : {"space.json", "obj.sh"}) {
    const Result r = cli(run + input, dir);
    EXPECT_EQ(r.code, 2) << input;
    EXPECT_NE(r.err.find("the file '" + input + "' is there and is not a trace"), std::string::npos) << r.err;
  }
  EXPECT_EQ(slurp(dir / "space.json"), space);
  EXPECT_EQ(slurp(dir / "obj.sh"), program);
  ASSERT_EQ(cli(run + "t.jsonl", dir).code, 0);
  const std::string first = slurp(dir / "t.jsonl");
  const Result again = cli(run + "t.jsonl", dir);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("'t.jsonl' held a finished run of your objective; it is kept as 't.1.jsonl'"), std::string::npos)
      << again.err;
  EXPECT_EQ(slurp(dir / "t.1.jsonl"), first);
  // A benchmark's finished trace is written over (it costs nothing to redo).
  const std::string bench = "run -q --problem branin --algorithm random --budget 3 --out b.jsonl";
  ASSERT_EQ(cli(bench, dir).code, 0);
  ASSERT_EQ(cli(bench, dir).code, 0);
  EXPECT_FALSE(fs::exists(dir / "b.1.jsonl"));
  // Resumed into itself, however spelled.
  const Result resumed = cli("run -q --resume t.jsonl --budget 5 --objective-command ./obj.sh --out ./t.jsonl", dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(optimist::read_trace((dir / "t.jsonl").string()).evaluations.size(), 5u);
}

TEST_F(Cli, UnfinishedTracesAreKeptAndResumedInPlaceAsTheyWere) {
  const fs::path dir = test_dir();
  const std::string base = "run -q --problem branin --algorithm random --budget 5 --seed 1 --out ";
  ASSERT_EQ(cli(base + "full.jsonl", dir).code, 0);
  std::istringstream text(slurp(dir / "full.jsonl"));
  std::string kept, line;
  for (int k = 0; k < 4 && std::getline(text, line); ++k) kept += line + "\n";  // meta + 3 evaluations
  write_file(dir / "crashed.jsonl", kept);
  Result r = cli(base + "crashed.jsonl", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'crashed.jsonl' holds 3 evaluations of a run that did not finish"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "crashed.jsonl"), kept);
  ASSERT_EQ(cli(base + "full.jsonl", dir).code, 0);  // a finished run's trace is written over

  write_file(dir / "private.jsonl", kept);
  fs::permissions(dir / "private.jsonl", fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_EQ(cli("run -q --resume private.jsonl", dir).code, 0);
  EXPECT_EQ(fs::status(dir / "private.jsonl").permissions(), fs::perms::owner_read | fs::perms::owner_write);
  write_file(dir / "target.jsonl", kept);
  fs::create_symlink("target.jsonl", dir / "link.jsonl");
  ASSERT_EQ(cli("run -q --resume link.jsonl", dir).code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "link.jsonl"));
  EXPECT_EQ(json_lines(dir / "target.jsonl").size(), 7u);  // meta, 5 evaluations, recommend

  // A read-only trace is not replaced by its resumed copy (root could, and the rename always could).
  write_file(dir / "kept.jsonl", kept);
  fs::permissions(dir / "kept.jsonl", fs::perms::owner_read | fs::perms::group_read);
  r = cli("run -q --resume kept.jsonl", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the trace 'kept.jsonl' is read-only; continue it into another file"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "kept.jsonl"), kept);
  EXPECT_FALSE(fs::exists(dir / "kept.jsonl.resume-tmp"));
  ASSERT_EQ(cli("run -q --resume kept.jsonl --out more.jsonl", dir).code, 0);
  EXPECT_EQ(json_lines(dir / "more.jsonl").size(), 7u);
}

// Traces written before RunContext kept the seed and the horizon among the options ("seed", and
// "budget" for the algorithms that plan with it) and had no meta "horizon": they resume exactly, and
// a raised budget keeps the recorded horizon.
TEST_F(Cli, ResumesTracesWrittenBeforeRunContext) {
  const fs::path dir = test_dir();
  for (const std::string alg : {"go-ucb", "sequool", "random"}) {
    SCOPED_TRACE(alg);
    const fs::path full = dir / (alg + "-full.jsonl"), old = dir / (alg + "-old.jsonl");
    ASSERT_EQ(cli("run -q --problem branin --noise 0.5 --seed 4 --budget 12 --algorithm " + alg + " --out '" +
                  full.string() + "'").code, 0);
    std::vector<nlohmann::json> lines = json_lines(full);
    nlohmann::json& meta = lines.front().at("meta");
    ASSERT_EQ(meta.at("horizon"), 12);
    ASSERT_FALSE(meta.at("options").contains("seed"));
    meta.erase("horizon");
    meta.at("options")["seed"] = 4;
    if (alg != "random") meta.at("options")["budget"] = 12;
    std::string text;
    for (std::size_t k = 0; k < 6; ++k) text += lines[k].dump() + "\n";  // meta and 5 evaluations
    write_file(old, text);
    const Result r = cli("run -q --resume '" + old.string() + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    auto a = without_timing(json_lines(full)), b = without_timing(json_lines(old));
    ASSERT_EQ(b.size(), a.size());
    EXPECT_EQ(b.front().at("meta").at("horizon"), 12);
    EXPECT_FALSE(b.front().at("meta").at("options").contains("seed"));
    a.erase(a.begin());
    b.erase(b.begin());
    EXPECT_EQ(a, b);
  }
  // A raised budget: sequool keeps planning for the recorded 12 evaluations, so its first 12 are
  // those of the 12-evaluation run.
  const fs::path extended = dir / "extended.jsonl";
  const Result ext = cli("run -q --resume '" + (dir / "sequool-old.jsonl").string() + "' --budget 20 --out '" +
                         extended.string() + "'");
  ASSERT_EQ(ext.code, 0) << ext.err;
  const auto a = without_timing(json_lines(dir / "sequool-full.jsonl")), b = without_timing(json_lines(extended));
  ASSERT_EQ(b.size(), 22u);
  EXPECT_EQ(b.front().at("meta").at("horizon"), 12);
  EXPECT_EQ(b.front().at("meta").at("budget"), 20);
  for (std::size_t i = 1; i <= 12; ++i) EXPECT_EQ(b[i], a[i]) << "evaluation " << i;
}

TEST_F(Cli, ResumeRejectsWhatTheTraceFixes) {
  const fs::path dir = test_dir();
  const std::string trace = (dir / "t.jsonl").string();
  ASSERT_EQ(cli("run -q --problem branin --algorithm random --budget 6 --out '" + trace + "'").code, 0);
  const std::string resume = "run -q --resume '" + trace + "' ";
  const std::vector<BadInput> cases = {
      {resume + "--problem ackley", "--problem"},
      {resume + "--seed 3", "--seed"},
      {resume + "--algorithm gp-ei", "--algorithm"},
      {resume + "--set n_init=3", "--set"},
      {resume + "--batch 2", "--batch"},  // once taken (docs/trace-format.md: the meta fixes it)
      {resume + "--budget 4", "6 evaluations"},
      {resume + "--objective-command 'python3 x.py'", "branin"},
      {"run -q --resume '" + (dir / "missing.jsonl").string() + "'", "missing.jsonl"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = cli(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << r.err;
  }
  // A trace whose evaluation lies outside the problem's space is refused, naming it.
  std::string text = slurp(trace);
  const auto at = text.find("\"x\":[") + 5;
  text.replace(at, text.find(',', at) - at, "99.0");
  write_file(dir / "bad.jsonl", text);
  const Result bad = cli("run -q --resume '" + (dir / "bad.jsonl").string() + "' --budget 8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("evaluation 1"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("99"), std::string::npos) << bad.err;
  // A meta edited to a bad noise or dimension: the message names the trace (it named neither).
  for (const auto& [from, to, expected] : std::vector<std::array<std::string, 3>>{
           {"\"noise\":0.0", "\"noise\":-1", "noise.jsonl' has \"noise\" -1"},
           {"\"dim\":2", "\"dim\":3", "the trace '" + (dir / "dim.jsonl").string() + "': problem 'branin' does not support dimension 3"}}) {
    std::string edited = slurp(trace);
    const auto at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    edited.replace(at, from.size(), to);
    const std::string name = from.find("noise") != std::string::npos ? "noise.jsonl" : "dim.jsonl";
    write_file(dir / name, edited);
    const Result r = cli("run -q --resume '" + (dir / name).string() + "' --budget 8");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
  // A meta whose algorithm was edited ran the other algorithm with the first one's options.
  std::string renamed = slurp(trace);
  const auto algorithm_at = renamed.find("\"algorithm\":\"random\"");
  ASSERT_NE(algorithm_at, std::string::npos);
  renamed.replace(algorithm_at, 20, "\"algorithm\":\"sobol\"");
  write_file(dir / "renamed.jsonl", renamed);
  const Result other = cli("run -q --resume '" + (dir / "renamed.jsonl").string() + "' --budget 8");
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("names the algorithm 'sobol' but its options are those of \"random\""), std::string::npos)
      << other.err;
  // A meta without its seed once continued with seed 0, a different run.
  std::string unseeded = slurp(trace);
  const auto seed_at = unseeded.find("\"seed\":");
  ASSERT_NE(seed_at, std::string::npos);
  unseeded.erase(seed_at, unseeded.find(',', seed_at) + 1 - seed_at);
  write_file(dir / "unseeded.jsonl", unseeded);
  const Result no_seed = cli("run -q --resume '" + (dir / "unseeded.jsonl").string() + "' --budget 8");
  EXPECT_EQ(no_seed.code, 2);
  EXPECT_NE(no_seed.err.find("has no \"seed\""), std::string::npos) << no_seed.err;
}

// Ctrl-C, and SIGTERM (a batch scheduler's or a service manager's stop; once the default action,
// which lost the summary and left --jobs' temporary study behind).
TEST_F(Cli, InterruptStopsCleanlyAndKeepsTheTrace) {
  for (const int signal : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal == SIGINT ? "SIGINT" : "SIGTERM");
    const fs::path dir = test_dir();
    const std::string tag = std::to_string(signal);
    const fs::path trace = dir / ("t" + tag + ".jsonl"), out = dir / ("out" + tag + ".txt");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      const std::string path = trace.string();
      execl(OPTIMIST_CLI_PATH, "optimist", "run", "--problem", "levy", "--dim", "2", "--algorithm", "random",
            "--budget", "100000000", "--out", path.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until the run is under way (the trace has evaluations), then press Ctrl-C.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      std::error_code ec;
      if (fs::file_size(trace, ec) > 2000 && !ec) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    kill(pid, signal);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal instead of stopping cleanly";
    EXPECT_EQ(WEXITSTATUS(status), 130);
    const auto t = optimist::read_trace(trace.string());
    EXPECT_TRUE(t.complete());
    EXPECT_GT(t.evaluations.size(), 0u);
    const std::string text = slurp(out);
    EXPECT_NE(text.find("cancelled"), std::string::npos) << text;
  }
}

// The second Ctrl-C aborts at once; the objective program (in its own process group) once outlived
// it, orphaned, and a second SIGTERM ended optimist with status 143 and no message.
TEST_F(Cli, ASecondInterruptAbortsAndKillsTheObjectiveProgram) {
  const fs::path dir = test_dir();
  write_file(dir / "space.json", R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1}]})");
  // Answers twice, then writes its pid and sleeps inside the third evaluation.
  write_file(dir / "hang.sh", "n=0; while read line; do n=$((n+1)); if [ $n -eq 3 ]; then echo $$ > pid; exec sleep 1000; fi; "
                              "echo '{\"y\": 1}'; done\n");
  for (const int signal : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal == SIGINT ? "SIGINT" : "SIGTERM");
    fs::remove(dir / "pid");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (chdir(dir.c_str()) != 0) _exit(126);
      const int fd = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execl(OPTIMIST_CLI_PATH, "optimist", "run", "--objective-command", "sh hang.sh", "--space", "space.json", "--direction",
            "minimize", "--algorithm", "random", "--budget", "5", "-q", static_cast<char*>(nullptr));
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!fs::exists(dir / "pid") && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(fs::exists(dir / "pid")) << slurp(dir / "out.txt");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the pid is written before the exec
    const pid_t child = std::stoi(slurp(dir / "pid"));
    kill(pid, signal);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(pid, signal);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal";
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_NE(slurp(dir / "out.txt").find("optimist: aborted"), std::string::npos) << slurp(dir / "out.txt");
    // The program's group was sent SIGKILL before the exit: gone, or a zombie left to init.
    const auto running = [&] {
      std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
      std::string pid_field, name, state;
      return stat >> pid_field >> name >> state && state != "Z" && state != "X";
    };
    for (int k = 0; k < 100 && running(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(running()) << "the objective program outlived the aborted run";
  }
}

// `run --jobs K` keeps its study in a folder under $TMPDIR. A run killed by SIGKILL (or the OOM
// killer) could not remove it, and every such run left one behind for ever; the next run now
// removes the folders whose owner is gone, and nothing else.
TEST_F(Cli, ARunWithJobsRemovesTheFoldersOfKilledRuns) {
  const fs::path dir = test_dir();
  const fs::path tmp = dir / "tmp";
  fs::create_directories(tmp);
  const auto folders = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  // A real run killed with SIGKILL mid-way, its objective program slow enough to be caught.
  write_file(dir / "space.json", R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1}]})");
  write_file(dir / "slow.sh", "while read line; do sleep 0.2; echo '{\"y\": 1}'; done\n");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("TMPDIR", tmp.c_str(), 1);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    const std::string space = (dir / "space.json").string(), command = "sh " + (dir / "slow.sh").string();
    execl(OPTIMIST_CLI_PATH, "optimist", "run", "--objective-command", command.c_str(), "--space", space.c_str(), "--direction",
          "minimize", "--algorithm", "random", "--budget", "1000", "--jobs", "2", "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && folders().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // under way: the study has trials
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  const std::vector<std::string> left = folders();
  ASSERT_EQ(left.size(), 1u);
  ASSERT_EQ(left[0].rfind("optimist-run-", 0), 0u) << left[0];
  EXPECT_TRUE(fs::exists(tmp / left[0] / "run.db"));
  // Folders the sweep must keep: a live run's (its lock held, here by this process), one holding a
  // file of the user's, and one of optimist before the lock (no owner.lock).
  fs::create_directories(tmp / "optimist-run-live");
  write_file(tmp / "optimist-run-live" / "owner.lock", "");
  const int live = open((tmp / "optimist-run-live" / "owner.lock").c_str(), O_RDWR);
  ASSERT_EQ(flock(live, LOCK_EX), 0);
  fs::create_directories(tmp / "optimist-run-notes");
  write_file(tmp / "optimist-run-notes" / "owner.lock", "");
  write_file(tmp / "optimist-run-notes" / "notes.txt", "mine");
  fs::create_directories(tmp / "optimist-run-old");
  write_file(tmp / "optimist-run-old" / "run.db", "");
  const std::string ok = " --problem branin --algorithm random --budget 6 --jobs 2 -q";
  const std::string env = "env TMPDIR='" + tmp.string() + "' '" + std::string(OPTIMIST_CLI_PATH) + "' run" + ok + " > /dev/null";
  ASSERT_EQ(std::system(env.c_str()), 0);
  EXPECT_EQ(folders(), (std::vector<std::string>{"optimist-run-live", "optimist-run-notes", "optimist-run-old"}));
  close(live);
}

// A trace of one's own function (Python or C++ minimize) cannot be continued by the CLI, which has
// nothing to evaluate; it answered "unknown problem '<lambda>'; valid problems: ..." (48 names).
TEST_F(Cli, ResumingARunOfYourOwnFunctionSaysWhereToContinueIt) {
  const fs::path dir = test_dir();
  const std::string trace = (dir / "mine.jsonl").string();
  optimist::MinimizeOptions o;
  o.algorithm = "random";
  o.budget = 4;
  o.trace = trace;
  o.name = "my_simulator";
  optimist::minimize([](const optimist::Vector& x) { return x.squaredNorm(); }, optimist::Space::box(2, -1.0, 1.0), o);
  const Result r = cli("run --resume '" + trace + "' --budget 8", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is a run of 'my_simulator', neither a benchmark problem ('optimist list problems') nor a command"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("minimize(..., resume='" + trace + "')"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("valid problems"), std::string::npos) << r.err;
}

// The probe of the command line (this stop): each case once ended in a crash, a hang, a wrong
// culprit or silent garbage.

// go-ucb's hidden=[1000000000] died with std::bad_alloc (exit 1).
TEST_F(Cli, HugeModelSizesAreRefusedByName) {
  Result r = cli("run --problem branin --algorithm go-ucb --budget 5 -q --set 'hidden=[1000000000]'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("option 'hidden' must be a non-empty list of layer sizes from 1 to 100000, got [1000000000]"), std::string::npos) << r.err;
  r = cli("run --problem hartmann6 --algorithm go-ucb --budget 5 -q --set model=additive --set units_per_input=1000000000");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("option 'units_per_input' must be in 1..100000, got 1000000000"), std::string::npos) << r.err;
}

// --noise 1e308 ended with "the objective failed: objective returned -inf": the noise overflowed.
TEST_F(Cli, NoiseThatOverflowsIsNamedNotBlamedOnTheObjective) {
  const Result r = cli("run --problem branin --algorithm random --budget 5 -q --noise 1e308");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the added noise overflowed: f = "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("plus noise sd 1e+308"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("objective returned"), std::string::npos) << r.err;
}

// `optimist --versoin` said "A subcommand is required"; branni, gpei and GP-EI got the whole list.
TEST_F(Cli, UnknownFlagsAndNamesGetTheClosestValidOne) {
  const std::vector<BadInput> cases = {
      {"--versoin", "unknown option '--versoin' (did you mean '--version'?)"},
      {"--frobnicate run", "unknown option '--frobnicate'; before a command optimist takes"},
      {"rnu --problem branin", "unknown command 'rnu' (did you mean 'run'?); valid commands: run, list"},
      {"run --problem branni --algorithm random --budget 5", "unknown problem 'branni' (did you mean 'branin'?); valid problems: "},
      {"run --problem Branin --algorithm random --budget 5", "(did you mean 'branin'?)"},
      {"run --problem branin --algorithm gpei --budget 5", "unknown algorithm 'gpei' (did you mean 'gp-ei'?); valid algorithms: "},
      {"run --problem branin --algorithm GP-EI --budget 5", "unknown algorithm 'GP-EI' (did you mean 'gp-ei'?)"},
      {"run --problem branin --algorithm go_ucb --budget 5", "(did you mean 'go-ucb'?)"},
      {"run --problem branin --algorithm gp-ei --budget 5 --set kernell=rbf", "unknown option 'kernell' (did you mean 'kernel'?); valid options: "},
      // Nothing close: the list alone.
      {"run --problem nosuch --algorithm random --budget 5", "unknown problem 'nosuch'; valid problems: "},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = cli(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << r.err;
  }
  EXPECT_NE(cli("run --problem branni --algorithm random --budget 5").err.find("hartmann6"), std::string::npos);  // the list stays
  EXPECT_EQ(cli("--version").code, 0);
  EXPECT_EQ(cli("--help").code, 0);
}

// `--set xi=0.1 --set xi=0.2` ran with 0.2, silently.
TEST_F(Cli, AnOptionSetTwiceIsRefused) {
  const Result r = cli("run --problem branin --algorithm gp-ei --budget 5 -q --set xi=0.1 --set xi=0.2");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("option 'xi' is set twice: --set xi=0.1 and --set xi=0.2; give it once"), std::string::npos) << r.err;
  const Result study = cli("study create --storage sqlite:///never.db --name s --problem branin --algorithm gp-ei --set xi=1 --set xi=2",
                           test_dir());
  EXPECT_EQ(study.code, 2) << study.err;
  EXPECT_NE(study.err.find("option 'xi' is set twice"), std::string::npos) << study.err;
}

// A space file's misspelled top-level key was ignored (a misspelled parameter key is refused).
TEST_F(Cli, UnknownTopLevelKeysOfASpaceFileAreRefused) {
  const fs::path dir = test_dir();
  write_file(dir / "space.json",
             "{\"parameters\": [{\"name\": \"a\", \"lower\": 0, \"upper\": 1}], \"paramters\": [{\"name\": \"b\", \"lower\": 0, \"upper\": 1}]}\n");
  const Result r = cli("run --objective-command cat --direction minimize --budget 2 -q --space space.json", dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--space: unknown top-level key 'paramters' (did you mean 'parameters'?) in the space; it takes only 'parameters'"),
            std::string::npos) << r.err;
}

// `run --config /dev/zero` read until memory ran out (~1 GB/s).
TEST_F(Cli, ConfigAndSpaceFilesAreReadUpToSixteenMebibytes) {
  const fs::path dir = test_dir();
  for (const std::string& args : {std::string("run --config /dev/zero"),
                                  std::string("run --objective-command cat --direction minimize --budget 2 --space /dev/zero"),
                                  std::string("bench --config /dev/zero --out o")}) {
    SCOPED_TRACE(args);
    const Result r = cli(args, dir);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("'/dev/zero' is larger than 16 MiB"), std::string::npos) << r.err;
  }
  // A file of 16 MiB and one byte, that is JSON: refused by its size, not parsed.
  {
    std::ofstream big(dir / "big.json");
    big << "{\"problem\": \"branin\", \"pad\": \"" << std::string((16u << 20) - 20, 'x') << "\"}";
  }
  ASSERT_GT(fs::file_size(dir / "big.json"), 16u << 20);
  const Result big = cli("run --config big.json", dir);
  EXPECT_EQ(big.code, 2) << big.err;
  EXPECT_NE(big.err.find("'big.json' is larger than 16 MiB"), std::string::npos) << big.err;
}

// An objective's answer {"y": 1, "y": 2} was recorded as y = 2.
TEST_F(Cli, AnAnswerNamingAKeyTwiceFailsTheEvaluation) {
  const fs::path dir = test_dir();
  write_file(dir / "space.json", "{\"parameters\": [{\"name\": \"a\", \"lower\": 0, \"upper\": 1}]}\n");
  write_file(dir / "twice.sh", "#!/bin/sh\nwhile read l; do echo '{\"y\": 1, \"y\": 2}'; done\n");
  fs::permissions(dir / "twice.sh", fs::perms::owner_all);
  const Result r = cli("run --objective-command ./twice.sh --space space.json --direction minimize --algorithm random --budget 1 -q", dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the key 'y' appears twice in one object"), std::string::npos) << r.err;
}

}  // namespace
