// Fault injection, the objective command (docs/reliability.md, "Fault matrix"): a real
// `optimist run` against a real misbehaving program (fault_objective.cpp). Each fault gives a
// clear error naming its cause, the run goes on with a fresh child (--on-failure mark-failed) or
// stops resumably (the default), and every value the program answered is in the trace.
#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>

#include "fault/fault_support.hpp"
#include "optimist/core/trace.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using namespace optimist::testing;
namespace fs = std::filesystem;

namespace {

struct FaultCase {
  std::string name;
  std::string fault;             ///< FAULT=
  std::string expected_error;    ///< in the failed evaluation's error ("" when none fails)
  std::size_t failures;          ///< failed evaluations in the trace
  std::size_t starts;            ///< child processes started
  double timeout_s = 60.0;       ///< --objective-timeout
  std::string extra_env = "";    ///< more NAME=VALUE for the program
};

std::ostream& operator<<(std::ostream& os, const FaultCase& c) { return os << c.name; }

const std::vector<FaultCase>& cases() {
  static const std::vector<FaultCase> all = {
      {"crash", "crash:5", "was killed by signal 6", 1, 2},
      {"exit", "exit:5", "exited with status 3", 1, 2},
      {"hang", "hang:5", "did not answer within 3 s (timeout); it was killed", 1, 2, 3.0},
      {"garbage", "garbage:5", "printed a line that is not JSON: 'this is not json'", 1, 2},
      {"partial_line", "partial:5", "without answering (after printing '{\"y\": 1')", 1, 2},
      {"partial_line_then_silence", "partial-hang:5", "did not answer within 3 s", 1, 2, 3.0},
      // An exit after an answer is no failure: the next request, which it never read, goes to a
      // fresh child, which answers the other 5 (one that reads a request and exits fails it: "exit").
      {"exit_between_lines", "between:5", "", 0, 2},
      // One evaluation per process, the fault firing in each (FAULT_ONCE unset): 10 processes.
      {"one_shot_program", "between:1", "", 0, 10, 60.0, "FAULT_ONCE="},
      {"stderr_flood", "flood", "", 0, 1},
      {"huge_line", "huge:5", "printed a line longer than 67108864 bytes", 1, 2},
      {"big_valid_line", "big:5", "", 0, 1},
      {"ignores_sigterm", "ignore-term", "", 0, 1},
  };
  return all;
}

class ObjectiveFault : public ::testing::TestWithParam<FaultCase> {
 protected:
  void SetUp() override {
    dir = study_test_dir();
    write_fault_space(dir / "space.json");
  }
  std::string run_args(const std::string& fault, std::size_t budget, const std::string& extra = "") const {
    std::ostringstream timeout;
    timeout << GetParam().timeout_s;
    return "run -q --objective-command \"" + fault_command(fault, dir / "log.txt", GetParam().extra_env) +
           "\" --space space.json --direction minimize --algorithm random --seed 4 --budget " + std::to_string(budget) +
           " --objective-timeout " + timeout.str() + " --out t.jsonl " + extra;
  }
  fs::path dir;
};

}  // namespace

// The run goes on past the fault: one failed evaluation naming the cause, a fresh child for the
// next ones, every answered value stored.
TEST_P(ObjectiveFault, MarkFailedRecordsTheCauseAndLosesNothing) {
  const FaultCase& c = GetParam();
  const CliRun r = run_optimist(run_args(c.fault, 10, "--on-failure mark-failed"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const Trace trace = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(trace.evaluations.size(), 10u);
  EXPECT_TRUE(trace.complete());
  std::size_t failed = 0;
  for (const auto& e : trace.evaluations) {
    if (e.at("status") != "failed") continue;
    ++failed;
    EXPECT_NE(e.at("error").get<std::string>().find(c.expected_error), std::string::npos) << e.at("error");
  }
  EXPECT_EQ(failed, c.failures);
  const ObjectiveLog log = read_objective_log(dir / "log.txt");
  EXPECT_EQ(log.starts.size(), c.starts);
  EXPECT_EQ(log.values.size(), 10u - c.failures);
  for (const auto& problem : compare_log_with_trace(log, dir / "t.jsonl")) ADD_FAILURE() << problem;
  // No child outlives the run, not even one that ignores SIGTERM.
  for (const int pid : log.starts) EXPECT_NE(::kill(pid, 0), 0) << "objective process " << pid << " still runs";
}

// The default policy: the run stops at the fault with the cause on stderr (exit code 1) and a
// trace that --resume continues once the program behaves; nothing is evaluated twice.
class ObjectiveFaultStop : public ObjectiveFault {};

TEST_P(ObjectiveFaultStop, StopThenResumeLosesNothing) {
  const FaultCase& c = GetParam();
  const CliRun first = run_optimist(run_args(c.fault, 10), dir);
  EXPECT_EQ(first.code, 1) << first.err;
  EXPECT_NE(first.err.find("the objective failed: "), std::string::npos) << first.err;
  EXPECT_NE(first.err.find(c.expected_error), std::string::npos) << first.err;
  const Trace cut = read_trace((dir / "t.jsonl").string());
  ASSERT_TRUE(cut.complete());
  EXPECT_EQ(cut.recommend->at("stop_reason"), "objective failed");
  ASSERT_GE(cut.evaluations.size(), 1u);
  EXPECT_EQ(cut.evaluations.back().at("status"), "failed");
  // The program behaves again: the resumed run names it (a trace's command is not trusted).
  const CliRun resumed = run_optimist("run -q --resume t.jsonl --on-failure mark-failed --objective-command \"" +
                                          fault_command("ok", dir / "log.txt") + "\"",
                                      dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const Trace done = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(done.evaluations.size(), 10u);
  for (std::size_t k = 0; k < cut.evaluations.size(); ++k) EXPECT_EQ(done.evaluations[k], cut.evaluations[k]);
  for (const auto& problem : compare_log_with_trace(read_objective_log(dir / "log.txt"), dir / "t.jsonl"))
    ADD_FAILURE() << problem;
}

std::vector<FaultCase> failing_cases() {
  std::vector<FaultCase> out;
  for (const auto& c : cases())
    if (c.failures > 0) out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Matrix, ObjectiveFault, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<FaultCase>& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Matrix, ObjectiveFaultStop, ::testing::ValuesIn(failing_cases()),
                         [](const ::testing::TestParamInfo<FaultCase>& info) { return info.param.name; });
