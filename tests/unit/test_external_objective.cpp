// The external objective: a persistent child answering one JSON line per evaluation, and every
// way it can misbehave (exit, garbage, NaN, error answers, silence, a missing program).
#include <gtest/gtest.h>
#include <fcntl.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "optimist/core/driver.hpp"
#include "optimist/core/external_objective.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/trace.hpp"
#include "temp_test_dir.hpp"

using namespace optimist;

namespace {

/// A /bin/sh child running `script` (it reads requests with `read`).
ExternalCommand shell(const std::string& script, std::optional<double> timeout_s = 10.0) {
  ExternalCommand c;
  c.argv = {"/bin/sh", "-c", script};
  c.timeout_s = timeout_s;
  return c;
}

/// Python child answering y = sum of x plus 10 * (choice index), and echoing the params' names.
ExternalCommand python_sum() {
  ExternalCommand c;
  c.argv = {"/usr/bin/python3", "-c",
            "import json, sys\n"
            "for line in sys.stdin:\n"
            "    r = json.loads(line)\n"
            "    print(json.dumps({'y': sum(r['x']), 'names': sorted(r['params'])}), flush=True)\n"};
  c.timeout_s = 20.0;
  return c;
}

std::string error_of(JsonLineProcess& p, const nlohmann::json& msg = {{"x", {1}}}) {
  try {
    value_from_answer(p.request(msg));
  } catch (const ExternalProcessError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected ExternalProcessError";
  return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(ExternalObjective, OneChildAnswersEveryEvaluation) {
  Space space;
  space.add_continuous("a", -5, 5).add_integer("n", 0, 3);
  const Objective obj = external_objective(python_sum(), space, Direction::Maximize, "sum");
  EXPECT_EQ(obj.function(Vector{{1.5, 2.0}}), 3.5);
  EXPECT_EQ(obj.function(Vector{{-4.0, 3.0}}), -1.0);
  const Objective copy = obj;  // copies share the child
  EXPECT_EQ(copy.function(Vector{{0.25, 0.0}}), 0.25);
  EXPECT_THROW(obj.function(Vector{{9.0, 0.0}}), InvalidArgument);  // outside the space: never sent
}

// "x" holds an integer parameter's value and a categorical one's choice index as JSON integers, so
// that a program can index its list of choices with it (docs/hpo.md); they were written as 1.0.
TEST(ExternalObjective, IntegersAndChoiceIndicesAreSentAsIntegers) {
  ExternalCommand c;
  c.argv = {"/usr/bin/python3", "-c",
            "import json, sys\n"
            "for line in sys.stdin:\n"
            "    x = json.loads(line)['x']\n"
            "    ok = isinstance(x[0], float) and isinstance(x[1], int) and isinstance(x[2], int)\n"
            "    print(json.dumps({'y': ['ab', 'cd'][x[2]].count('c') + 10 * ok}), flush=True)\n"};
  c.timeout_s = 20.0;
  Space space;
  space.add_continuous("a", 0, 1).add_integer("n", 0, 3).add_categorical("c", {"ab", "cd"});
  const Objective obj = external_objective(c, space, Direction::Maximize, "types");
  EXPECT_EQ(obj.function(Vector{{1.0, 2.0, 1.0}}), 11.0);
  EXPECT_EQ(obj.function(Vector{{0.5, 0.0, 0.0}}), 10.0);
}

TEST(ExternalObjective, ChildIsStartedOncePerProcessObject) {
  JsonLineProcess p(python_sum());
  EXPECT_EQ(p.starts(), 0u);  // started lazily
  for (int i = 0; i < 5; ++i) {
    const auto answer = p.request({{"x", {i, 1}}, {"params", {{"b", 1}, {"a", 2}}}});
    EXPECT_EQ(value_from_answer(answer), i + 1.0);
    EXPECT_EQ(answer.at("names"), nlohmann::json({"a", "b"}));
  }
  EXPECT_EQ(p.starts(), 1u);
}

TEST(ExternalObjective, DriverRunsItWithRandomSearch) {
  Space space;
  space.add_continuous("a", 0, 1).add_continuous("b", 0, 1);
  const Objective obj = external_objective(python_sum(), space, Direction::Maximize);
  auto opt = make_optimizer({{"name", "random"}}, space, Direction::Maximize, RunContext{.seed = 3});
  RunOptions ro;
  ro.budget = 6;
  const RunSummary s = optimize(*opt, obj, ro);
  ASSERT_EQ(s.evaluations.size(), 6u);
  EXPECT_EQ(s.n_failed, 0u);
  for (const auto& e : s.evaluations) EXPECT_DOUBLE_EQ(*e.y, e.x.sum());
}

TEST(ExternalObjective, ChildThatExitsIsAnErrorWithItsStatusAndStderr) {
  JsonLineProcess p(shell("read line; echo 'model file missing' >&2; exit 3"));
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "exited with status 3")) << msg;
  EXPECT_TRUE(contains(msg, "model file missing")) << msg;
  // The next request starts a new child (which fails the same way).
  EXPECT_TRUE(contains(error_of(p), "status 3"));
  EXPECT_EQ(p.starts(), 2u);
}

// One evaluation per process (a common way to write a script): the next request went to the
// exited process and every second evaluation failed with "exited with status 0". A process that
// read none of a request never evaluated it, so a fresh one is asked instead.
TEST(ExternalObjective, AProgramAnsweringOneRequestPerProcessGivesEveryValue) {
  ExternalCommand c;
  c.argv = {"/usr/bin/python3", "-c", "import sys, json; print(sum(json.loads(sys.stdin.readline())['x']))"};
  c.timeout_s = 20.0;
  JsonLineProcess p(c);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(value_from_answer(p.request({{"x", {i, 0.5}}})), i + 0.5) << i;
  EXPECT_EQ(p.starts(), 20u);
  // Still exiting when the next request is sent (it sleeps after answering): that request lies
  // unread when it exits and goes to a fresh process.
  JsonLineProcess slow(shell("read line; echo \"${#line}\"; sleep 0.2"));
  for (const std::string pad : {"a", "bb", "ccc"})
    EXPECT_EQ(value_from_answer(slow.request({{"x", {1}}, {"pad", pad}})), 18.0 + static_cast<double>(pad.size())) << pad;
  EXPECT_EQ(slow.starts(), 3u);
  // Killed after its answer (it reads nothing more): replaced too, whenever the kill lands.
  JsonLineProcess killed(shell("read line; echo 2.5; sleep 0.05; kill -9 $$"));
  EXPECT_EQ(value_from_answer(killed.request({{"x", {1}}})), 2.5);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(value_from_answer(killed.request({{"x", {2}}})), 2.5);
  EXPECT_EQ(killed.starts(), 2u);
}

// A program that closes its stdin after answering and stays alive: the next request can never be
// read. optimist's own end of the program's stdin hid that, so the evaluation waited for the
// timeout (forever without one) and then failed; it now goes to a fresh process, once.
TEST(ExternalObjective, AProgramClosingItsStdinGetsTheNextRequestOnAFreshProcess) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::optional<double> timeout : {std::optional<double>(30.0), std::optional<double>()}) {
    ExternalCommand c;
    c.argv = {"/usr/bin/python3", "-c",
              "import sys, os, time, json\n"
              "x = json.loads(sys.stdin.readline())['x'][0]\n"
              "os.close(0)\n"
              "print(x * 2, flush=True)\n"
              "time.sleep(60)\n"};
    c.timeout_s = timeout;
    JsonLineProcess p(c);
    for (int i = 1; i <= 3; ++i) EXPECT_EQ(value_from_answer(p.request({{"x", {i}}})), 2.0 * i) << i;
    EXPECT_EQ(p.starts(), 3u);
  }
  // The same from a shell whose last command inherits the closed stdin.
  JsonLineProcess sh(shell("read line; echo 1.5; exec 0<&-; sleep 60", 30.0));
  EXPECT_EQ(value_from_answer(sh.request({{"x", {1}}})), 1.5);
  EXPECT_EQ(value_from_answer(sh.request({{"x", {2}}})), 1.5);
  EXPECT_EQ(sh.starts(), 2u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);  // not 30 s per request
  // Closing it at start, every time: the request fails after its one retry, named.
  JsonLineProcess never(shell("exec 0<&-; sleep 60", 30.0));
  const std::string msg = error_of(never);
  EXPECT_TRUE(contains(msg, "closed its stdin before reading the request, also when started afresh for it")) << msg;
  EXPECT_EQ(never.starts(), 2u);
  // A program slow to read (it still holds its stdin) is waited for, not replaced.
  JsonLineProcess slow(shell("sleep 1.2; read line; echo 2.5", 30.0));
  EXPECT_EQ(value_from_answer(slow.request({{"x", {1}}})), 2.5);
  EXPECT_EQ(slow.starts(), 1u);
}

