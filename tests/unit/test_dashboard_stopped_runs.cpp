// A trace whose writer is gone (killed, crashed, its machine restarted) has no end line: the
// dashboard tests the trace's lock, without taking it, and shows the run as stopped rather than
// running forever; resumed, it is running again.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "dashboard/api.hpp"
#include "dashboard/trace_follower.hpp"
#include "dashboard/trace_source.hpp"
#include "dashboard_test_helpers.hpp"

namespace {

using namespace dashboard_test;
using nlohmann::json;
using optimist::EvaluationRecord;
using optimist::InvalidArgument;
using optimist::Space;
using optimist::TraceLock;
using optimist::TraceMeta;
using optimist::TraceWriter;
using optimist::Vector;
using optimist::dashboard::Api;
using optimist::dashboard::TraceFollower;
using optimist::dashboard::TraceSource;
using std::chrono::milliseconds;

class DashboardStoppedRun : public DashboardTest {};
class TraceLockTest : public DashboardTest {};

Space box() {
  Space s;
  s.add_continuous("x1", -5.0, 10.0);
  s.add_continuous("x2", 0.0, 15.0);
  return s;
}

// A run of a benchmark problem, as `optimist run --problem branin` writes it.
TraceMeta branin_meta() {
  TraceMeta m;
  m.algorithm = "random";
  m.problem = "branin";
  m.dim = 2;
  m.budget = 10;
  m.direction = optimist::Direction::Minimize;
  m.space = box().to_json();
  return m;
}

EvaluationRecord record(std::size_t i) {
  EvaluationRecord r;
  r.i = i;
  r.x = Vector::Constant(2, 0.5 * static_cast<double>(i));
  r.y = r.f = 10.0 / static_cast<double>(i);
  return r;
}

// A child process writing `path` (meta and `n` evaluations) that then waits to be killed. With
// `worker`, it then forks a child of its own that outlives it (a process pool's worker): its pid
// is returned in `*worker`.
pid_t start_writer(const std::string& path, std::size_t n, pid_t* worker = nullptr) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    try {
      TraceWriter w(path, branin_meta(), box());
      for (std::size_t i = 1; i <= n; ++i) w.write(record(i));
      pid_t worker_pid = 0;
      if (worker) {
        const pid_t forked = fork();
        if (forked < 0) _exit(5);
        // The worker tells its pid itself: fork has returned in it, so its fork handlers have run.
        if (forked > 0) for (;;) pause();
        worker_pid = getpid();
      }
      if (write(ready[1], &worker_pid, sizeof worker_pid) != sizeof worker_pid) _exit(4);
      for (;;) pause();
    } catch (...) {
      _exit(3);
    }
  }
  close(ready[1]);
  pid_t forked = -1;
  const bool told = pid > 0 && read(ready[0], &forked, sizeof forked) == sizeof forked;
  close(ready[0]);
  if (worker) *worker = forked;
  return told ? pid : -1;
}

