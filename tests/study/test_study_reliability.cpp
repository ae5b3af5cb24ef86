// Reliability with real processes and real kills (issue 19). Default sizes keep the suite fast;
// OPTIMIST_STUDY_FULL=1 runs the full sizes (8 workers x 500 trials, 300 kills during commits).
#include <gtest/gtest.h>

#include <csignal>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "optimist/study/study.hpp"
#include "sanitizer_build.hpp"
#include "study/database.hpp"
#include "study/postgres_server.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using namespace optimist::testing;
namespace fs = std::filesystem;

namespace {

// The objective: y = sum (x_i - 0.3)^2, each evaluation logged as "x0 x1 y" (shortest repr:
// exact) in evals.<pid>.log before it is answered; SLEEP seconds per evaluation; with HANG set,
// the first evaluation sleeps until the parent worker dies.
constexpr const char* kObjective = R"(import json, os, sys, time
sleep = float(os.environ.get('SLEEP', '0'))
parent = os.getppid()
log = open('evals.%d.log' % os.getpid(), 'a')
for line in sys.stdin:
    x = json.loads(line)['x']
    if os.environ.get('HANG'):
        while os.getppid() == parent:
            time.sleep(0.05)
        sys.exit(0)
    time.sleep(sleep)
    y = sum((v - 0.3) ** 2 for v in x)
    log.write('%r %r %r\n' % (x[0], x[1], y))
    log.flush()
    print(json.dumps({'y': y}), flush=True)
)";

constexpr const char* kSpace =
    R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1},
                       {"name": "b", "type": "continuous", "lower": 0, "upper": 1}]})";

class Reliability : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url = fresh_storage_url(GetParam());
    dir = study_test_dir();
    std::ofstream(dir / "obj.py") << kObjective;
    std::ofstream(dir / "space.json") << kSpace;
  }
  void create(const std::string& name, std::size_t budget, const std::string& extra = "") {
    const auto r = run_optimist("study create --storage '" + url + "' --name " + name +
                                    " --objective-command '/usr/bin/python3 obj.py' --space space.json --direction minimize "
                                    "--algorithm random --budget " + std::to_string(budget) + " " + extra,
                                dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  std::string worker(const std::string& name, const std::string& extra = "") const {
    return std::string(OPTIMIST_CLI_PATH) + " worker --storage '" + url + "' --name " + name + " -q --trust-command " + extra;
  }
  // Every evaluation the objective processes logged: (a, b) -> y, and how many times each point was evaluated.
  std::map<std::pair<double, double>, std::vector<double>> logged() const {
    std::map<std::pair<double, double>, std::vector<double>> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().rfind("evals.", 0) != 0) continue;
      std::ifstream in(e.path());
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream ls(line);
        double a, b, y;
        if (ls >> a >> b >> y) out[{a, b}].push_back(y);
      }
    }
    return out;
  }
  // The study's final history equals the set of logged evaluations: every trial number 0..n-1
  // once, every complete trial's value logged at its point, every logged evaluation in the study.
  void expect_history_equals_log(const std::string& name, std::size_t budget) {
    const auto trials = Study::load(url, name).trials();
    const auto log = logged();
    std::size_t complete = 0;
    std::set<std::pair<double, double>> seen;
    for (std::size_t i = 0; i < trials.size(); ++i) {
      ASSERT_EQ(trials[i].number, i);
      const auto& t = trials[i];
      if (t.state != TrialState::Complete) {
        EXPECT_TRUE(t.state == TrialState::Failed && t.stale) << "trial " << i << " is " << to_string(t.state);
        continue;
      }
      ++complete;
      const std::pair<double, double> key{t.x[0], t.x[1]};
      const auto it = log.find(key);
      ASSERT_NE(it, log.end()) << "trial " << i << " was never evaluated";
      EXPECT_EQ(it->second.front(), *t.value) << "trial " << i;
      EXPECT_TRUE(seen.insert(key).second) << "point of trial " << i << " is complete twice";
    }
    EXPECT_EQ(complete, budget);
    for (const auto& [point, ys] : log) {
      EXPECT_TRUE(seen.count(point)) << "a logged evaluation is missing from the study";
      EXPECT_EQ(ys.size(), 1u) << "a point was evaluated " << ys.size() << " times";
    }
  }
  std::string url;
  fs::path dir;
};