// A program that exits at start without reading anything is started once more for the same
// request, not forever: each evaluation fails after one retry.
TEST(ExternalObjective, AProgramExitingBeforeReadingFailsAfterOneRetry) {
  JsonLineProcess p(shell("echo 'no licence' >&2; exit 2"));
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "exited with status 2 before reading the request, also when started afresh for it")) << msg;
  EXPECT_TRUE(contains(msg, "no licence")) << msg;
  EXPECT_EQ(p.starts(), 2u);
  EXPECT_TRUE(contains(error_of(p), "exited with status 2 before reading the request"));
  EXPECT_EQ(p.starts(), 4u);
  // Answers once, then every new process exits at start: the one that replaces it is the
  // evaluation's only fresh start, whether the first exit came before or after the request.
  const auto dir = optimist::testing::test_dir("optimist_ext_once");
  const std::string done = (dir / "done").string();
  JsonLineProcess once(shell("test -e '" + done + "' && exit 1; read line; touch '" + done + "'; echo 1.5"));
  EXPECT_EQ(value_from_answer(once.request({{"x", {1}}})), 1.5);
  const std::string second = error_of(once);
  EXPECT_TRUE(contains(second, "exited with status 1 before reading the request")) << second;
  EXPECT_EQ(once.starts(), 2u);
}

