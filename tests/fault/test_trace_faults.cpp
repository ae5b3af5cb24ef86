// Fault injection, the trace (docs/reliability.md, "Fault matrix"): a trace cut in the middle of
// a line and resumed, two processes resuming one trace at once, a write that fails at a line's
// newline (the full disk under a whole run: test_disk_full.cpp).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "fault/fault_support.hpp"
#include "optimist/core/trace.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using namespace optimist::testing;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string run_args(const fs::path& dir, const std::string& fault, std::size_t budget, const std::string& algorithm,
                     const std::string& extra_env = "") {
  return "run -q --objective-command \"" + fault_command(fault, dir / "log.txt", extra_env) +
         "\" --space space.json --direction minimize --algorithm " + algorithm + " --seed 2 --budget " +
         std::to_string(budget) + " --out t.jsonl";
}

}  // namespace

// A writer killed in the middle of a line: --resume drops the cut line, asks that point again
// (the optimizer is a function of its history) and loses no complete evaluation.
TEST(TraceFault, CutMidLineThenResumed) {
  const fs::path dir = study_test_dir();
  write_fault_space(dir / "space.json");
  ASSERT_EQ(run_optimist(run_args(dir, "ok", 12, "gp-ei"), dir).code, 0);
  const std::string full = slurp(dir / "t.jsonl");
  const Trace whole = read_trace((dir / "t.jsonl").string());
  // Cut in the middle of evaluation 7's line (line 8).
  std::size_t begin = 0;
  for (int line = 0; line < 7; ++line) begin = full.find('\n', begin) + 1;
  const std::size_t end = full.find('\n', begin);
  std::ofstream(dir / "t.jsonl", std::ios::trunc) << full.substr(0, begin + (end - begin) / 2);
  const Trace cut = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(cut.evaluations.size(), 6u);

  const CliRun resumed = run_optimist("run -q --resume t.jsonl --trust-command", dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const Trace done = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(done.evaluations.size(), 12u);
  EXPECT_TRUE(done.complete());
  // The same run as the uninterrupted one, point by point (gp-ei is deterministic given its seed).
  for (std::size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(done.evaluations[k].at("x"), whole.evaluations[k].at("x")) << "evaluation " << k + 1;
    EXPECT_EQ(done.evaluations[k].at("y"), whole.evaluations[k].at("y")) << "evaluation " << k + 1;
  }
  // The objective answered 12 + 6 values (the resumed run re-evaluated 7..12; 7's first answer was cut).
  const ObjectiveLog log = read_objective_log(dir / "log.txt");
  EXPECT_EQ(log.values.size(), 18u);
  for (const auto& problem : compare_log_with_trace(log, dir / "t.jsonl", /*unstored_allowed=*/6)) ADD_FAILURE() << problem;
}

// Two processes resume the same trace at once: one runs, the other is refused with a clear error
// (the trace's lock), and the trace ends consistent, every answered value in it exactly once.
TEST(TraceFault, TwoProcessesResumeOneTrace) {
  const fs::path dir = study_test_dir();
  write_fault_space(dir / "space.json");
  ASSERT_EQ(run_optimist(run_args(dir, "ok", 4, "random"), dir).code, 0);
  const std::string resume = std::string(OPTIMIST_CLI_PATH) + " run -q --resume t.jsonl --objective-command \"" +
                             fault_command("ok", dir / "log.txt", "SLEEP_MS=20") + "\"";
  std::size_t refusals = 0;
  for (int round = 0; round < 3; ++round) {
    // Started together: whichever locks the trace first runs; the other is refused, or (started
    // late on a loaded machine) finds the run already at its budget.
    const std::size_t budget = 40 + 10 * static_cast<std::size_t>(round);
    const std::string args = resume + " --budget " + std::to_string(budget), n = std::to_string(round);
    Process a(args, dir, "a" + n);
    Process b(args, dir, "b" + n);
    const int ca = a.wait(), cb = b.wait();
    EXPECT_EQ(std::min(ca, cb), 0) << a.err() << b.err();
    for (const auto& [code, err] : {std::pair{ca, a.err()}, std::pair{cb, b.err()}}) {
      if (code == 0) continue;
      EXPECT_EQ(code, 2) << err;
      EXPECT_NE(err.find("is being written by another process"), std::string::npos) << err;
      ++refusals;
    }
    const Trace t = read_trace((dir / "t.jsonl").string());
    EXPECT_EQ(t.evaluations.size(), budget);
    EXPECT_TRUE(t.complete());
  }
  std::printf("simultaneous resumes: %zu of 3 rounds refused the second process\n", refusals);
  // One started while the other runs: 140 evaluations (of 20 ms) still to go when the late one
  // starts, so a loaded machine does not let the runner finish first (with 20 to go it once did).
  Process runner(resume + " --budget 200", dir, "runner");
  for (int k = 0; k < 500 && read_objective_log(dir / "log.txt").values.size() < 62; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const CliRun late = run_optimist("run -q --resume t.jsonl --trust-command", dir);
  EXPECT_EQ(late.code, 2) << late.err;
  EXPECT_NE(late.err.find("is being written by another process"), std::string::npos) << late.err;
  EXPECT_EQ(runner.wait(), 0) << runner.err();
  const Trace t = read_trace((dir / "t.jsonl").string());
  EXPECT_EQ(t.evaluations.size(), 200u);
  for (const auto& problem : compare_log_with_trace(read_objective_log(dir / "log.txt"), dir / "t.jsonl"))
    ADD_FAILURE() << problem;
}

// A write that fails exactly at a line's newline (every byte of the line fits but the last): the
// line must not stay, since the error says that evaluation is not in the trace and the reader would
// take a complete line without its newline. The full-disk test met this once in a few hundred runs;
// here a file-size limit (RLIMIT_FSIZE, in a child process) puts the end of the disk there.
TEST(TraceFault, LineCutAtItsNewlineIsNotKept) {
  const fs::path dir = study_test_dir();
  Space space;
  space.add_continuous("x", 0.0, 1.0);
  TraceMeta meta;
  meta.algorithm = "random";
  meta.problem = "toy";
  meta.dim = 1;
  meta.space = space.to_json();
  std::vector<EvaluationRecord> records(2);
  for (std::size_t k = 0; k < 2; ++k) {
    records[k].i = k + 1;
    records[k].x = Vector::Constant(1, 0.25 * static_cast<double>(k + 1));
    records[k].y = records[k].f = 1.0 / 3.0 + static_cast<double>(k);
  }
  // The file's length after each line, from an unlimited writer.
  std::uintmax_t after_first = 0, after_second = 0;
  {
    TraceWriter w((dir / "whole.jsonl").string(), meta, space);
    w.write(records[0]);
    after_first = fs::file_size(dir / "whole.jsonl");
    w.write(records[1]);
    after_second = fs::file_size(dir / "whole.jsonl");
  }
  ASSERT_GT(after_second, after_first + 1);
  const std::string path = (dir / "t.jsonl").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
    int code = 3;
    try {
      TraceWriter w(path, meta, space);
      w.write(records[0]);
      const rlimit limit{static_cast<rlim_t>(after_second - 1), static_cast<rlim_t>(after_second - 1)};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(4);
      w.write(records[1]);
      code = 1;  // the write did not fail
    } catch (const std::runtime_error& e) {
      code = std::string(e.what()).find("File too large") != std::string::npos ? 0 : 2;
    } catch (...) {
      code = 3;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "1: the write did not fail; 2: another error; 3: other exception; 4: setrlimit failed";
  EXPECT_EQ(fs::file_size(path), after_first);
  const Trace kept = read_trace(path);
  ASSERT_EQ(kept.evaluations.size(), 1u);
  EXPECT_EQ(kept.evaluations[0].at("i"), 1);
}

// Past a file-size limit (ulimit -f) SIGXFSZ killed the CLI silently (status 153), its trace cut
// mid-line; it now ignores the signal, so the write fails with EFBIG and the run stops with the
// message a full disk gives, naming the evaluation the trace could not keep.
TEST(TraceFault, AFileSizeLimitStopsTheRunWithAMessage) {
  const fs::path dir = study_test_dir();
  const std::string cmd = "cd '" + dir.string() + "' && ulimit -f 16 && '" + std::string(OPTIMIST_CLI_PATH) +
                          "' run -q --problem branin --algorithm random --budget 5000 --out t.jsonl > out.txt 2> err.txt";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << slurp(dir / "err.txt");
  const std::string err = slurp(dir / "err.txt");
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  EXPECT_NE(err.find("is not in the trace, which keeps evaluations 1 to"), std::string::npos) << err;
  const Trace kept = read_trace((dir / "t.jsonl").string());  // whole lines only: resumable
  EXPECT_GT(kept.evaluations.size(), 10u);
  EXPECT_LT(kept.evaluations.size(), 5000u);
  // The point named is the evaluation's to the last digit (it was rounded to 6): the resumed run
  // asks it again, and it is the same double.
  const auto at = err.find("(x = [");
  ASSERT_NE(at, std::string::npos) << err;
  std::istringstream x(err.substr(at + 6, err.find(']', at) - at - 6));
  std::vector<double> named;
  for (std::string v; std::getline(x, v, ',');) named.push_back(std::stod(v));
  const std::size_t n = kept.evaluations.size();
  const std::string resume = "cd '" + dir.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' run -q --resume t.jsonl --budget " +
                             std::to_string(n + 1) + " > out.txt 2> err.txt";
  ASSERT_EQ(std::system(resume.c_str()), 0) << slurp(dir / "err.txt");
  const auto asked = read_trace((dir / "t.jsonl").string()).evaluations.at(n).at("x").get<std::vector<double>>();
  EXPECT_EQ(asked, named);
}

// Resuming in place copies the trace first: without room for the copy the message once named no
// reason and left an empty .resume-tmp behind.
TEST(TraceFault, ResumeWithoutRoomForTheCopyNamesWhyAndLeavesNoFile) {
  const fs::path dir = study_test_dir();
  ASSERT_EQ(run_optimist("run -q --problem branin --algorithm random --budget 100 --out t.jsonl", dir).code, 0);
  const std::string before = slurp(dir / "t.jsonl");
  ASSERT_GT(before.size(), 8192u);
  const std::string cmd = "cd '" + dir.string() + "' && ulimit -f 16 && '" + std::string(OPTIMIST_CLI_PATH) +
                          "' run -q --resume t.jsonl --budget 200 > out.txt 2> err.txt";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string err = slurp(dir / "err.txt");
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  EXPECT_NE(err.find("a second copy of the trace"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "t.jsonl.resume-tmp"));
  EXPECT_EQ(slurp(dir / "t.jsonl"), before);
}