void wait_until(const std::function<bool()>& done, double seconds, const std::string& what) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) FAIL() << "timed out waiting for " << what;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A study of kSpace evaluated by `script` (Python, written to dir/name.py) with random search.
void create_script_study(const std::string& url, const fs::path& dir, const std::string& name, const std::string& script) {
  std::ofstream(dir / (name + ".py")) << script;
  std::ofstream(dir / "space.json") << kSpace;
  const auto r = run_optimist("study create --storage '" + url + "' --name " + name + " --objective-command '/usr/bin/python3 " +
                                  name + ".py' --space space.json --direction minimize --algorithm random --budget 3",
                              dir);
  ASSERT_EQ(r.code, 0) << r.err;
}

}  // namespace

// 8 worker processes share one study: trial numbers unique and dense, no point evaluated twice,
// no told value lost, the history equal to what the workers evaluated.
TEST_P(Reliability, ManyWorkerProcessesLoseNothing) {
  const std::size_t workers = 8, per_worker = full_size_reliability() ? 500 : 15;
  create("many", workers * per_worker);
  std::vector<std::unique_ptr<Process>> procs;
  for (std::size_t w = 0; w < workers; ++w)
    procs.push_back(std::make_unique<Process>(worker("many"), dir, "worker" + std::to_string(w)));
  for (auto& p : procs) ASSERT_EQ(p->wait(), 0) << p->err();
  expect_history_equals_log("many", workers * per_worker);
}

// kill -9 in the middle of an evaluation: the trial goes stale after the grace period and is
// re-queued, the other workers go on, a restarted worker continues, no told value is lost.
TEST_P(Reliability, KilledWorkerTrialIsRequeuedAndNothingIsLost) {
  const std::size_t budget = 20;
  create("kill", budget, "--heartbeat 0.2 --grace 1");
  Process fast_before(worker("kill", "--budget 4"), dir, "before");
  ASSERT_EQ(fast_before.wait(), 0) << fast_before.err();
  Process victim("env HANG=1 " + worker("kill"), dir, "victim");
  wait_until([&] { return Study::load(url, "kill").trials().size() == 5; }, 30, "the victim's trial");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a heartbeat or two
  victim.kill9();
  EXPECT_EQ(victim.wait(), -SIGKILL);
  Process other(worker("kill", "--budget 8"), dir, "other");
  ASSERT_EQ(other.wait(), 0) << other.err();
  Process restarted(worker("kill"), dir, "restarted");
  ASSERT_EQ(restarted.wait(), 0) << restarted.err();
  const auto trials = Study::load(url, "kill").trials();
  ASSERT_GE(trials.size(), 6u);
  EXPECT_EQ(trials[4].state, TrialState::Failed);
  EXPECT_TRUE(trials[4].stale);
  std::size_t requeued = 0;
  for (const auto& t : trials)
    if (t.requeued_from == 4u) {
      ++requeued;
      EXPECT_EQ(t.state, TrialState::Complete);
      EXPECT_EQ(t.x, trials[4].x);
    }
  EXPECT_EQ(requeued, 1u);
  expect_history_equals_log("kill", budget);
}