// A process that read the request (all or part of it) and died evaluated something: that is the
// evaluation's failure, never asked again (a retry could run a paid evaluation twice).
TEST(ExternalObjective, AProgramDyingAfterReadingTheRequestFailsIt) {
  const auto dir = optimist::testing::test_dir("optimist_ext_crash");
  const std::string log = (dir / "calls.txt").string();
  ExternalCommand c;
  c.argv = {"/usr/bin/python3", "-c",
            "import sys, os, json\n"
            "x = json.loads(sys.stdin.readline())['x'][0]\n"
            "open(sys.argv[1], 'a').write('%g\\n' % x)\n"
            "if x == 3: os.abort()\n"
            "print(x * 2)\n",
            log};
  c.timeout_s = 20.0;
  JsonLineProcess p(c);
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 2.0);
  EXPECT_EQ(value_from_answer(p.request({{"x", {2}}})), 4.0);
  const std::string msg = error_of(p, {{"x", {3}}});
  EXPECT_TRUE(contains(msg, "was killed by signal 6")) << msg;
  EXPECT_TRUE(contains(msg, "without answering")) << msg;
  EXPECT_EQ(value_from_answer(p.request({{"x", {4}}})), 8.0);
  EXPECT_EQ(p.starts(), 4u);
  std::ifstream calls(log);
  std::string all((std::istreambuf_iterator<char>(calls)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "1\n2\n3\n4\n");  // 3 was evaluated once
  // Read 3 bytes of the request, then exited: a failure, not a retry.
  JsonLineProcess partly(shell("dd bs=1 count=3 of=/dev/null 2>/dev/null; exit 0"));
  const std::string part = error_of(partly);
  EXPECT_TRUE(contains(part, "exited with status 0 without answering")) << part;
  EXPECT_EQ(partly.starts(), 1u);
  // Answered, then read the next request and exited: that request failed.
  JsonLineProcess reader(shell("read line; echo 1.5; read line; exit 0"));
  EXPECT_EQ(value_from_answer(reader.request({{"x", {1}}})), 1.5);
  EXPECT_TRUE(contains(error_of(reader), "exited with status 0 without answering"));
  EXPECT_EQ(reader.starts(), 1u);
}

TEST(ExternalObjective, ChildKilledBySignalIsNamed) {
  JsonLineProcess p(shell("read line; kill -9 $$"));
  EXPECT_TRUE(contains(error_of(p), "killed by signal 9"));
}

TEST(ExternalObjective, GarbageLineIsQuoted) {
  JsonLineProcess p(shell("while read line; do echo 'epoch 1 loss 0.3'; done"));
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "not JSON")) << msg;
  EXPECT_TRUE(contains(msg, "epoch 1 loss 0.3")) << msg;
}

TEST(ExternalObjective, NanAndNullAreRejected) {
  JsonLineProcess nan(shell("while read line; do echo '{\"y\": NaN}'; done"));
  const std::string msg = error_of(nan);
  EXPECT_TRUE(contains(msg, "NaN")) << msg;
  JsonLineProcess null(shell("while read line; do echo '{\"y\": null}'; done"));
  EXPECT_TRUE(contains(error_of(null), "not a finite number"));
  JsonLineProcess other(shell("while read line; do echo '{\"value\": 1}'; done"));
  EXPECT_TRUE(contains(error_of(other), "expected {\"y\": number}"));
}

// {"y": 1, "y": 2} was recorded as y = 2 silently (config files refuse a key named twice).
TEST(ExternalObjective, AnAnswerNamingAKeyTwiceIsRefused) {
  JsonLineProcess p(shell("while read line; do echo '{\"y\": 1, \"y\": 2}'; done"));
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "printed an answer in which the key 'y' appears twice in one object: '{\"y\": 1, \"y\": 2}'")) << msg;
  EXPECT_EQ(p.starts(), 1u);  // the program answered; it is kept
  JsonLineProcess nested(shell("while read line; do echo '{\"y\": 1, \"info\": {\"a\": 1, \"a\": 1}}'; done"));
  EXPECT_TRUE(contains(error_of(nested), "the key 'a' appears twice")) << error_of(nested);
  // The same key in two objects is fine.
  JsonLineProcess two(shell("while read line; do echo '{\"y\": 1.5, \"info\": [{\"y\": 1}, {\"y\": 2}]}'; done"));
  EXPECT_EQ(value_from_answer(two.request({{"x", {1}}})), 1.5);
}