void kill_and_wait(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

std::vector<EvaluationRecord> earlier(const std::string& path) {
  return optimist::evaluations_from_trace(optimist::read_trace(path), box());
}

TEST_F(DashboardStoppedRun, AKilledWriterShowsAsStoppedAndAResumedRunAsRunning) {
  const std::string path = (dir() / "run.jsonl").string();
  const pid_t writer = start_writer(path, 3);
  ASSERT_GT(writer, 0);
  TraceFollower f(path, milliseconds(0));
  f.refresh();
  EXPECT_EQ(f.summary().counts.complete, 3u) << f.summary().error;
  EXPECT_FALSE(f.summary().finished);
  EXPECT_FALSE(f.summary().stopped) << "its writer lives";
  EXPECT_TRUE(f.summary().resume.empty());

  kill_and_wait(writer);  // kill -9: no end line
  f.refresh();
  EXPECT_FALSE(f.summary().finished);
  EXPECT_TRUE(f.summary().stopped);
  EXPECT_EQ(f.summary().resume, "optimist run --resume " + path);

  {
    // Resumed (in place: the file is replaced, locked before it is): running again.
    TraceWriter resumed(path, branin_meta(), box(), earlier(path));
    f.refresh();
    EXPECT_FALSE(f.summary().stopped);
    resumed.write(record(4));
    f.refresh();
    EXPECT_EQ(f.summary().counts.complete, 4u);
    EXPECT_FALSE(f.summary().stopped);
  }
  // That one stopped too, without its end line.
  f.refresh();
  EXPECT_TRUE(f.summary().stopped);
  {
    TraceWriter resumed(path, branin_meta(), box(), earlier(path));
    resumed.write(record(5));
    resumed.write_recommend(record(5).x, 2.0, std::nullopt, "budget");
  }
  f.refresh();
  EXPECT_TRUE(f.summary().finished);
  EXPECT_FALSE(f.summary().stopped) << "a finished run is finished, not stopped";
}

// A Python process pool forked while the run wrote its trace: its workers outlive a killed run,
// and must not keep it "running".
TEST_F(DashboardStoppedRun, AWorkerForkedByTheRunDoesNotKeepItRunning) {
  const std::string path = (dir() / "pool.jsonl").string();
  // The orphaned worker comes to this process, which reaps it (not every init does).
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  pid_t worker = -1;
  const pid_t writer = start_writer(path, 2, &worker);
  ASSERT_GT(writer, 0);
  ASSERT_GT(worker, 0);
  TraceFollower f(path, milliseconds(0));
  f.refresh();
  EXPECT_FALSE(f.summary().stopped);
  kill_and_wait(writer);
  EXPECT_EQ(kill(worker, 0), 0) << "the worker outlived the run";
  f.refresh();
  EXPECT_TRUE(f.summary().stopped);
  kill_and_wait(worker);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// The trace's lock is tested once per poll at most (a folder of killed runs is not opened at every
// request), and at once when the file is replaced (a resume).
TEST_F(DashboardStoppedRun, TheWriterIsLookedForAtMostOncePerPoll) {
  const fs::path file = dir() / "t.jsonl";
  write(file, meta_line() + eval_line(1, 2.0));
  TraceFollower f(file.string(), std::chrono::hours(1));
  f.refresh();
  EXPECT_TRUE(f.summary().stopped) << "a trace nobody writes";
  std::optional<TraceLock> lock(std::in_place, file.string());
  f.refresh();
  EXPECT_TRUE(f.summary().stopped) << "tested again before the poll interval";
  lock.reset();
  write(dir() / "new.jsonl", meta_line() + eval_line(1, 2.0) + eval_line(2, 1.0));
  lock.emplace((dir() / "new.jsonl").string());
  fs::rename(dir() / "new.jsonl", file);
  f.refresh();
  EXPECT_EQ(f.summary().counts.complete, 2u);
  EXPECT_FALSE(f.summary().stopped) << "a replaced file is tested at once";
}

TEST_F(DashboardStoppedRun, TheApiSaysHowToContinueAStoppedRun) {
  const fs::path runs = dir() / "runs";
  write(runs / "mine.jsonl", meta_line() + eval_line(1, 2.0));  // a run of one's own function
  write(runs / "done.jsonl", meta_line() + eval_line(1, 2.0) + R"({"recommend":{"x":[0.01,"rbf"],"stop_reason":"budget"}})" "\n");
  write(runs / "bench.jsonl.partial", meta_line() + eval_line(1, 2.0));
  write(runs / "empty.jsonl", "");  // created, its meta line not yet written
  TraceSource source({runs.string()}, milliseconds(0), milliseconds(0));
  Api api(source, {});
  const auto r = api.get("/api/studies", {});
  ASSERT_EQ(r.status, 200) << r.body;
  std::map<std::string, json> by_id;
  const json listed = json::parse(r.body);
  for (const auto& s : listed.at("studies")) by_id[s.at("id").get<std::string>()] = s;
  ASSERT_EQ(by_id.size(), 4u) << r.body;
  EXPECT_EQ(by_id.at("mine").at("stopped"), true);
  const std::string mine = (runs / "mine.jsonl").string();
  EXPECT_EQ(by_id.at("mine").at("resume"),
            "minimize(..., resume=\"" + mine + "\") in Python, MinimizeOptions::resume in C++");
  EXPECT_EQ(by_id.at("bench").at("stopped"), true);
  EXPECT_EQ(by_id.at("bench").at("resume"), "the same optimist bench command");
  EXPECT_EQ(by_id.at("done").at("stopped"), false);
  EXPECT_FALSE(by_id.at("done").contains("resume"));
  EXPECT_EQ(by_id.at("empty").at("stopped"), false);
  // Held by a live process: running, in the answer of /api/trials too.
  const TraceLock lock(mine);
  const auto t = api.get("/api/trials", {{"study", "mine"}});
  ASSERT_EQ(t.status, 200) << t.body;
  EXPECT_EQ(json::parse(t.body).at("study").at("stopped"), false);
}

// An --objective-command run is resumed only with its command named again (the CLI refuses a
// command read from a data file alone): the hint names it, shell-quoted, and the trace by its
// absolute path, whatever folder the dashboard was started from.
TEST_F(DashboardStoppedRun, TheHintForACommandRunNamesTheCommandAndTheWholePath) {
  const fs::path path = dir() / "cmd.jsonl";
  TraceMeta m = branin_meta();
  m.problem = "my objective";
  m.objective_command = "python3 'my obj.py' --fast";
  { TraceWriter w(path.string(), m, box()); w.write(record(1)); }  // ended without its end line
  const fs::path relative = fs::relative(path);
  ASSERT_TRUE(relative.is_relative());
  TraceFollower f(relative.string(), milliseconds(0));
  f.refresh();
  ASSERT_TRUE(f.summary().stopped) << f.summary().error;
  EXPECT_EQ(f.summary().resume, "optimist run --resume " + path.lexically_normal().string() +
                                    " --objective-command 'python3 '\\''my obj.py'\\'' --fast'");
}

TEST_F(TraceLockTest, HeldIsToldWithoutTakingTheLock) {
  const std::string path = (dir() / "t.jsonl").string();
  EXPECT_EQ(TraceLock::held(path), std::nullopt) << "no such file";
  write(path, meta_line());
  EXPECT_EQ(TraceLock::held(path), false);
  {
    const TraceLock lock(path);
    EXPECT_EQ(TraceLock::held(path), true) << "held by this process, through another open file";
    try {
      const TraceLock second(path, /*create=*/true);
      ADD_FAILURE() << "a second writer was not refused";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("is being written by another process"), std::string::npos) << e.what();
    }
    EXPECT_EQ(TraceLock::held(path), true) << "the test did not release it";
  }
  EXPECT_EQ(TraceLock::held(path), false);
  const TraceLock again(path, /*create=*/true);  // the tests left nothing behind
}

// A read-only trace is resumed into another file: its lock is taken (a read lock, the file being
// open for reading only) and seen as held, so the dashboard shows the run as continuing.
TEST_F(TraceLockTest, AReadOnlyTraceIsLockedForItsResume) {
  if (geteuid() == 0) GTEST_SKIP() << "root opens a read-only file for writing";
  const std::string path = (dir() / "ro.jsonl").string();
  write(path, meta_line());
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const TraceLock lock(path);
  EXPECT_EQ(TraceLock::held(path), true);
}

}  // namespace