INSTANTIATE_TEST_SUITE_P(Backends, Reliability, ::testing::ValuesIn(study_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// kill -9 at random points of a worker's life (starting, asking, evaluating, telling,
// heartbeating), 200 times (OPTIMIST_STUDY_FULL=1: 500; under ASan, where each worker starts
// several times slower, 60): the SQLite file stays consistent, no
// complete trial is lost or changed, every stored value is one the objective answered at that
// point, and at most one answered value per kill (the evaluation in flight) is not stored.
TEST(ReliabilitySqlite, KillDuringCommitsKeepsTheDatabaseConsistent) {
  const fs::path dir = study_test_dir();
  const std::string url = "sqlite:///" + (dir / "kill.db").string();
  const std::size_t kills = full_size_reliability() ? 500 : kAddressSanitizer ? 60 : 200;
  const fs::path log_file = dir / "objective.log";
  std::ofstream(dir / "space.json") << kSpace;
  const std::string objective = "env LOG='" + log_file.string() + "' SLEEP_MS=0-15 '" + OPTIMIST_FAULT_OBJECTIVE + "'";
  const auto r = run_optimist("study create --storage '" + url + "' --name k --objective-command \"" + objective +
                                  "\" --space space.json --direction minimize --algorithm random --budget 1000000 --grace 0.5 --heartbeat 0.1",
                              dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto answered_count = [&] {
    std::ifstream in(log_file);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(" start") == std::string::npos;
    return n;
  };
  std::map<std::size_t, double> complete;
  std::mt19937 rng(7);
  for (std::size_t k = 0; k < kills; ++k) {
    const std::size_t before = answered_count();
    Process p(std::string(OPTIMIST_CLI_PATH) + " worker --storage '" + url + "' --name k -q --trust-command", dir, "w");
    // One kill in four lands while the worker starts; the others once it has evaluated, at a
    // random moment after (its next ask, evaluation, tell or heartbeat).
    if (rng() % 4 != 0) {
      for (int wait = 0; wait < 1500 && answered_count() == before && p.running(); ++wait)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 40000));
    }
    p.kill9();
    p.wait();
    Storage storage(url);
    ASSERT_EQ(storage.integrity_check(), "ok") << "after kill " << k;
    const auto study = storage.load_study("k");
    for (const auto& t : storage.trials(study.id)) {
      const auto it = complete.find(t.number);
      if (it != complete.end()) {
        ASSERT_EQ(t.state, TrialState::Complete) << "trial " << t.number << " lost after kill " << k;
        ASSERT_EQ(*t.value, it->second) << "trial " << t.number << " changed after kill " << k;
      } else if (t.state == TrialState::Complete) {
        complete.emplace(t.number, *t.value);
      }
    }
  }
  // The study against what the objective answered: (point, value) pairs.
  std::multiset<std::pair<std::pair<double, double>, double>> answered;
  {
    std::ifstream in(log_file);
    for (std::string line; std::getline(in, line);) {
      std::istringstream ls(line);
      int pid;
      double a, b, y;
      if (ls >> pid >> a >> b >> y) answered.insert({{a, b}, y});
    }
  }
  const auto trials = Study::load(url, "k").trials();
  std::size_t stored = 0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    ASSERT_EQ(trials[i].number, i);
    if (trials[i].state != TrialState::Complete) continue;
    ++stored;
    const auto it = answered.find({{trials[i].x[0], trials[i].x[1]}, *trials[i].value});
    ASSERT_NE(it, answered.end()) << "trial " << i << " holds a value the objective never answered";
    answered.erase(it);
  }
  EXPECT_EQ(stored, complete.size());
  EXPECT_LE(answered.size(), kills) << "answered values missing from the study";
  EXPECT_GT(complete.size(), kills / 2);  // the workers did evaluate and commit between the kills
  std::printf("%zu kills: %zu complete trials, %zu answered values not stored (in flight at a kill)\n", kills,
              complete.size(), answered.size());
}