TEST(ExternalObjective, ReportedErrorKeepsTheChild) {
  JsonLineProcess p(shell("while read line; do echo '{\"error\": \"diverged\"}'; done"));
  EXPECT_TRUE(contains(error_of(p), "diverged"));
  EXPECT_TRUE(contains(error_of(p), "diverged"));
  EXPECT_EQ(p.starts(), 1u);
}

// A result dict with "error": None is a success (it once failed the evaluation and lost y).
TEST(ExternalObjective, AnEmptyErrorIsNoError) {
  for (const char* none : {"null", "false", "\"\""}) {
    JsonLineProcess p(shell(std::string("while read line; do echo '{\"y\": 1.5, \"error\": ") + none + "}'; done"));
    EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 1.5) << none;
  }
}

// A program that exits while a process it started holds its stdout: no end of file comes, so its
// exit is noticed by waiting for it (the evaluation hung until the timeout, or forever without one).
TEST(ExternalObjective, AnExitIsNoticedWhileAGrandchildHoldsStdout) {
  JsonLineProcess p(shell("sleep 1000 & read line; exit 0", 60.0));
  const std::string e = error_of(p);
  EXPECT_TRUE(contains(e, "exited with status 0 without answering")) << e;  // not "did not answer within 60 s"
}

TEST(ExternalObjective, BareNumberIsAccepted) {
  JsonLineProcess p(shell("while read line; do echo 0.25; done"));
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 0.25);
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 0.25);
  EXPECT_EQ(p.starts(), 1u);
}

// An empty answer once hung forever (skipped, while the program waited for the next request).
TEST(ExternalObjective, EmptyAnswerIsAnErrorNotAHang) {
  JsonLineProcess p(shell("while read line; do echo; done"));
  EXPECT_TRUE(contains(error_of(p), "printed an empty line instead of an answer"));
  EXPECT_TRUE(contains(error_of(p), "empty line"));  // a fresh child, the same answer
  EXPECT_EQ(p.starts(), 2u);
}

// Two answers to one request once shifted every later value onto the wrong point.
TEST(ExternalObjective, TwoAnswersToOneRequestAreRefused) {
  JsonLineProcess p(shell("while read line; do echo 0.5; echo 0.75; done"));
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 0.5);
  // The next request at once (stop 60: the extra line arrived just after the check and was taken
  // as this request's answer, shifting every later value onto the wrong point).
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "more than one line for one request")) << msg;
  EXPECT_TRUE(contains(msg, "0.75")) << msg;
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 0.5);  // a fresh child answers again
  EXPECT_EQ(p.starts(), 2u);
  // A trailing empty line after an answer is harmless and tolerated.
  JsonLineProcess trailing(shell("while read line; do echo 0.5; echo; done"));
  EXPECT_EQ(value_from_answer(trailing.request({{"x", {1}}})), 0.5);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(value_from_answer(trailing.request({{"x", {1}}})), 0.5);
}

// Descriptors of ours open without close-on-exec (the trace being written, a study's database)
// once reached every objective program: the trace's was writable there.
TEST(ExternalObjective, TheProgramInheritsOnlyItsStandardStreams) {
  const int leaked = ::open("/dev/null", O_WRONLY);  // no O_CLOEXEC, as std::ofstream opens files
  ASSERT_GE(leaked, 3);
  JsonLineProcess p(shell("while read line; do ls /proc/self/fd | wc -l; done"));
  // ls's 0, 1 (the pipe to wc), 2 and the directory it reads: nothing of ours.
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 4.0);
  ::close(leaked);
}

TEST(ExternalObjective, SilentChildTimesOutAndIsKilled) {
  JsonLineProcess p(shell("while read line; do sleep 30; done", 0.3));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of(p);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(contains(msg, "within 0.3 s")) << msg;
  EXPECT_LT(waited, 5.0);  // a bound against hanging, not a speed test
}

TEST(ExternalObjective, ChildIgnoringEndOfInputDoesNotHangTheDestructor) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    JsonLineProcess p(shell("echo 1; sleep 60"));
    EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 1.0);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

