// A run killed outright (SIGKILL, the OOM killer, a supervisor's SIGTERM then SIGKILL as
// `timeout -k` sends) cannot stop its objective programs itself: the guard process does
// (src/core/child_processes.cpp). Before it, a hung objective (or a training job holding a GPU)
// kept running, orphaned, after the run was gone.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "temp_test_dir.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The /proc/<pid>/stat fields after the name: state, ppid. {'?', 0} when there is no such process.
std::pair<char, pid_t> state_and_parent(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return {'?', 0};
  const auto close = line.rfind(')');  // the name may hold spaces and parentheses
  std::istringstream rest(line.substr(close + 1));
  char state = '?';
  pid_t parent = 0;
  rest >> state >> parent;
  return {state, parent};
}

bool running(pid_t pid) {
  const char state = state_and_parent(pid).first;
  return state != '?' && state != 'Z' && state != 'X';
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (running(pid) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !running(pid);
}

// The children of `parent` named `name` (/proc/<pid>/comm).
std::vector<pid_t> children_named(pid_t parent, const std::string& name) {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string file = entry.path().filename().string();
    if (file.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(file);
    std::string comm = slurp(entry.path() / "comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm == name && state_and_parent(pid).second == parent) found.push_back(pid);
  }
  return found;
}

// `optimist run` of a one-parameter space with `sh SCRIPT` as the objective, in dir (its output in
// out.txt), started in the background (with --jobs when jobs > 0): its pid.
pid_t start_run(const fs::path& dir, const std::string& script, int budget, int jobs) {
  std::ofstream(dir / "space.json") << R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1}]})";
  std::vector<std::string> args = {"optimist", "run", "--objective-command", "sh " + script, "--space", "space.json",
                                   "--direction", "minimize", "--algorithm", "random", "--budget", std::to_string(budget), "-q"};
  if (jobs > 0) args.insert(args.end(), {"--jobs", std::to_string(jobs)});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t run = fork();
  if (run == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int fd = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execv(OPTIMIST_CLI_PATH, argv.data());
    _exit(127);
  }
  return run;
}

struct KillCase {
  const char* name;
  int jobs;            // --jobs (0: a plain run, one evaluation in flight)
  bool term_first;     // SIGTERM, then SIGKILL 200 ms later (`timeout -k 0.2`)
};

class KilledRun : public ::testing::TestWithParam<KillCase> {};

}  // namespace

// The objective programs hang in an evaluation, each with a grandchild of its own (a training
// script's data loader); the run is killed; every one of them is gone within seconds, and so is
// the guard.
TEST_P(KilledRun, LeavesNoObjectiveProgramRunning) {
  const KillCase c = GetParam();
  const fs::path dir = optimist::testing::test_dir(std::string("optimist_killed_run_") + c.name);
  // Answers once, then starts a grandchild, writes both pids and waits inside its second evaluation.
  std::ofstream(dir / "hang.sh") << "n=0; while read line; do n=$((n+1)); if [ $n -eq 2 ]; then sleep 1000 & "
                                    "echo $$ $! > pid.$$.tmp; mv pid.$$.tmp pid.$$; wait; fi; echo '{\"y\": 1}'; done\n";
  const pid_t run = start_run(dir, "hang.sh", 20, c.jobs);
  ASSERT_GE(run, 0);
  // Wait for `jobs` programs to hang (each wrote "its pid, its grandchild's pid").
  std::vector<pid_t> hung;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    hung.clear();
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string file = entry.path().filename().string();
      if (file.rfind("pid.", 0) != 0 || file.ends_with(".tmp")) continue;
      std::istringstream pids(slurp(entry.path()));
      pid_t program = 0, grandchild = 0;
      if (pids >> program >> grandchild) hung.insert(hung.end(), {program, grandchild});
    }
    if (hung.size() >= 2 * static_cast<std::size_t>(std::max(c.jobs, 1))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(hung.size(), 2 * static_cast<std::size_t>(std::max(c.jobs, 1))) << slurp(dir / "out.txt");
  for (const pid_t p : hung) ASSERT_TRUE(running(p)) << p;
  const std::vector<pid_t> guards = children_named(run, "optimist-guard");
  EXPECT_EQ(guards.size(), 1u) << "one guard per run";

  if (c.term_first) {
    kill(run, SIGTERM);  // waits for the evaluations in flight (docs/reliability.md): they hang
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  kill(run, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(run, &status, 0), run);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (const pid_t p : hung) EXPECT_TRUE(gone_within(p, std::chrono::seconds(10))) << "process " << p << " outlived the killed run";
  for (const pid_t g : guards) EXPECT_TRUE(gone_within(g, std::chrono::seconds(10))) << "the guard outlived its run";
  for (const pid_t p : hung) kill(-p, SIGKILL);  // after a failure: nothing left running (each program leads its group)
}

INSTANTIATE_TEST_SUITE_P(Cases, KilledRun,
                         ::testing::Values(KillCase{"sigkill", 0, false}, KillCase{"term_then_kill", 0, true},
                                           KillCase{"jobs", 3, false}),
                         [](const auto& info) { return std::string(info.param.name); });

// A run that ends normally leaves no guard behind.
TEST(KilledRunGuard, EndsWithItsRun) {
  const fs::path dir = optimist::testing::test_dir("optimist_guard_ends");
  // Its second answer is late, long enough to find the guard while the run is alive.
  std::ofstream(dir / "slow.sh") << "n=0; while read line; do n=$((n+1)); if [ $n -eq 2 ]; then sleep 1; fi; echo '{\"y\": 1}'; done\n";
  const pid_t run = start_run(dir, "slow.sh", 3, 0);
  ASSERT_GE(run, 0);
  std::vector<pid_t> guards;
  for (int k = 0; k < 500 && guards.empty(); ++k) {
    guards = children_named(run, "optimist-guard");
    if (guards.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int status = 0;
  ASSERT_EQ(waitpid(run, &status, 0), run);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir / "out.txt");
  ASSERT_EQ(guards.size(), 1u);
  EXPECT_TRUE(gone_within(guards[0], std::chrono::seconds(5)));
}
