// `optimist study`, `optimist worker` and `optimist run --jobs/--storage` end to end, on every
// storage backend.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iterator>
#include <cmath>
#include <fstream>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/study/study.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using optimist::testing::run_optimist;

namespace {

class StudyCli : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url = optimist::testing::fresh_storage_url(GetParam());
    dir = optimist::testing::study_test_dir();
  }
  optimist::testing::CliRun cli(const std::string& args) { return run_optimist(args, dir); }
  // `study create` of study `name`, one continuous parameter `a` in [0, 1], minimized by `script`
  // (Python, written to `file`, default NAME.py) run as its objective command.
  optimist::testing::CliRun create_script_study(const std::string& name, const std::string& script, const std::string& flags,
                                                std::string file = "") {
    if (file.empty()) file = name + ".py";
    std::ofstream(dir / file) << script;
    std::ofstream(dir / "space.json") << R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1}]})";
    return cli("study create --storage '" + url + "' --name " + name + " --objective-command '/usr/bin/python3 " + file +
               "' --space space.json --direction minimize " + flags);
  }
  std::string url;
  std::filesystem::path dir;
};

}  // namespace

TEST_P(StudyCli, CreateWorkShowExportDelete) {
  const std::string s = "--storage '" + url + "' ";
  auto r = cli("study create " + s + "--name b --problem branin --algorithm sobol --budget 12 --seed 2");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study create " + s + "--name b --problem branin");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  r = cli("worker " + s + "--name b --budget 5 -q");  // this worker stops after 5
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5 evaluations"), std::string::npos) << r.out;
  r = cli("worker " + s + "--name b --jobs 3 -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("7 evaluations"), std::string::npos) << r.out;
  r = cli("study list " + s);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sobol"), std::string::npos) << r.out;
  r = cli("study show " + s + "--name b");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 waiting, 0 running, 12 complete, 0 failed"), std::string::npos) << r.out;
  r = cli("study export " + s + "--name b --out trace.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  const Trace trace = read_trace((dir / "trace.jsonl").string());
  EXPECT_TRUE(trace.complete());
  ASSERT_EQ(trace.evaluations.size(), 12u);
  EXPECT_EQ(trace.meta.problem, "branin");
  EXPECT_EQ(trace.meta.algorithm, "sobol");
  std::set<std::size_t> numbers;
  for (const auto& e : trace.evaluations) numbers.insert(e.at("trial").get<std::size_t>());
  EXPECT_EQ(numbers.size(), 12u);
  r = cli("study show " + s + "--name nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("it holds: 'b'"), std::string::npos) << r.err;
  r = cli("worker " + s + "--name b --problem hartmann6");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("was created with another space than --problem hartmann6 has: 'x1' is continuous [-5.0, 10.0] there, "
                       "continuous [0.0, 1.0] here; "),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'x6' is only here (there: in the study; here: in --problem hartmann6)"), std::string::npos) << r.err;
  r = cli("worker " + s + "--name b --algorithm gp-ei");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("uses algorithm 'sobol'"), std::string::npos) << r.err;
  // Refused with exit 2 and the value named. A worker cannot change the study's objective (another
  // noise, a bad one, another dimension); settings that once broke the database or let live
  // trials go stale, and flags once dropped.
  const std::string worker = "worker " + s + "--name b -q ", create = "study create " + s + "--name bad --algorithm random ";
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {worker + "--noise 0.5", "created with noise 0, not --noise 0.5"},
           {worker + "--problem branin --noise 0.5", "created with noise 0, not --noise 0.5"},
           {worker + "--noise nan", "--noise must be finite and >= 0, got nan"},
           {worker + "--dim 3", "has 2 parameters, not --dim 3"},
           {create + "--problem branin --grace inf", "--grace must be a finite number of seconds > 0, got inf"},
           {create + "--problem branin --heartbeat nan", "--heartbeat must be a finite number of seconds > 0, got nan"},
           {create + "--problem branin --heartbeat 0", "got 0"},
           {create + "--objective-command cat --space s.json --direction maximize --noise 0.1", "--noise must be absent"}}) {
    r = cli(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
  }
  r = cli("study delete " + s + "--name b");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study list " + s);
  EXPECT_NE(r.out.find("no studies"), std::string::npos) << r.out;
}

// A heartbeat close to the grace period is allowed but warned about: a beat late by the
// difference fails a live trial (an outage test with 1.8 s / 2 s failed so under ASan).
TEST(StudyCliSqlite, AHeartbeatCloseToTheGracePeriodIsWarnedAbout) {
  const auto dir = optimist::testing::study_test_dir();
  const std::string create = "study create --storage sqlite:///s.db --algorithm random --problem branin ";
  auto r = run_optimist(create + "--name tight --grace 2 --heartbeat 1.8", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: a heartbeat every 1.8 s with a grace period of 2 s leaves 0.2 s for a late beat"),
            std::string::npos)
      << r.err;
  for (const std::string settings : {"", "--grace 2 --heartbeat 1"}) {
    r = run_optimist(create + "--name ok" + std::to_string(settings.size()) + " " + settings, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << settings << ": " << r.err;
  }
}

// One job's study equals the sequential run with the same seed, noise included; --jobs K gives
// the same number of evaluations, each written to the trace.
TEST_P(StudyCli, RunWithJobsMatchesTheSequentialRun) {
  const std::string common = "run --problem branin --algorithm gp-ei --budget 14 --seed 5 --noise 0.3 -q ";
  ASSERT_EQ(cli(common + "--out seq.jsonl").code, 0);
  auto r = cli(common + "--storage '" + url + "' --study one --out one.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  const Trace seq = read_trace((dir / "seq.jsonl").string()), one = read_trace((dir / "one.jsonl").string());
  ASSERT_EQ(one.evaluations.size(), 14u);
  for (std::size_t i = 0; i < 14; ++i) {
    EXPECT_EQ(one.evaluations[i].at("x"), seq.evaluations[i].at("x")) << i;
    EXPECT_EQ(one.evaluations[i].at("y"), seq.evaluations[i].at("y")) << i;
  }
  EXPECT_EQ(one.recommend->at("x"), seq.recommend->at("x"));
  // The algorithm's diagnostics ride along as in a sequential trace (they were dropped; the
  // dashboard's diagnostics panel was empty for such a trace), here the same values.
  ASSERT_TRUE(seq.evaluations[13].contains("gp_lengthscale_geomean"));
  for (std::size_t i = 0; i < 14; ++i)
    for (const char* key : {"gp_lengthscale_geomean", "gp_noise_variance"})
      if (seq.evaluations[i].contains(key)) {
        EXPECT_EQ(one.evaluations[i].value(key, nlohmann::json()), seq.evaluations[i].at(key)) << i;
      }
  // Run again: the study is done, nothing is evaluated twice.
  r = cli(common + "--storage '" + url + "' --study one --out again.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_trace((dir / "again.jsonl").string()).evaluations.size(), 14u);
  EXPECT_EQ(Study::load(url, "one").trials().size(), 14u);
  r = cli("run --problem branin --algorithm random --budget 10 --seed 5 --storage '" + url + "' --study one -q");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("runs gp-ei"), std::string::npos) << r.err;
  // Another option: the key that differs is named (both whole option objects were printed).
  r = cli("run --problem branin --algorithm gp-ei --budget 14 --seed 5 --noise 0.3 -q --set xi=0.25 --storage '" + url + "' --study one");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("runs gp-ei with other options (xi = 0.0 there, 0.25 here)"), std::string::npos) << r.err;
  // A larger --budget continues the study (it was refused as another budget): 6 more trials, the
  // first 14 kept; a smaller one is refused, naming how to change it.
  r = cli("run --problem branin --algorithm gp-ei --budget 20 --seed 5 --noise 0.3 -q --storage '" + url + "' --study one --out more.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("budget 14 -> 20"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("20 of 20 (0 failed, the first 14 done before, read from the study)"), std::string::npos) << r.out;
  EXPECT_EQ(Study::load(url, "one").trials().size(), 20u);
  EXPECT_EQ(read_trace((dir / "more.jsonl").string()).evaluations.size(), 20u);
  r = cli("run --problem branin --algorithm gp-ei --budget 12 --seed 5 --noise 0.3 -q --storage '" + url + "' --study one");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'optimist study set --budget' changes it"), std::string::npos) << r.err;
  // A trace that cannot be written is refused before the study is created (it was left empty).
  std::filesystem::create_directories(dir / "folder");
  r = cli(common + "--storage '" + url + "' --study two --out folder");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out 'folder' is a folder"), std::string::npos) << r.err;
  EXPECT_FALSE(Storage(url).find_study("two"));
  // ... and so is a trace path a run would refuse: an unfinished trace (stop 67's probe: the empty
  // study left then refused the next run's algorithm), or a file that is not a trace.
  {
    std::ifstream in(dir / "more.jsonl");
    std::string line, unfinished;
    for (int k = 0; k < 3 && std::getline(in, line); ++k) unfinished += line + "\n";
    std::ofstream(dir / "cut.jsonl") << unfinished;
    std::ofstream(dir / "notes.txt") << "my notes\n";
  }
  for (const std::string out : {"cut.jsonl", "notes.txt"}) {
    r = cli(common + "--storage '" + url + "' --study two --out " + out);
    EXPECT_EQ(r.code, 2) << out;
    EXPECT_TRUE(r.err.find("did not finish") != std::string::npos || r.err.find("is not a trace") != std::string::npos) << r.err;
    EXPECT_FALSE(Storage(url).find_study("two")) << out;
  }
  // A run refused for its objective changes nothing, its larger budget included (it was stored).
  r = cli("run --problem branin --algorithm gp-ei --budget 30 --seed 5 --noise 0.9 -q --storage '" + url + "' --study one");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("study 'one' evaluates"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("budget 20 -> 30"), std::string::npos) << r.err;
  EXPECT_EQ(Study::load(url, "one").record().budget, std::optional<std::size_t>(20));

  r = cli("run --problem branin --algorithm random --budget 16 --seed 1 --jobs 4 -q --out par.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  const Trace par = read_trace((dir / "par.jsonl").string());
  EXPECT_EQ(par.evaluations.size(), 16u);
  EXPECT_TRUE(par.complete());

  // A study continued writes all its trials to --out. Its own earlier trace there is rewritten (every
  // evaluation in it is one of the study's trials); another run's trace is met as a new run meets it:
  // refused when unfinished, kept as NAME.1.jsonl when it holds paid evaluations (both were written
  // over). Marked as a user's objective so that keeping it is what a new run would do.
  auto mark_paid = [&](const std::string& name, std::size_t keep_lines) {
    std::ifstream in(dir / name);
    std::string line, text;
    for (std::size_t k = 0; k < keep_lines && std::getline(in, line); ++k) {
      if (k == 0) {
        nlohmann::json meta = nlohmann::json::parse(line);
        meta["meta"]["user_objective"] = true;
        line = meta.dump();
      }
      text += line + "\n";
    }
    in.close();
    std::ofstream(dir / name, std::ios::trunc) << text;
  };
  mark_paid("more.jsonl", 1000);
  mark_paid("par.jsonl", 1000);
  const std::string again = "run --problem branin --algorithm gp-ei --budget 20 --seed 5 --noise 0.3 -q --storage '" + url + "' --study one";
  r = cli(again + " --out more.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "more.1.jsonl"));
  EXPECT_EQ(read_trace((dir / "more.jsonl").string()).evaluations.size(), 20u);
  r = cli(again + " --out par.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("par.1.jsonl"), std::string::npos) << r.err;
  ASSERT_TRUE(std::filesystem::exists(dir / "par.1.jsonl"));
  EXPECT_EQ(read_trace((dir / "par.1.jsonl").string()).evaluations, par.evaluations);
  EXPECT_EQ(read_trace((dir / "par.jsonl").string()).evaluations.size(), 20u);
  mark_paid("par.1.jsonl", 4);  // unfinished: 3 of its 16 evaluations
  r = cli(again + " --out par.1.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did not finish"), std::string::npos) << r.err;
  EXPECT_EQ(read_trace((dir / "par.1.jsonl").string()).evaluations.size(), 3u);
}

// A study's stored --objective-timeout holds for a worker that names the command (the documented
// way to start one): it was dropped, and a hung objective held its trial running for ever.
TEST_P(StudyCli, AWorkerNamingTheCommandKeepsTheStudysTimeout) {
  const std::string s = "--storage '" + url + "' ";
  auto r = create_script_study("slow",
                               "import json, sys, time\n"
                               "for line in sys.stdin:\n"
                               "    x = json.loads(line)['x']\n"
                               "    time.sleep(30 if x[0] > 0.5 else 0)\n"
                               "    print(json.dumps({'y': x[0]}), flush=True)\n",
                               "--budget 6 --algorithm sobol --objective-timeout 1");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto start = std::chrono::steady_clock::now();
  r = cli("worker " + s + "--name slow -q --objective-command '/usr/bin/python3  slow.py'");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("was created with the objective command '/usr/bin/python3 slow.py'; this worker runs"), std::string::npos)
      << r.err;
  std::size_t timed_out = 0;
  for (const auto& t : Study::load(url, "slow").trials()) {
    if (t.x[0] > 0.5) {
      EXPECT_EQ(t.state, TrialState::Failed) << t.x[0];
      timed_out += 1;
    } else {
      EXPECT_EQ(t.state, TrialState::Complete) << t.x[0];
    }
  }
  EXPECT_GE(timed_out, 1u);  // a Sobol design of 6 points: half of them past 0.5
  EXPECT_LT(seconds, 25.0);  // timeouts of 1 s, not waits of 30 s
}

// --jobs K with --objective-command: K child processes evaluate at the same time.
TEST_P(StudyCli, WorkerJobsRunOneChildEach) {
  const std::string s = "--storage '" + url + "' ";
  auto r = create_script_study("ext",
                               "import json, os, sys, time\n"
                               "for line in sys.stdin:\n"
                               "    x = json.loads(line)['x']\n"
                               "    time.sleep(0.05)\n"
                               "    print(json.dumps({'y': (x[0] - 0.3) ** 2}), flush=True)\n"
                               "    open('pids.txt', 'a').write(str(os.getpid()) + '\\n')\n",
                               "--budget 12", "obj.py");
  ASSERT_EQ(r.code, 0) << r.err;
  // The command stored in the study runs only when named or confirmed (docs/security.md).
  r = cli("worker " + s + "--name ext --jobs 3 -q");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'/usr/bin/python3 obj.py'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--trust-command"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "pids.txt"));
  r = cli("worker " + s + "--name ext --jobs 3 -q --trust-command");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("running the objective command stored in study 'ext' (--trust-command): /usr/bin/python3 obj.py"),
            std::string::npos) << r.err;
  std::ifstream pids(dir / "pids.txt");
  std::set<std::string> distinct;
  std::size_t lines = 0;
  for (std::string p; std::getline(pids, p); ++lines) distinct.insert(p);
  EXPECT_EQ(lines, 12u);
  EXPECT_EQ(distinct.size(), 3u);
  const auto trials = Study::load(url, "ext").trials();
  ASSERT_EQ(trials.size(), 12u);
  for (const auto& t : trials) EXPECT_EQ(t.state, TrialState::Complete);

  // The recommended point was evaluated: the export and a run with --jobs give its observed value
  // with it (docs/trace-format.md), as a sequential run does; they wrote null.
  const auto observed_at_recommendation = [](const Trace& t) {
    if (!t.recommend || !t.recommend->at("f").is_number()) return false;
    for (const auto& e : t.evaluations)
      if (e.at("x") == t.recommend->at("x") && e.at("y") == t.recommend->at("f")) return true;
    return false;
  };
  r = cli("study export " + s + "--name ext --out ext.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(observed_at_recommendation(read_trace((dir / "ext.jsonl").string())));
  r = cli("run --objective-command '/usr/bin/python3 obj.py' --space space.json --direction minimize --algorithm random "
          "--budget 6 --jobs 2 -q --out jobs.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("f = "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("f = n/a"), std::string::npos) << r.out;
  EXPECT_TRUE(observed_at_recommendation(read_trace((dir / "jobs.jsonl").string())));
}

// A deterministic study that evaluated every point of its finite space is done: its export is a
// complete trace that says so (it had no recommend line, so it read as an unfinished run).
TEST_P(StudyCli, AStudyThatUsedUpItsFiniteSpaceExportsComplete) {
  const std::string s = "--storage '" + url + "' ";
  auto r = cli("study create " + s + "--name cat --problem cat_pair --algorithm random --budget 30 --seed 1");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("worker " + s + "--name cat --jobs 2 -q");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study export " + s + "--name cat --out cat.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  const Trace t = read_trace((dir / "cat.jsonl").string());
  EXPECT_EQ(t.evaluations.size(), 20u);
  ASSERT_TRUE(t.complete());
  EXPECT_EQ(t.recommend->at("stop_reason"), "space exhausted");
  EXPECT_TRUE(t.recommend->at("f").is_number());
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyCli, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Study names are values of parameterized queries and text on a terminal: SQL in a name is just a
// name, and control characters are shown escaped (docs/security.md).
TEST_P(StudyCli, HostileStudyNamesAreJustNames) {
  const std::string s = "--storage '" + url + "' ";
  auto r = cli("study create " + s + "--name keep --problem branin --budget 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string sql = "x'\"'\"'); DROP TABLE studies; --";  // x'); DROP TABLE studies; --
  r = cli("study create " + s + "--name '" + sql + "' --problem branin --budget 2");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study create " + s + "--name \"$(printf 'esc\\033[2Jé名')\" --problem branin --budget 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("esc\\x1b[2Jé名"), std::string::npos) << r.out;
  r = cli("study list " + s);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("x'); DROP TABLE studies; --"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("keep"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << "a control character reached the terminal";
  // A missing study's message lists the names as `study list` shows them, a long one cut.
  r = cli("study create " + s + "--name " + std::string(300, 'L') + " --problem branin --budget 2");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study show " + s + "--name nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'esc\\x1b[2Jé名'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'" + std::string(77, 'L') + "...'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(std::string(78, 'L')), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\033'), std::string::npos);
  ASSERT_EQ(cli("study delete " + s + "--name " + std::string(300, 'L')).code, 0);
  r = cli("worker " + s + "--name '" + sql + "' -q");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study export " + s + "--name '" + sql + "' --out sql.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_trace((dir / "sql.jsonl").string()).evaluations.size(), 2u);
  r = cli("study delete " + s + "--name '" + sql + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto left = Storage(url).list_studies();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].study.name, "esc\033[2Jé名");
  EXPECT_EQ(left[1].study.name, "keep");
  r = cli("study show " + s + "--name \"$(printf 'esc\\033[2Jé名')\"");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << r.out;
}

// A password in a storage URL is never printed.
TEST(StudyCliSqlite, PasswordsInUrlsAreNeverShown) {
  const auto dir = optimist::testing::study_test_dir();
  const auto r = run_optimist("study list --storage 'postgresql://bob:s3cr3t-pw@127.0.0.1:1/none?connect_timeout=1'", dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ((r.out + r.err).find("s3cr3t-pw"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bob:***@127.0.0.1:1"), std::string::npos) << r.err;
  const auto bad = run_optimist("study list --storage 'mysql://root:hunter2@db/x'", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.find("hunter2"), std::string::npos) << bad.err;
  EXPECT_EQ(optimist::redact_url("postgresql://u@h/d?sslmode=require&password=p4ss&x=1"),
            "postgresql://u@h/d?sslmode=require&password=***&x=1");
  // A raw '@' in a password: hidden whole, and refused with how to write it (libpq read the rest as the host).
  EXPECT_EQ(optimist::redact_url("postgresql://u?:se@cret@h/d"), "postgresql://u?:***@h/d");
  const auto at = run_optimist("study list --storage 'postgresql://pw:a@bPW@127.0.0.1:1/studies'", dir);
  EXPECT_EQ(at.code, 2);
  EXPECT_EQ(at.err.find("bPW"), std::string::npos) << at.err;
  EXPECT_NE(at.err.find("an '@' in the user name, password or database name must be written %40"), std::string::npos) << at.err;
  // A raw '/' in a password (base64 passwords have them): libpq ends the user info there, and the
  // message printed the password (stop 68's probe); and a raw '@' after one showed half of it.
  for (const std::string password : {"top/secret", "top@sec/ret", "p@ss:w/rd", "a/b==", "x?y/z"}) {
    const std::string bad_url = "postgresql://pwuser:" + password + "@127.0.0.1:1/pwdb";
    EXPECT_EQ(optimist::redact_url(bad_url), "postgresql://pwuser:***@127.0.0.1:1/pwdb") << password;
    const auto slash = run_optimist("study list --storage '" + bad_url + "'", dir);
    EXPECT_EQ(slash.code, 2) << password;
    for (const std::string part : {"secret", "sec/", "ret@", "ss:w", "w/rd", "b==", "y/z"}) {
      if (password.find(part) != std::string::npos) {
        EXPECT_EQ(slash.err.find(part), std::string::npos) << password << ": " << slash.err;
      }
    }
    EXPECT_TRUE(slash.err.find("must be written %2F") != std::string::npos || slash.err.find("must be written %40") != std::string::npos)
        << slash.err;
  }
  EXPECT_EQ(optimist::redact_url("postgresql://h/db?application_name=x@y"), "postgresql://h/db?application_name=x@y");
  // An '@' in a parameter's value is not the user info's.
  EXPECT_EQ(optimist::redact_url("postgresql://u:p@h?application_name=x@y"), "postgresql://u:***@h?application_name=x@y");
  const auto param = run_optimist("study list --storage 'postgresql://u:p@127.0.0.1:1?application_name=x@y&connect_timeout=1'", dir);
  EXPECT_EQ(param.code, 2);
  EXPECT_NE(param.err.find("cannot connect to PostgreSQL"), std::string::npos) << param.err;
  // A libpq key=value connection string: its password hidden too.
  const auto kv = run_optimist("study list --storage 'host=127.0.0.1 port=1 user=pw password=kvSECRET dbname=studies'", dir);
  EXPECT_EQ(kv.code, 2);
  EXPECT_EQ(kv.err.find("kvSECRET"), std::string::npos) << kv.err;
  EXPECT_NE(kv.err.find("password=*** dbname=studies"), std::string::npos) << kv.err;
  EXPECT_EQ(optimist::redact_url("host=h password = 'it\\'s x' user=u"), "host=h password = *** user=u");
  EXPECT_EQ(optimist::redact_url("host=h mypassword=x"), "host=h mypassword=x");  // another key, not a password
}

// `study show` says what `auto` (the default algorithm) chose for the study and why.
TEST(StudyCliSqlite, ShowSaysWhatAutoChose) {
  const auto dir = optimist::testing::study_test_dir();
  ASSERT_EQ(run_optimist("study create --storage sqlite:///s.db --name a --problem branin --budget 20", dir).code, 0);
  const auto r = run_optimist("study show --storage sqlite:///s.db --name a", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("algorithm  auto"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chose      gp-ei {}: 2 parameters (2 continuous"), std::string::npos) << r.out;
  // What gp-ei's mean: auto, output_warp: auto and prior: auto became.
  EXPECT_NE(r.out.find("auto opts  {\"mean\":\"worst-unwarped\",\"mean_margin\":0.0,\"output_warp\":\"alternate\",\"prior\":\"botorch\",\"rotation\":\"angles\"}"),
            std::string::npos)
      << r.out;
}

// `study show` says when every completed trial has the same value (equal_values_note, as
// `optimist run`'s summary): gp-ei's first six points on plateau_ridge all miss its ridges (seed 0).
TEST(StudyCliSqlite, ShowNotesThatEveryValueWasTheSame) {
  const auto dir = optimist::testing::study_test_dir();
  const std::string s = "--storage sqlite:///s.db --name p ";
  ASSERT_EQ(run_optimist("study create " + s + "--problem plateau_ridge --algorithm gp-ei --budget 6 --seed 0", dir).code, 0);
  const auto before = run_optimist("study show " + s, dir);
  ASSERT_EQ(before.code, 0) << before.err;
  EXPECT_EQ(before.out.find("note"), std::string::npos) << before.out;  // no trial yet
  ASSERT_EQ(run_optimist("worker " + s + "-q", dir).code, 0);
  const auto r = run_optimist("study show " + s, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note       every one of the 6 values was 0: the points tried all fell on a plateau"), std::string::npos)
      << r.out;
}

// `study show` prints the algorithm's answer (Study::recommend with its value, as the summary of
// `optimist run` and the recommend line of `study export`) apart from the best trial: with noise
// they differ (StoSOO answers with its most evaluated leaf; the best observation is a lucky draw).
// Before, show printed only the best trial.
TEST(StudyCliSqlite, ShowPrintsTheRecommendationApartFromTheBestTrial) {
  const auto dir = optimist::testing::study_test_dir();
  const std::string s = "--storage sqlite:///s.db --name n ";
  ASSERT_EQ(run_optimist("study create " + s + "--problem branin --noise 20 --algorithm stosoo --budget 30 --seed 1", dir).code, 0);
  auto r = run_optimist("worker " + s + "-q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  Study study = Study::load("sqlite:///" + (dir / "s.db").string(), "n");
  const auto x = study.recommend();
  const auto best = study.best();
  ASSERT_TRUE(x && best);
  ASSERT_FALSE(*x == best->x) << "the test's setting: the answer is not the luckiest draw";
  r = run_optimist("study show " + s, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\nbest       "), std::string::npos) << r.out;
  const auto at = r.out.find("\nrecommended ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  const auto f = line.find("f = ");
  ASSERT_NE(f, std::string::npos) << line;
  const double fx = make_problem("branin").f(*x);  // the noise-free value there, as `optimist run` says
  EXPECT_NEAR(std::stod(line.substr(f + 4)), fx, 1e-6 * (1.0 + std::abs(fx))) << line;
  EXPECT_NE(line.find("(noise-free)"), std::string::npos) << line;
  EXPECT_NE(line.find("not the best trial's point"), std::string::npos) << line;
  // Without a successful trial there is no answer, and no line.
  ASSERT_EQ(run_optimist("study create " + s.substr(0, s.find("--name")) + "--name e --problem branin --budget 3", dir).code, 0);
  r = run_optimist("study show --storage sqlite:///s.db --name e", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("recommended"), std::string::npos) << r.out;
}

// Reading commands on a missing SQLite file: an error, not a fresh empty database (a mistyped
// path once read as "no studies" and left the file behind).
TEST(StudyCliSqlite, MissingDatabaseIsAnErrorAndNotCreated) {
  const auto dir = optimist::testing::study_test_dir();
  for (const std::string command : {"study list", "study show --name s", "study export --name s --out t.jsonl",
                                    "study delete --name s", "worker --name s -q"}) {
    const auto r = run_optimist(command + " --storage sqlite:///missing.db", dir);
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("no study database at 'missing.db'"), std::string::npos) << command << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "missing.db")) << command;
  }
  // Another kind of file is the user's mistake too (exit 2), and is left as it was.
  const std::string notes(4096, 'n');
  { std::ofstream(dir / "notes.txt") << notes; }
  const auto r = run_optimist("study list --storage sqlite:///notes.txt", dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("'notes.txt' is not a SQLite database"), std::string::npos) << r.err;
  EXPECT_EQ(std::filesystem::file_size(dir / "notes.txt"), notes.size());
}

// Flags that `run` refuses as ignored were taken silently by `study create` and `worker`: a
// study asked to maximize branin minimized it; a worker evaluated a command into a problem's study.
TEST(StudyCliSqlite, FlagsThatWouldBeIgnoredAreRefused) {
  const auto dir = optimist::testing::study_test_dir();
  { std::ofstream(dir / "space.toml") << "[[parameters]]\nname = \"x\"\ntype = \"continuous\"\nlower = 0\nupper = 1\n"; }
  const std::string storage = " --storage sqlite:///s.db";
  ASSERT_EQ(run_optimist("study create --name br --problem branin --budget 3" + storage, dir).code, 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"study create --name a --problem branin --direction maximize", "--direction must be given only with --objective-command"},
      {"study create --name a --problem branin --space space.toml", "--space must be given only with --objective-command"},
      {"study create --name a --objective-command '' --space space.toml --direction minimize",
       "--objective-command must be a non-empty command"},
      {"worker --name br -q --objective-command 'python3 f.py'", "study 'br' evaluates problem 'branin', not --objective-command"},
      {"worker --name br -q --direction maximize", "study 'br' is to minimize, not --direction maximize"},
      {"worker --name br -q --direction sideways", "unknown direction 'sideways'"},
      // Stored as null, an infinite timeout made every worker fail with a JSON type error.
      {"study create --name a --objective-command 'python3 f.py' --space space.toml --direction minimize --objective-timeout inf",
       "--objective-timeout must be a positive number of seconds, got inf"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_optimist(args + storage, dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
  const auto list = run_optimist("study list" + storage, dir);
  EXPECT_EQ(list.out.find("\na "), std::string::npos) << list.out;  // nothing was created
  EXPECT_EQ(run_optimist("worker --name br -q --direction minimize" + storage, dir).code, 0);
}

// list, show, export and the dashboard only read: they created the study tables in another
// application's database, and waited for (up to the retry time) any writer's lock.
TEST(StudyCliSqlite, ReadingCommandsNeitherWriteNorWait) {
  const auto dir = optimist::testing::study_test_dir();
  const auto exec = [](sqlite3* db, const char* sql) { ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql; };
  const auto tables = [&](const std::string& file) {
    sqlite3* db = nullptr;
    sqlite3_open((dir / file).c_str(), &db);
    std::size_t n = 0;
    sqlite3_exec(db, "SELECT name FROM sqlite_master WHERE type = 'table'", [](void* count, int, char**, char**) {
      ++*static_cast<std::size_t*>(count);
      return 0;
    }, &n, nullptr);
    sqlite3_close(db);
    return n;
  };
  {
    sqlite3* other = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "other.db").c_str(), &other), SQLITE_OK);
    exec(other, "CREATE TABLE notes (text TEXT)");
    sqlite3_close(other);
  }
  for (const std::string command : {"study list", "study show --name s", "study export --name s --out t.jsonl"}) {
    const auto r = run_optimist(command + " --storage sqlite:///other.db", dir);
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("holds no optimist studies"), std::string::npos) << command << ": " << r.err;
  }
  EXPECT_EQ(tables("other.db"), 1u);  // only its own table

  const std::string storage = " --storage sqlite:///s.db";
  ASSERT_EQ(run_optimist("study create --name s --problem branin --budget 3" + storage, dir).code, 0);
  ASSERT_EQ(run_optimist("worker --name s -q" + storage, dir).code, 0);
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "s.db").c_str(), &writer), SQLITE_OK);
  exec(writer, "BEGIN IMMEDIATE");  // a worker's write transaction, held
  for (const std::string command : {"study list", "study show --name s", "study export --name s --out t.jsonl"}) {
    const auto r = run_optimist(command + storage, dir);
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
  }
  exec(writer, "ROLLBACK");
  sqlite3_close(writer);
  EXPECT_EQ(optimist::read_trace((dir / "t.jsonl").string()).evaluations.size(), 3u);
}

// A study outlives a changed default: the options a run leaves out continue as the study stored
// them (a study stored by an older version, which lacks an option added since or stored another
// default, was refused as run "with other options" and could only be abandoned); an option the run
// names must still be the study's.
TEST(StudyCliSqlite, OptionsLeftOutContinueAsTheStudyStoredThem) {
  const auto dir = optimist::testing::study_test_dir();
  const std::string run = "run --problem branin --algorithm gp-pi --seed 3 -q --storage sqlite:///s.db --study s ";
  auto r = run_optimist(run + "--budget 6 --set xi=0.25", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // What an older version stored: no `raw_samples` (as if added since), and another `restarts`.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "s.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE studies SET options = json_set(json_remove(options, '$.raw_samples'), '$.restarts', 3)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  r = run_optimist(run + "--budget 9 --out more.jsonl", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(optimist::Study::load("sqlite:///" + (dir / "s.db").string(), "s").trials().size(), 9u);
  const nlohmann::json options = optimist::read_trace((dir / "more.jsonl").string()).meta.options;
  EXPECT_EQ(options.at("xi"), 0.25) << options;
  EXPECT_EQ(options.at("restarts"), 3) << options;
  // Named, and the same as stored (or today's default for a key the study lacks): continued.
  r = run_optimist(run + "--budget 10 --set xi=0.25 --set restarts=3 --set raw_samples=512", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // Named and different: refused, naming the option, the stored value and this run's.
  r = run_optimist(run + "--budget 11 --set restarts=10", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("runs gp-pi with other options (restarts = 3 there, 10 here)"), std::string::npos) << r.err;
  // Stored options today's version refuses are named as such (not as this run's mistake).
  ASSERT_EQ(sqlite3_open((dir / "s.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE studies SET options = json_set(options, '$.retired', 1)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  r = run_optimist(run + "--budget 11", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("its stored options no longer apply: gp-pi: unknown option 'retired'"), std::string::npos) << r.err;
}

// A worker left waiting for a dead worker's trial (the budget taken) says so once the wait is
// long: it may last the whole grace period (60 s of silence under -q before stop 60).
TEST(StudyCliSqlite, ALongWaitForAnotherWorkersTrialIsSaid) {
  const auto dir = optimist::testing::study_test_dir();
  ASSERT_EQ(run_optimist("study create --storage sqlite:///s.db --name w --problem branin --algorithm random "
                         "--budget 3 --grace 3 --heartbeat 1",
                         dir)
                .code,
            0);
  StudyOptions silent;
  silent.heartbeat_thread = false;  // a worker that died holding its trial
  Study dead = Study::load("sqlite:///" + (dir / "s.db").string(), "w", silent);
  ASSERT_TRUE(dead.ask());
  const auto r = run_optimist("worker --storage sqlite:///s.db --name w -q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("waiting for 1 trial(s) running elsewhere (one whose worker died is failed as stale 3 s"),
            std::string::npos)
      << r.err;
  std::size_t complete = 0;
  for (const auto& t : Study::load("sqlite:///" + (dir / "s.db").string(), "w").trials()) complete += t.state == TrialState::Complete;
  EXPECT_EQ(complete, 3u);  // the dead worker's point evaluated here after the grace period
}

// A run with evaluations in flight, killed, continues from its trace with as many in flight (the
// trace's "jobs", or --jobs): the trace's evaluations become the study's first trials, none is
// evaluated again. A sequential trace continues with --jobs likewise.
TEST(StudyCliSqlite, ARunWithJobsResumesFromItsTraceWithJobs) {
  const auto dir = optimist::testing::study_test_dir();
  auto r = run_optimist("run --problem branin --algorithm gp-ei --budget 10 --seed 3 --jobs 3 -q --out t.jsonl", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("budget (budget of 10 evaluations used)"), std::string::npos) << r.out;  // as without --jobs
  std::vector<std::string> lines;
  {
    std::ifstream in(dir / "t.jsonl");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 12u);  // meta, 10 evaluations, recommend
  {
    // Killed while writing the 8th evaluation.
    std::ofstream out(dir / "t.jsonl", std::ios::trunc);
    for (std::size_t i = 0; i < 8; ++i) out << lines[i] << "\n";
    out << lines[8].substr(0, lines[8].size() / 2);
  }
  r = run_optimist("run --resume t.jsonl --budget 14 -q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("the first 7 resumed from the trace"), std::string::npos) << r.out;
  const Trace resumed = read_trace((dir / "t.jsonl").string());
  ASSERT_TRUE(resumed.complete());
  ASSERT_EQ(resumed.evaluations.size(), 14u);
  EXPECT_EQ(resumed.meta.run.at("jobs"), 3);
  EXPECT_EQ(resumed.meta.run.at("resumed_after"), nlohmann::json::array({7}));
  std::set<std::vector<double>> points;
  for (std::size_t i = 0; i < 14; ++i) {
    const auto& e = resumed.evaluations[i];
    EXPECT_EQ(e.at("i"), i + 1);
    if (i < 7) EXPECT_EQ(e, nlohmann::json::parse(lines[i + 1])) << i;  // kept as written
    else EXPECT_GE(e.at("trial").get<std::size_t>(), 7u) << i;      // asked by the continued study
    points.insert(e.at("x").get<std::vector<double>>());
  }
  EXPECT_EQ(points.size(), 14u);  // nothing evaluated twice

  ASSERT_EQ(run_optimist("run --problem branin --algorithm random --budget 6 --seed 3 -q --out s.jsonl", dir).code, 0);
  r = run_optimist("run --resume s.jsonl --budget 10 --jobs 2 -q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const Trace sequential = read_trace((dir / "s.jsonl").string());
  ASSERT_EQ(sequential.evaluations.size(), 10u);
  EXPECT_EQ(sequential.meta.run.at("jobs"), 2);
  EXPECT_FALSE(sequential.evaluations[5].contains("trial"));
  EXPECT_TRUE(sequential.evaluations[6].contains("trial"));

  r = run_optimist("run --resume s.jsonl --storage sqlite:///x.db -q", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--resume cannot be combined with --storage"), std::string::npos) << r.err;
}

// SQLite's side files (-shm, -wal) take the database's mode, and their creator's ownership, when a
// reader creates them (stop 68's probe): a `study list` run while the file was read-only left a
// read-only -shm that refused the owner's writers after the file was writable again ("give it
// write permission": it had it); one another user's reader created made the same message point at
// the wrong file. Its own side file is made writable; another user's is named with its owner.
// Needs two users: run as root, with `nobody` as the study's owner and `daemon` as the other reader.
TEST(StudyCliSqlite, SideFilesLeftByAReaderDoNotLockTheWritersOut) {
  const std::string can = "command -v runuser > /dev/null && id daemon > /dev/null && id nobody > /dev/null && "
                          "runuser -u nobody -- '" + std::string(OPTIMIST_CLI_PATH) + "' --version > /dev/null 2>&1";
  if (::geteuid() != 0 || std::system(can.c_str()) != 0)
    GTEST_SKIP() << "needs root, runuser, and the users nobody and daemon able to run the build's optimist";
  const auto dir = optimist::testing::study_test_dir();
  std::filesystem::permissions(dir, std::filesystem::perms::all);
  const std::string as_nobody = "runuser -u nobody -- '" + std::string(OPTIMIST_CLI_PATH) + "' ";
  auto sh = [&](const std::string& command) {
    const std::string full = "cd '" + dir.string() + "' && " + command + " > out.txt 2> err.txt";
    const int status = std::system(full.c_str());
    std::ifstream in(dir / "err.txt");
    std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, err);
  };
  const std::string s = "--storage sqlite:///" + (dir / "r.db").string() + " ";
  auto r = sh(as_nobody + "study create " + s + "--name s --problem branin --algorithm random --budget 5");
  ASSERT_EQ(r.first, 0) << r.second;
  // One user: the file made read-only, read, made writable again.
  ASSERT_EQ(sh("chmod 444 r.db && " + as_nobody + "study list " + s).first, 0);
  ASSERT_TRUE(std::filesystem::exists(dir / "r.db-shm"));
  r = sh("chmod 644 r.db && " + as_nobody + "study ask " + s + "--name s --format json");
  EXPECT_EQ(r.first, 0) << r.second;
  // Another user's reader: its side files are named with their owner.
  // (Not root: SQLite gives root's side files to the database's owner.)
  ASSERT_EQ(sh("runuser -u daemon -- '" + std::string(OPTIMIST_CLI_PATH) + "' study list " + s + " && ls -l r.db-shm").first, 0);
  r = sh(as_nobody + "study ask " + s + "--name s --format json");
  EXPECT_EQ(r.first, 2) << r.second;
  EXPECT_NE(r.second.find("r.db-shm' is not writable for this user (it belongs to daemon"), std::string::npos) << r.second;
}

// A killed worker's trial is shown as such by `study show` (it looked alive until the next ask:
// stop 68's probe saw trials "running" 25 minutes after their worker died).
TEST_P(StudyCli, ShowSaysWhenARunningTrialsWorkerStoppedBeating) {
  std::ofstream(dir / "hang_show.py") << "import sys, time\nfor line in sys.stdin:\n    time.sleep(600)\n";
  std::ofstream(dir / "space.json") << R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1}]})";
  const std::string s = "--storage '" + url + "' ";
  auto r = cli("study create " + s + "--name h --objective-command '/usr/bin/python3 " + (dir / "hang_show.py").string() + "' --space space.json "
               "--direction minimize --budget 3 --grace 1 --heartbeat 0.5");
  ASSERT_EQ(r.code, 0) << r.err;
  {
    optimist::testing::Process worker(std::string(OPTIMIST_CLI_PATH) + " worker " + s + "--name h -q --trust-command", dir, "hang");
    const auto t0 = std::chrono::steady_clock::now();
    while (Study::load(url, "h").trials().empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    worker.kill9();
    (void)worker.wait();
  }
  // kill -9 leaves the objective program running (docs/reliability.md): ended here.
  (void)std::system(("pkill -f '" + (dir / "hang_show.py").string() + "' > /dev/null 2>&1").c_str());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  r = cli("study show " + s + "--name h");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(no heartbeat for "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("its worker stopped; failed as stale by the next ask)"), std::string::npos) << r.out;
}