// The program's raw bytes in a message (its stderr, a quoted line cut in the middle of a
// character) made the trace's JSON writer throw: the run ended and the evaluation was lost.
TEST(ExternalObjective, MessagesAreValidUtf8WhateverTheProgramPrints) {
  JsonLineProcess bytes(shell("read line; printf 'bad \\377\\376 bytes\\n' >&2; exit 3"));
  const std::string stderr_msg = error_of(bytes);
  EXPECT_TRUE(contains(stderr_msg, "bad \\xff\\xfe bytes")) << stderr_msg;
  EXPECT_NO_THROW((void)nlohmann::json(stderr_msg).dump());
  // 300 three-byte characters: the quote is cut after 200 bytes, between two of them.
  JsonLineProcess euros(shell("while read line; do /usr/bin/python3 -c 'print(\"\\u20ac\" * 300)'; done"));
  const std::string quoted = error_of(euros);
  EXPECT_TRUE(contains(quoted, "not JSON")) << quoted;
  EXPECT_NO_THROW((void)nlohmann::json(quoted).dump());
  // A terminal escape sequence is shown, not sent to the user's terminal.
  JsonLineProcess escape(shell("while read line; do printf '\\033[31m1\\n'; done"));
  EXPECT_TRUE(contains(error_of(escape), "'\\x1b[31m1'"));
}

// nlohmann's parser stops at a NUL byte: "3.5\0garbage" was taken as 3.5.
TEST(ExternalObjective, ANulByteInAnAnswerIsRefused) {
  JsonLineProcess p(shell("while read line; do printf '3.5\\000garbage\\n'; done"));
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "NUL byte")) << msg;
  EXPECT_TRUE(contains(msg, "3.5\\x00garbage")) << msg;
}

// C's and Python's spellings of non-finite numbers and an overflowing literal get the reason,
// not only "not JSON" (only NaN and Infinity were named).
TEST(ExternalObjective, NonFiniteSpellingsAndOverflowAreNamed) {
  for (const char* line : {"nan", "inf", "-inf", "{\"y\": nan}"}) {
    JsonLineProcess p(shell(std::string("while read line; do echo '") + line + "'; done"));
    EXPECT_TRUE(contains(error_of(p), "NaN and Infinity are not JSON numbers")) << line;
  }
  JsonLineProcess overflow(shell("while read line; do echo '{\"y\": 1e400}'; done"));
  const std::string msg = error_of(overflow);
  EXPECT_TRUE(contains(msg, "beyond the range of a double")) << msg;
  EXPECT_EQ(overflow.starts(), 1u);
  JsonLineProcess word(shell("while read line; do echo 'info: 1'; done"));
  EXPECT_FALSE(contains(error_of(word), "NaN"));  // "info" is not "inf"
}

// A request larger than the socket's buffer, to a program that does not read it, blocked the
// send past the timeout (until the program exited, or forever).
TEST(ExternalObjective, ARequestThatIsNotReadTimesOut) {
  JsonLineProcess p(shell("sleep 6", 0.5));
  const std::string big(4u << 20, 'a');
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of(p, {{"x", {1}}, {"pad", big}});
  EXPECT_TRUE(contains(msg, "did not read its request within 0.5 s")) << msg;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 4.0);  // not 6 s
}

// A program printing much on stderr before it reads a large request: each side waited for the
// other to read (a deadlock until the timeout). The request is 1 MB, five times the socket's
// buffer: the shell's `read` takes it a byte per system call (4 MB took 6 s on an idle machine and
// passed the 20 s timeout under load), so the timeout is generous; a deadlock still reaches it.
TEST(ExternalObjective, ALargeRequestAndAFullStderrDoNotDeadlock) {
  JsonLineProcess p(shell("head -c 2000000 /dev/zero >&2; while read line; do echo 1; done", 60.0));
  const std::string big(1u << 20, 'a');
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}, {"pad", big}})), 1.0);
}

// A program that exits while a process it started keeps writing to stderr: every poll woke up for
// the output, so the exit was checked only when one timed out (never, or at the timeout).
TEST(ExternalObjective, AnExitIsNoticedWhileAGrandchildKeepsWriting) {
  JsonLineProcess p(shell("(while :; do echo log >&2; sleep 0.02; done) & read line; exit 0", 30.0));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "exited with status 0 without answering")) << msg;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);  // not 30 s
}

// Stopped by SIGTTIN (reading the terminal from a background process group), a program is never
// continued: optimist waited for it forever, or until the timeout.
TEST(ExternalObjective, AProgramStoppedForTheTerminalFails) {
  JsonLineProcess p(shell("read line; kill -TTIN $$; echo 1", 20.0));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of(p);
  EXPECT_TRUE(contains(msg, "stopped by SIGTTIN")) << msg;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);  // not 20 s
}