// A worker started while its server is down (a machine booting before the database, a restart)
// waits for it as for an outage, saying so; a read-only look answers at once. Both once failed at
// once, though docs/studies.md promised the retries.
TEST(ReliabilityPostgres, AWorkerStartedBeforeItsServerWaitsForIt) {
  const fs::path dir = study_test_dir();
  PostgresServer server;  // our own: the shared one must stay up for the other tests
  const std::string url = server.create_database("late");
  auto r = run_optimist("study create --storage '" + url + "' --name l --problem branin --algorithm random --budget 5", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  server.stop();
  Process worker(std::string(OPTIMIST_CLI_PATH) + " worker --storage '" + url + "' --name l -q", dir, "late-worker");
  const auto t0 = std::chrono::steady_clock::now();
  r = run_optimist("study show --storage '" + url + "' --name l", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot connect to PostgreSQL"), std::string::npos) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));  // no 600 s wait
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_TRUE(worker.running()) << worker.err();
  server.start();
  ASSERT_EQ(worker.wait(), 0) << worker.err();
  EXPECT_NE(worker.err().find("cannot reach the PostgreSQL server"), std::string::npos) << worker.err();
  EXPECT_NE(worker.err().find("server reachable after"), std::string::npos) << worker.err();
  std::size_t complete = 0;
  for (const auto& t : Study::load(url, "l").trials()) complete += t.state == TrialState::Complete;
  EXPECT_EQ(complete, 5u);
}

// PostgreSQL stopped and started again while workers run: they report the outage, retry with
// backoff, resume, and nothing is lost.
TEST(ReliabilityPostgres, ServerRestartWhileWorkersRun) {
  const fs::path dir = study_test_dir();
  PostgresServer server;  // our own: the shared one must stay up for the other tests
  const std::string url = server.create_database("restart");
  std::ofstream(dir / "obj.py") << kObjective;
  std::ofstream(dir / "space.json") << kSpace;
  const std::size_t budget = 120;
  auto r = run_optimist("study create --storage '" + url + "' --name r --objective-command '/usr/bin/python3 obj.py' "
                        "--space space.json --direction minimize --algorithm random --budget " + std::to_string(budget),
                        dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::unique_ptr<Process>> procs;
  for (int w = 0; w < 3; ++w)
    procs.push_back(std::make_unique<Process>("env SLEEP=0.02 " + std::string(OPTIMIST_CLI_PATH) + " worker --storage '" + url +
                                                  "' --name r -q --trust-command",
                                              dir, "worker" + std::to_string(w)));
  wait_until([&] { return Study::load(url, "r").trials().size() >= 20; }, 60, "the first trials");
  server.stop();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  server.start();
  for (auto& p : procs) {
    ASSERT_EQ(p->wait(), 0) << p->err();
    EXPECT_NE(p->err().find("lost the PostgreSQL server"), std::string::npos) << p->err();
    EXPECT_NE(p->err().find("reachable again"), std::string::npos) << p->err();
  }
  const auto trials = Study::load(url, "r").trials();
  std::size_t complete = 0;
  for (const auto& t : trials) complete += t.state == TrialState::Complete;
  EXPECT_EQ(complete, budget);
  // 0 told values lost: what the objective logged is exactly what the study holds.
  std::multiset<std::vector<double>> logged;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("evals.", 0) != 0) continue;
    std::ifstream in(e.path());
    for (double a, b, y; in >> a >> b >> y;) logged.insert({a, b, y});
  }
  EXPECT_EQ(logged.size(), budget);
  for (const auto& t : trials) {
    if (t.state != TrialState::Complete) continue;
    EXPECT_EQ(logged.count({t.x[0], t.x[1], *t.value}), 1u) << "trial " << t.number << " is not the value logged at its point";
  }
}

// An outage longer than the grace period: every worker's heartbeats failed during it, so when the
// server came back the first ask failed every running trial as stale and their points were
// evaluated again by others (stop 60's probe: 2 of 3 paid twice). A worker that lost the storage
// now gives the others the grace period to beat again: no trial is failed, none evaluated twice.
// A 1.8 s heartbeat with a 2 s grace failed once under ASan (a beat 0.2 s late); 1.5 s / 3 s.
TEST(ReliabilityPostgres, AnOutageLongerThanTheGracePeriodFailsNoLiveWorkersTrial) {
  const fs::path dir = study_test_dir();
  PostgresServer server;
  const std::string url = server.create_database("outage");
  std::ofstream(dir / "obj.py") << kObjective;
  std::ofstream(dir / "space.json") << kSpace;
  const std::size_t budget = 24;
  auto r = run_optimist("study create --storage '" + url + "' --name o --objective-command '/usr/bin/python3 obj.py' "
                        "--space space.json --direction minimize --algorithm random --grace 3 --heartbeat 1.5 --budget " +
                            std::to_string(budget),
                        dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::unique_ptr<Process>> procs;
  // Worker 0's first evaluation lasts through the outage: when the server is back, the others
  // see its trial without a heartbeat for longer than the grace period.
  for (int w = 0; w < 3; ++w)
    procs.push_back(std::make_unique<Process>(std::string("env SLEEP=") + (w == 0 ? "12" : "0.3") + " " +
                                                  OPTIMIST_CLI_PATH + " worker --storage '" + url + "' --name o -q --trust-command",
                                              dir, "worker" + std::to_string(w)));
  wait_until([&] { return Study::load(url, "o").trials().size() >= 6; }, 60, "the first trials");
  server.stop();
  std::this_thread::sleep_for(std::chrono::seconds(6));  // > the 3 s grace
  server.start();
  for (auto& p : procs) ASSERT_EQ(p->wait(), 0) << p->err();
  const auto trials = Study::load(url, "o").trials();
  std::size_t complete = 0;
  for (const auto& t : trials) {
    complete += t.state == TrialState::Complete;
    EXPECT_NE(t.state, TrialState::Failed) << "trial " << t.number << ": " << t.error;
  }
  EXPECT_EQ(complete, budget);
  std::size_t logged = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("evals.", 0) != 0) continue;
    std::ifstream in(e.path());
    for (double a, b, y; in >> a >> b >> y;) ++logged;
  }
  EXPECT_EQ(logged, budget);  // no point evaluated twice
}

