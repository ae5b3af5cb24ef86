// Fault injection, a full disk (docs/reliability.md, "Fault matrix"): the trace of a run and the
// SQLite file of a study on a small tmpfs that fills up. The tmpfs is mounted in a user and mount
// namespace (unshare -rm: no root needed where unprivileged user namespaces are allowed); where
// they are not, the same scenario runs under RLIMIT_FSIZE (writes past the limit fail with EFBIG,
// "File too large", as they fail with ENOSPC on a full disk), and the test says which it used.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fault/fault_support.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/study/storage.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using namespace optimist::testing;
namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs `command` (a shell command line, in `dir`) with `full/` a file system of `kib` KiB: a
/// tmpfs when a mount namespace can be made, else the current folder under a file-size limit.
/// After it, copies `keep` (paths under full/) to dir/kept/. Returns the exit code; `how` says
/// which file system it was.
int run_on_full_disk(const fs::path& dir, const std::string& command, int kib, const std::vector<std::string>& keep,
                     std::string& how, std::string& err) {
  fs::create_directories(dir / "full");
  fs::create_directories(dir / "kept");
  std::string copy;
  for (const auto& k : keep) copy += "cp -p full/" + k + " kept/ 2>/dev/null; ";
  const std::string inner = "cd " + quoted(dir.string()) + " && " + command + " 2> err.txt; rc=$?; " + copy + "exit $rc";
  const bool tmpfs = std::system("unshare --user --map-root-user --mount true > /dev/null 2>&1") == 0;
  std::string shell;
  if (tmpfs) {
    how = "tmpfs of " + std::to_string(kib) + " KiB in a user and mount namespace";
    shell = "unshare --user --map-root-user --mount sh -c " +
            quoted("mount -t tmpfs -o size=" + std::to_string(kib) + "k tmpfs " + quoted((dir / "full").string()) + " && " + inner);
  } else {
    how = "RLIMIT_FSIZE of " + std::to_string(kib) + " KiB (no user namespaces here)";
    // SIGXFSZ ignored: a write past the limit then fails with EFBIG instead of killing the process.
    shell = "sh -c " + quoted("trap '' XFSZ; prlimit --fsize=" + std::to_string(kib * 1024) + " sh -c " + quoted(inner));
  }
  std::printf("full disk: %s\n", how.c_str());
  const int status = std::system(shell.c_str());
  std::ifstream in(dir / "err.txt");
  std::ostringstream os;
  os << in.rdbuf();
  err = os.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

// The trace fills the disk: the run stops with the system's reason and the evaluation it could
// not write (its value is in the message); the trace keeps every earlier line, and --resume
// continues it elsewhere with nothing lost.
TEST(DiskFull, TraceStopsWithTheUnwrittenValueAndResumes) {
  const fs::path dir = study_test_dir();
  write_fault_space(dir / "space.json");
  std::string how, err;
  const std::string run = "'" + std::string(OPTIMIST_CLI_PATH) + "' run -q --objective-command \"" +
                          fault_command("ok", dir / "log.txt") +
                          "\" --space space.json --direction minimize --algorithm random --budget 2000 --out full/t.jsonl";
  const int code = run_on_full_disk(dir, run, 64, {"t.jsonl"}, how, err);
  RecordProperty("full_disk", how);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("error writing trace file 'full/t.jsonl': "), std::string::npos) << err;
  EXPECT_TRUE(err.find("No space left on device") != std::string::npos || err.find("File too large") != std::string::npos)
      << err;
  EXPECT_NE(err.find("make room, then --resume it"), std::string::npos) << err;
  ASSERT_TRUE(fs::exists(dir / "kept" / "t.jsonl"));
  const Trace kept = read_trace((dir / "kept" / "t.jsonl").string());
  ASSERT_GT(kept.evaluations.size(), 10u);
  EXPECT_LT(kept.evaluations.size(), 2000u);
  // The one answered value the trace lacks is the one the message shows.
  const ObjectiveLog log = read_objective_log(dir / "log.txt");
  ASSERT_EQ(log.values.size(), kept.evaluations.size() + 1);
  EXPECT_NE(err.find("y = " + format_double(log.values.back().y)), std::string::npos) << err;
  for (const auto& problem : compare_log_with_trace(log, dir / "kept" / "t.jsonl", 1)) ADD_FAILURE() << problem;

  // Recovery: the trace moved to a disk with room, resumed for 20 more evaluations. (With a fixed
  // --budget 120 this part was skipped whenever the full disk had kept 120 lines or more: always
  // on a 64 KiB disk, which holds about 250.)
  fs::copy_file(dir / "kept" / "t.jsonl", dir / "t.jsonl");
  const std::size_t total = kept.evaluations.size() + 20;
  const CliRun resumed = run_optimist("run -q --resume t.jsonl --budget " + std::to_string(total) + " --objective-command \"" +
                                          fault_command("ok", dir / "log.txt") + "\"",
                                      dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const Trace done = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(done.evaluations.size(), total);
  EXPECT_TRUE(done.complete());
  for (std::size_t k = 0; k < kept.evaluations.size(); ++k) EXPECT_EQ(done.evaluations[k], kept.evaluations[k]) << k;
  // The evaluation lost with the full disk is evaluated again (it was never stored); every other
  // value comes from the program once, as the log shows.
  const ObjectiveLog all = read_objective_log(dir / "log.txt");
  EXPECT_EQ(all.values.size(), total + 1);
  for (const auto& problem : compare_log_with_trace(all, dir / "t.jsonl", 1)) ADD_FAILURE() << problem;
}

// A study's SQLite file fills the disk: the worker stops with SQLite's reason and the values it
// could not store; the database stays consistent and keeps every trial it committed.
TEST(DiskFull, StudyStopsCleanlyAndKeepsItsCommittedTrials) {
  const fs::path dir = study_test_dir();
  write_fault_space(dir / "space.json");
  std::string how, err;
  const std::string url = "sqlite:///full/s.db";
  const std::string cli = "'" + std::string(OPTIMIST_CLI_PATH) + "'";
  const std::string command = cli + " study create --storage " + url + " --name s --objective-command \"" +
                              fault_command("ok", dir / "log.txt") +
                              "\" --space space.json --direction minimize --algorithm random --budget 100000 > /dev/null && " + cli +
                              " worker -q --trust-command --storage " + url + " --name s --jobs 2 > /dev/null";
  // 2 MiB: SQLite's write-ahead log grows by whole pages per commit before it is checkpointed.
  const int code = run_on_full_disk(dir, command, 2048, {"s.db", "s.db-wal", "s.db-shm"}, how, err);
  std::printf("the worker's error: %s\n", err.c_str());
  RecordProperty("full_disk", how);
  EXPECT_EQ(code, 1) << err;
  EXPECT_TRUE(err.find("full") != std::string::npos || err.find("too large") != std::string::npos) << err;
  ASSERT_TRUE(fs::exists(dir / "kept" / "s.db"));
  Storage storage("sqlite:///" + (dir / "kept" / "s.db").string());
  EXPECT_EQ(storage.integrity_check(), "ok");
  const auto study = storage.load_study("s");
  const auto trials = storage.trials(study.id);
  const ObjectiveLog log = read_objective_log(dir / "log.txt");
  std::multiset<std::pair<std::vector<double>, double>> answered;
  for (const auto& v : log.values) answered.insert({v.x, v.y});
  std::size_t complete = 0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    EXPECT_EQ(trials[i].number, i);
    if (trials[i].state != TrialState::Complete) continue;
    ++complete;
    const std::vector<double> x(trials[i].x.data(), trials[i].x.data() + trials[i].x.size());
    const auto it = answered.find({x, *trials[i].value});
    if (it == answered.end()) ADD_FAILURE() << "trial " << i << " holds a value the objective never answered";
    else answered.erase(it);
  }
  EXPECT_GT(complete, 10u);
  // At most one evaluation per job was answered and not stored, and the message shows each value.
  EXPECT_LE(answered.size(), 2u) << err;
  for (const auto& [x, y] : answered) EXPECT_NE(err.find("y = " + format_double(y)), std::string::npos) << err;
}