// A timeout beyond the clock's range (1e300 s) overflowed the deadline: undefined behaviour
// (the sanitizer build aborts), and it means "wait".
TEST(ExternalObjective, AHugeTimeoutMeansWaiting) {
  JsonLineProcess p(shell("while read line; do sleep 0.2; echo 1; done", 1e300));
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 1.0);
}

// Up front, before the run: a directory passed as a program, a script whose #! interpreter is
// missing (spawning said "No such file or directory" at the first evaluation, as if the script
// were) or has Windows line ends.
TEST(ExternalObjective, UnrunnableProgramsAreRefusedUpFront) {
  const auto dir = optimist::testing::test_dir("optimist_ext_unrunnable");
  const auto refused = [](const std::string& program) -> std::string {
    ExternalCommand c;
    c.argv = {program};
    try {
      JsonLineProcess p(c);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_TRUE(contains(refused(dir.string()), "is a directory")) << refused(dir.string());
  const auto script = [&](const std::string& name, const std::string& text, bool executable = true) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    std::filesystem::permissions(path, executable ? std::filesystem::perms::owner_all : std::filesystem::perms::owner_read);
    return path;
  };
  const std::string missing = refused(script("missing.sh", "#!/nonexistent/interpreter\necho 1\n"));
  EXPECT_TRUE(contains(missing, "names the interpreter '/nonexistent/interpreter' on its #! line")) << missing;
  const std::string crlf = refused(script("crlf.sh", "#!/bin/sh\r\necho 1\r\n"));
  EXPECT_TRUE(contains(crlf, "Windows line ends")) << crlf;
  EXPECT_TRUE(contains(refused(script("plain.sh", "echo 1\n", false)), "is not executable"));
  EXPECT_EQ(refused(script("ok.sh", "#!/bin/sh\necho 1\n")), "accepted");
  std::filesystem::remove_all(dir);
}

TEST(ExternalObjective, MissingProgramAndBadSettingsAreClearErrors) {
  ExternalCommand missing;
  missing.argv = {"optimist-no-such-program", "--flag"};
  try {
    JsonLineProcess p(missing);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "'optimist-no-such-program' not found on PATH")) << e.what();
  }
  missing.argv = {"/nonexistent/worker.py"};
  EXPECT_THROW(JsonLineProcess{missing}, InvalidArgument);
  EXPECT_THROW(JsonLineProcess{ExternalCommand{}}, InvalidArgument);
  EXPECT_THROW(JsonLineProcess(shell("cat", 0.0)), InvalidArgument);
}

TEST(ExternalObjective, EnvironmentEntriesReachTheChild) {
  ExternalCommand c = shell("while read line; do echo \"{\\\"y\\\": $OPTIMIST_TEST_VALUE}\"; done");
  c.env["OPTIMIST_TEST_VALUE"] = "7.5";
  JsonLineProcess p(c);
  EXPECT_EQ(value_from_answer(p.request({{"x", {1}}})), 7.5);
}