// One outage is waited out once (retry_s in all): a worker's K jobs, serialized on its connection,
// each waited the whole retry_s again (stop 68's probe: --jobs 2 gave up after 20 minutes, saying
// 600 s). A statement after the give-up fails at once, naming the whole wait; a later outage
// starts a new wait.
TEST(ReliabilityPostgres, OneOutageIsWaitedOutOnceByEveryStatement) {
  PostgresServer server;
  const std::string url = server.create_database("once");
  const auto db = optimist::study_detail::connect(url, 2.0);
  ASSERT_EQ(db->query("SELECT 1").size(), 1u);
  server.stop();
  auto seconds_for = [&](std::string& message) {
    const optimist::testing::LeaksNotReported libpqxx_leak;  // its result of the statement that meets the broken connection
    const auto t0 = std::chrono::steady_clock::now();
    try {
      db->query("SELECT 1");
      message = "answered";
    } catch (const std::exception& e) {
      message = e.what();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::string first, second;
  const double waited_first = seconds_for(first);
  const double waited_second = seconds_for(second);
  EXPECT_GE(waited_first, 1.9) << first;
  EXPECT_NE(first.find("gave up after 2 s"), std::string::npos) << first;
  EXPECT_LT(waited_second, 1.0) << second;  // it waited 2 s more
  EXPECT_NE(second.find("gave up after 2 s"), std::string::npos) << second;
  server.start();
  ASSERT_EQ(db->query("SELECT 1").size(), 1u);
  server.stop();
  std::string third;
  EXPECT_GE(seconds_for(third), 1.9) << third;  // a new outage, a new wait
}

// A second Ctrl-C while a finished evaluation waits for the storage (an outage): the value was
// lost, the message said the evaluations "are not recorded", and the trial was paid again later
// (stop 68's probe). It is printed as JSON now, and the worker ends in seconds. A third Ctrl-C
// would still exit at once.
TEST(ReliabilityPostgres, ASecondCtrlCDuringAnOutagePrintsTheFinishedEvaluation) {
  const fs::path dir = study_test_dir();
  PostgresServer server;
  const std::string url = server.create_database("abort");
  create_script_study(url, dir, "a",
                      "import json, sys, time\n"
                      "for line in sys.stdin:\n"
                      "    x = json.loads(line)['x']\n"
                      "    time.sleep(2.5)\n"
                      "    print(json.dumps({'y': 0.5 + x[0]}), flush=True)\n");
  Process worker(std::string(OPTIMIST_CLI_PATH) + " worker --storage '" + url + "' --name a -q --trust-command", dir, "abort-worker");
  wait_until([&] { return !Study::load(url, "a").trials().empty(); }, 30, "the first trial");
  server.stop();
  std::this_thread::sleep_for(std::chrono::seconds(3));  // the evaluation ends; its store waits for the server
  ::kill(worker.pid(), SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(worker.pid(), SIGINT);
  const auto t0 = std::chrono::steady_clock::now();
  const int code = worker.wait();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << worker.err();
  EXPECT_NE(code, 0);
  EXPECT_NE(worker.err().find("could not store an evaluation"), std::string::npos) << worker.err();
  EXPECT_NE(worker.err().find("as JSON: {"), std::string::npos) << worker.err();
  EXPECT_NE(worker.err().find("\"value\":"), std::string::npos) << worker.err();
  EXPECT_EQ(worker.err().find("are not recorded"), std::string::npos) << worker.err();
  server.start();
  // The line as printed goes back into the study with `study add --from` (it took C++ or Python).
  // The worker's whole log will do: its other lines are skipped.
  std::ofstream(dir / "worker.log") << worker.err();
  auto added = run_optimist("study add --storage '" + url + "' --name a --from worker.log", dir);
  ASSERT_EQ(added.code, 0) << added.err;
  std::size_t told = 0;
  for (const auto& t : Study::load(url, "a").trials())
    if (t.state == TrialState::Complete && t.origin == "told") {
      EXPECT_NEAR(*t.value, 0.5 + t.x[0], 1e-12);
      ++told;
    }
  EXPECT_EQ(told, 1u);
  // A line of another study is refused.
  std::ofstream(dir / "other.jsonl") << R"({"study": "b", "trial": 0, "x": [0.1, 0.2], "value": 1.0})" << "\n";
  auto refused = run_optimist("study add --storage '" + url + "' --name a --from other.jsonl", dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("is an evaluation of study \"b\", not 'a'"), std::string::npos) << refused.err;
  std::ofstream(dir / "junk.jsonl") << R"({"study": "a", "x": [0.1, 0.2], "value": 1.0})" << "\nnot json\n";
  refused = run_optimist("study add --storage '" + url + "' --name a --from junk.jsonl", dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("line 2 is neither a JSON object"), std::string::npos) << refused.err;
}

// A second Ctrl-C while an objective hangs: it is killed and its trial given back to the study at
// once (it stayed running until it went stale), not told as failed.
TEST(ReliabilityPostgres, ASecondCtrlCGivesTheKilledEvaluationsTrialBack) {
  const fs::path dir = study_test_dir();
  PostgresServer server;
  const std::string url = server.create_database("giveback");
  create_script_study(url, dir, "g", "import sys, time\nfor line in sys.stdin:\n    time.sleep(600)\n");
  Process worker(std::string(OPTIMIST_CLI_PATH) + " worker --storage '" + url + "' --name g -q --trust-command --jobs 2", dir,
                 "hang-worker");
  wait_until([&] { return Study::load(url, "g").trials().size() == 2; }, 30, "two trials asked");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(worker.pid(), SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(worker.pid(), SIGINT);
  EXPECT_EQ(worker.wait(), 130) << worker.err();
  EXPECT_NE(worker.err().find("aborting"), std::string::npos) << worker.err();
  for (const auto& t : Study::load(url, "g").trials()) {
    EXPECT_NE(t.state, TrialState::Running) << "trial " << t.number;
    EXPECT_NE(t.state, TrialState::Complete) << "trial " << t.number;
    EXPECT_TRUE(t.given_back || t.state == TrialState::Waiting) << "trial " << t.number << " was not given back";
  }
}
