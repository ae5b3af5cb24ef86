// core/text.hpp's printable, and the places that store what an objective says: a trace and a study.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/trace.hpp"
#include "temp_test_dir.hpp"

using namespace optimist;

namespace {

TEST(Text, PrintableEscapesInvalidUtf8AndControlsAndKeepsTheRest) {
  EXPECT_EQ(printable("plain é 名 😀"), "plain é 名 😀");
  EXPECT_EQ(printable("a\xff" "b\xc3"), "a\\xffb\\xc3");                       // a stray and a cut character
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");                    // a UTF-16 surrogate
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                             // an overlong '/'
  EXPECT_EQ(printable("\x1b[2J\x7f"), "\\x1b[2J\\x7f");                       // a terminal escape, DEL
  EXPECT_EQ(printable("\xc2\x9b" "31m"), "\\u009b31m");                       // C1 CSI
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("l1\nl2\tx\r"), "l1\\nl2\\tx\\r");
  EXPECT_EQ(printable("l1\nl2\tx\r", /*keep_lines=*/true), "l1\nl2\tx\\r");
}

// An objective's message with bytes that are not UTF-8 (a C library's, a file name) made the
// trace's JSON writer throw: the run ended and the evaluation was lost. It is kept, escaped.
// A name shown inside a command to paste: one shell word whatever it holds (a quote in a study's
// name broke the `study set` command a refusal suggested).
TEST(Text, ClosestNameFindsTyposAndOtherCases) {
  const std::vector<std::string> names = {"branin", "hartmann6", "ackley", "gp-ei", "gp-pi", "go-ucb", "run"};
  EXPECT_EQ(optimist::closest_name("branni", names), "branin");   // two letters swapped
  EXPECT_EQ(optimist::closest_name("Branin", names), "branin");   // case
  EXPECT_EQ(optimist::closest_name("GP-EI", names), "gp-ei");
  EXPECT_EQ(optimist::closest_name("go_ucb", names), "go-ucb");   // '_' for '-'
  EXPECT_EQ(optimist::closest_name("gpei", names), "gp-ei");      // a letter left out
  EXPECT_EQ(optimist::closest_name("hartman6", names), "hartmann6");
  EXPECT_EQ(optimist::closest_name("rnu", names), "run");
  EXPECT_EQ(optimist::closest_name("nosuch", names), "");         // nothing close
  EXPECT_EQ(optimist::closest_name("x", names), "");
  EXPECT_EQ(optimist::closest_name("", names), "");
  EXPECT_EQ(optimist::did_you_mean("branni", names), " (did you mean 'branin'?)");
  EXPECT_EQ(optimist::did_you_mean("nosuch", names), "");
  // The registry's and the catalog's messages carry it, and keep their lists.
  try {
    (void)optimist::algorithm_info("gpei");
    ADD_FAILURE() << "gpei was found";
  } catch (const optimist::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown algorithm 'gpei' (did you mean 'gp-ei'?); valid algorithms: auto, "), std::string::npos) << e.what();
  }
}

TEST(Text, ShellWordQuotesWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_word("lab-2.db"), "lab-2.db");
  EXPECT_EQ(shell_word("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
  EXPECT_EQ(shell_word("it's é"), "'it'\\''s é'");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_word(""), "''");
}

TEST(Text, AMessageThatIsNotUtf8IsRecordedInTheTrace) {
  const std::string path = (optimist::testing::test_dir("optimist_text") / "t.jsonl").string();
  const Space space = Space::box(1, 0.0, 1.0);
  auto opt = make_optimizer({{"name", "random"}}, space, Direction::Minimize, RunContext{.seed = 1});
  Objective o;
  int calls = 0;
  o.function = [&](const Vector& x) -> double {
    if (++calls == 2) throw std::runtime_error("cannot open '\xff\xfe.dat'\x1b[0m");
    return x(0);
  };
  o.direction = Direction::Minimize;
  TraceMeta meta;
  meta.algorithm = "random";
  meta.problem = "p";
  meta.dim = 1;
  meta.budget = 3;
  meta.space = space.to_json();
  TraceWriter writer(path, meta, space);
  RunOptions ro;
  ro.budget = 3;
  ro.on_failure = FailurePolicy::MarkFailed;
  ro.trace = &writer;
  const RunSummary s = optimize(*opt, o, ro);
  ASSERT_EQ(s.evaluations.size(), 3u);
  const Trace t = read_trace(path);
  ASSERT_EQ(t.evaluations.size(), 3u);
  const std::string error = t.evaluations[1].at("error");
  EXPECT_NE(error.find("cannot open '\\xff\\xfe.dat'\\x1b[0m"), std::string::npos) << error;
  EXPECT_EQ(s.evaluations[1].error, error);
}

}  // namespace