// These reached the child silently changed: a NUL byte cut the string, "A=B" set A to "B=x".
TEST(ExternalObjective, BadEnvironmentNamesAndNulBytesAreRefused) {
  const auto refused = [](const ExternalCommand& c) {
    try {
      JsonLineProcess p(c);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  ExternalCommand c = shell("cat");
  c.env["A=B"] = "x";
  EXPECT_TRUE(contains(refused(c), "name 'A=B' is empty or contains '='")) << refused(c);
  c.env.clear();
  c.env[""] = "x";
  EXPECT_TRUE(contains(refused(c), "name ''")) << refused(c);
  c.env.clear();
  c.env["A"] = std::string("x\0y", 3);
  EXPECT_TRUE(contains(refused(c), "A = 'x\\x00y' contains a NUL byte")) << refused(c);
  c.env.clear();
  c.argv.push_back(std::string("--lr\0" "1", 6));
  EXPECT_TRUE(contains(refused(c), "argument '--lr\\x001' contains a NUL byte")) << refused(c);
}

TEST(ExternalObjective, FailuresUnderTheDriverAreRecordedNotFatal) {
  Space space = Space::box(1, 0, 1);
  const Objective obj = external_objective(shell("read line; exit 1"), space, Direction::Minimize);
  auto opt = make_optimizer({{"name", "random"}}, space, Direction::Minimize, RunContext{.seed = 1});
  RunOptions ro;
  ro.budget = 3;
  ro.on_failure = FailurePolicy::MarkFailed;
  const RunSummary s = optimize(*opt, obj, ro);
  EXPECT_EQ(s.n_failed, 3u);
  EXPECT_TRUE(contains(s.evaluations[0].error, "exited with status 1")) << s.evaluations[0].error;
}

TEST(ExternalObjective, SplitsCommandLinesLikeAShell) {
  EXPECT_EQ(split_command_line("python3 train.py --lr 'a b' \"c d\" e\\ f"),
            (std::vector<std::string>{"python3", "train.py", "--lr", "a b", "c d", "e f"}));
  EXPECT_THROW(split_command_line("   "), InvalidArgument);
  EXPECT_THROW(split_command_line("python3 a.py | tee log"), InvalidArgument);
  EXPECT_THROW(split_command_line("python3 'unbalanced"), InvalidArgument);
  EXPECT_THROW(split_command_line("run $(whoami)"), InvalidArgument);
}

// `optimist run --objective-command`: the user's program optimized from the command line.
namespace {

struct CliResult {
  int code = -1;
  std::string out;
};

CliResult run_cli(const std::filesystem::path& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' run -q " + args +
                          " > out.txt 2>&1 < /dev/null";
  const int status = std::system(cmd.c_str());
  std::ifstream in(dir / "out.txt");
  std::ostringstream os;
  os << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, os.str()};
}

std::filesystem::path fresh_dir() { return optimist::testing::test_dir("optimist_ext"); }

}  // namespace

// A conditional parameter from a TOML space file: the program never sees it where its condition
// does not hold (it fails the evaluation if it does), and no point is evaluated twice.
TEST(ExternalObjectiveCli, AConditionalParameterIsLeftOutWhereItsConditionDoesNotHold) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "space.toml") << "[[parameters]]\nname = \"kind\"\ntype = \"categorical\"\nchoices = [\"flat\", \"bowl\"]\n"
                                       "[[parameters]]\nname = \"n\"\ntype = \"integer\"\nlower = 1\nupper = 5\n"
                                       "condition = { parent = \"kind\", values = [\"bowl\"] }\n";
  std::ofstream(dir / "obj.py") << "import json, sys\n"
                                   "for line in sys.stdin:\n"
                                   "    p = json.loads(line)['params']\n"
                                   "    if p['kind'] == 'flat' and 'n' in p:\n"
                                   "        print(json.dumps({'error': 'n given for flat'}), flush=True)\n"
                                   "    else:\n"
                                   "        print(json.dumps({'y': -1 if p['kind'] == 'flat' else (p['n'] - 4) ** 2}), flush=True)\n";
  const CliResult ok = run_cli(dir, "--objective-command '/usr/bin/python3 obj.py' --space space.toml "
                                    "--direction minimize --algorithm gp-ei --budget 20 --out t.jsonl");
  ASSERT_EQ(ok.code, 0) << ok.out;
  const Trace trace = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(trace.evaluations.size(), 6u) << ok.out;  // flat, and bowl with n = 1..5: the space is exhausted
  std::set<std::string> points;
  for (const auto& e : trace.evaluations) {
    EXPECT_FALSE(e.contains("error")) << e.dump();
    EXPECT_TRUE(points.insert(e.at("x").dump()).second) << e.dump();
    if (e.at("x")[0] == "flat") {
      EXPECT_EQ(e.at("x")[1], 1) << e.dump();  // the fixed value: its lower bound
    }
  }
  EXPECT_NE(ok.out.find("at [flat, -]"), std::string::npos) << ok.out;  // the summary marks n unused
  EXPECT_EQ(trace.meta.space.at("parameters")[1].at("condition"),
            (nlohmann::json{{"parent", "kind"}, {"values", {"bowl"}}}));
}

TEST(ExternalObjectiveCli, OptimizesAProgramOverASpaceFile) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "space.json")
      << R"({"parameters": [{"name": "a", "type": "continuous", "lower": -2, "upper": 2},
                            {"name": "kind", "type": "categorical", "choices": ["good", "bad"]}]})";
  std::ofstream(dir / "obj.py") << "import json, sys\n"
                                   "for line in sys.stdin:\n"
                                   "    p = json.loads(line)['params']\n"
                                   "    y = (p['a'] - 0.5) ** 2 + (0 if p['kind'] == 'good' else 3)\n"
                                   "    print(json.dumps({'y': y}), flush=True)\n";
  const CliResult ok = run_cli(dir, "--objective-command '/usr/bin/python3 obj.py' --space space.json "
                                    "--direction minimize --algorithm sobol --budget 8 --out t.jsonl");
  ASSERT_EQ(ok.code, 0) << ok.out;
  const Trace trace = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(trace.evaluations.size(), 8u);
  EXPECT_FALSE(trace.meta.f_star.has_value());
  for (const auto& e : trace.evaluations) {
    const double a = e.at("x")[0].get<double>();
    const double expected = (a - 0.5) * (a - 0.5) + (e.at("x")[1] == "good" ? 0.0 : 3.0);
    EXPECT_DOUBLE_EQ(e.at("y").get<double>(), expected);
  }

  const CliResult no_direction =
      run_cli(dir, "--objective-command '/usr/bin/python3 obj.py' --space space.json --algorithm sobol --budget 3");
  EXPECT_EQ(no_direction.code, 2);
  EXPECT_NE(no_direction.out.find("--direction is required"), std::string::npos) << no_direction.out;
  const CliResult both = run_cli(dir, "--problem branin --objective-command 'python3 obj.py' --space space.json "
                                      "--direction min --algorithm sobol --budget 3");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.out.find("--problem"), std::string::npos) << both.out;
  const CliResult crash = run_cli(dir, "--objective-command '/usr/bin/python3 -c \"import sys; sys.exit(4)\"' "
                                       "--space space.json --direction min --algorithm sobol --budget 3");
  EXPECT_EQ(crash.code, 1);
  EXPECT_NE(crash.out.find("exited with status 4"), std::string::npos) << crash.out;
  std::filesystem::remove_all(dir);
}

// An invalid UTF-8 byte on the program's stderr ended the run (exit 1, "[json.exception.type_error.316]")
// and the failed evaluation was not in the trace.
TEST(ExternalObjectiveCli, BinaryStderrIsRecordedInTheTrace) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "space.json")
      << R"({"parameters": [{"name": "a", "type": "continuous", "lower": -2, "upper": 2}]})";
  std::ofstream(dir / "obj.sh") << "read line; printf 'error \\377\\n' >&2; exit 3\n";
  const CliResult r = run_cli(dir, "--objective-command '/bin/sh obj.sh' --space space.json --direction minimize "
                                   "--algorithm random --budget 2 --on-failure mark-failed --out t.jsonl");
  ASSERT_EQ(r.code, 0) << r.out;
  const Trace trace = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(trace.evaluations.size(), 2u);
  for (const auto& e : trace.evaluations)
    EXPECT_TRUE(contains(e.at("error").get<std::string>(), "error \\xff")) << e.dump();
  std::filesystem::remove_all(dir);
}

TEST(ExternalObjectiveCli, ResumeAfterTheProgramCrashedAsksOnlyNewPoints) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "space.json")
      << R"({"parameters": [{"name": "a", "type": "continuous", "lower": -2, "upper": 2}]})";
  // The program logs every point it evaluates and crashes on the 4th request while 'crash' exists.
  std::ofstream(dir / "obj.py") << "import json, os, sys\n"
                                   "n = 0\n"
                                   "for line in sys.stdin:\n"
                                   "    n += 1\n"
                                   "    if n == 4 and os.path.exists('crash'): sys.exit(3)\n"
                                   "    a = json.loads(line)['params']['a']\n"
                                   "    open('calls.txt', 'a').write(repr(a) + '\\n')\n"
                                   "    print(json.dumps({'y': (a - 0.5) ** 2}), flush=True)\n";
  std::ofstream(dir / "crash") << "";
  const CliResult first = run_cli(dir, "--objective-command '/usr/bin/python3 obj.py' --space space.json "
                                       "--direction minimize --algorithm gp-ei --budget 8 --out t.jsonl");
  ASSERT_EQ(first.code, 1) << first.out;
  const Trace cut = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(cut.evaluations.size(), 4u);
  EXPECT_EQ(cut.evaluations[3].at("status"), "failed");
  EXPECT_EQ(cut.meta.objective_command, "/usr/bin/python3 obj.py");

  std::filesystem::remove(dir / "crash");
  // The trace's command runs only when named or confirmed (docs/security.md); the refusal shows it.
  const CliResult refused = run_cli(dir, "--resume t.jsonl");
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("'/usr/bin/python3 obj.py'"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("--trust-command"), std::string::npos) << refused.out;
  EXPECT_EQ(read_trace((dir / "t.jsonl").string()).evaluations.size(), 4u);
  const CliResult resumed = run_cli(dir, "--resume t.jsonl --trust-command");
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("running the objective command written in the trace 't.jsonl' (--trust-command): "
                             "/usr/bin/python3 obj.py"),
            std::string::npos) << resumed.out;
  const Trace done = read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(done.evaluations.size(), 8u);
  EXPECT_TRUE(done.complete());
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(done.evaluations[k], cut.evaluations[k]) << "evaluation " << k + 1;
  EXPECT_EQ(done.meta.run.at("resumed_after"), nlohmann::json::array({4}));
  // 3 points before the crash, 4 after the resume: no paid evaluation was asked again.
  std::ifstream calls(dir / "calls.txt");
  std::size_t lines = 0;
  for (std::string l; std::getline(calls, l);) ++lines;
  EXPECT_EQ(lines, 7u);
  std::filesystem::remove_all(dir);
}
