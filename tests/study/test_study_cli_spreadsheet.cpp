// `optimist study tell|add --from FILE.csv` with the files a lab's spreadsheet writes: rows cleared
// rather than deleted, failures told first from the shell, semicolons and decimal commas, the same
// history added twice; the note of a value told after its lease ended; a batch that could not be
// printed, or was interrupted (docs/studies.md).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "optimist/study/study.hpp"
#include "study/lab_study_cli.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using optimist::testing::run_optimist;

namespace {

class StudyCliSpreadsheet : public optimist::testing::LabStudyCli {
 protected:
  StudyCliSpreadsheet()
      : LabStudyCli("[[parameters]]\nname = \"temperature\"\ntype = \"continuous\"\nlower = 300\nupper = 450\n"
                    "[[parameters]]\nname = \"solvent\"\ntype = \"categorical\"\n"
                    "choices = [\"water\", \"DMF, dry\"]\n") {}
};

}  // namespace

// A spreadsheet saves a cleared row as ",,,": a blank line, not a row with an empty trial number.
// A failure told from the shell with its reason, then written 'failed' in the plate, is the same result.
TEST_P(StudyCliSpreadsheet, ClearedRowsAndFailuresToldBeforeDoNotRefuseThePlate) {
  create("--budget 10");
  auto r = cli("study ask " + s + "--count 3 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study tell " + s + "--trial 2 --failed 'crucible cracked'");
  ASSERT_EQ(r.code, 0) << r.err;
  write("plate.csv", "\xEF\xBB\xBFtrial,value,notes\r\n,,\r\n0,0.5,\"ok, \"\"clean\"\"\"\r\n,,\r\n2,failed,\r\n1,,\r\n");
  r = cli("study tell " + s + "--from plate.csv --ignore-column notes");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("told 1 trial(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 row(s) without a value yet, 1 told before with the same result)"), std::string::npos) << r.out;
  const auto all = trials();
  EXPECT_EQ(all[0].value, 0.5);
  EXPECT_EQ(all[1].state, TrialState::Running);
  EXPECT_EQ(all[2].error, "crucible cracked");

  write("past.csv", "temperature,solvent,value\n,,\n320,\"DMF, dry\",0.25\n");
  r = cli("study add " + s + "--from past.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials().size(), 4u);
}

// A cell formatted to show 2 decimals (or none) is saved so: the trial's own temperature rounded
// matches; another trial's does not. An emptied parameter cell checks nothing.
TEST_P(StudyCliSpreadsheet, CellsRoundedToTheirShownDecimalsMatchTheirTrial) {
  create("--budget 10");
  ASSERT_EQ(cli("study ask " + s + "--count 2").code, 0);
  const auto all = trials();
  const double t0 = all[0].x[0], t1 = all[1].x[0];
  ASSERT_GT(std::abs(t0 - t1), 0.02);
  char two[64], none[64], other[64];
  std::snprintf(two, sizeof two, "%.2f", t0);
  std::snprintf(none, sizeof none, "%.0f", t1);
  std::snprintf(other, sizeof other, "%.2f", t1);
  const std::string solvent0 = all[0].x[1] == 0.0 ? "water" : "\"DMF, dry\"";
  write("bad.csv", "trial,temperature,value\n0," + std::string(other) + ",0.5\n");
  auto r = cli("study tell " + s + "--from bad.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the file says '" + std::string(other) + "' (rows mixed up?)"), std::string::npos) << r.err;
  write("plate.csv", "trial,temperature,solvent,value\n0," + std::string(two) + "," + solvent0 + ",0.5\n1," + none + ",,\n");
  write("wide.csv", "trial,temperature,value\n0,1e3,0.5\n");
  r = cli("study tell " + s + "--from wide.csv");  // far off, and out of the bounds
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the file says '1e3' (rows mixed up?)"), std::string::npos) << r.err;
  r = cli("study tell " + s + "--from plate.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials()[0].value, 0.5);
}

// pandas' to_csv: an unnamed index column (named in the error), trial numbers as floats ("2.0")
// once a cell of the column is empty.
TEST_P(StudyCliSpreadsheet, APlateWrittenByPandasIsRead) {
  create("--budget 10");
  ASSERT_EQ(cli("study ask " + s + "--count 3").code, 0);
  write("indexed.csv", ",trial,value\n0,0,0.5\n");
  auto r = cli("study tell " + s + "--from indexed.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("(a column without a name, such as the index pandas writes: --ignore-column '')"), std::string::npos) << r.err;
  write("floats.csv", "trial,value\n0.0,0.5\n,\n2.0,0.75\n");
  r = cli("study tell " + s + "--from floats.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  write("bad.csv", "trial,value\n1.5,0.5\n");
  r = cli("study tell " + s + "--from bad.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'1.5' is not a trial number"), std::string::npos) << r.err;
  const auto all = trials();
  EXPECT_EQ(all[0].value, 0.5);
  EXPECT_EQ(all[1].state, TrialState::Running);
  EXPECT_EQ(all[2].value, 0.75);
}

// A spreadsheet set to a language with decimal commas: the error says what to change.
TEST_P(StudyCliSpreadsheet, SemicolonsAndDecimalCommasAreNamed) {
  create("--budget 10");
  ASSERT_EQ(cli("study ask " + s + "--count 1").code, 0);
  write("semi.csv", "trial;value\n0;0,5\n");
  auto r = cli("study tell " + s + "--from semi.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the header 'trial;value' is one cell: its cells are separated by ';'"), std::string::npos) << r.err;
  write("comma.csv", "trial,value\n0,\"0,5\"\n");
  r = cli("study tell " + s + "--from comma.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'0,5' is not a number (a decimal comma? write 0.5)"), std::string::npos) << r.err;
  write("split.csv", "trial,value\n0,0,5\n");
  r = cli("study tell " + s + "--from split.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("line 2: 3 cells, the header has 2 (a comma in a number or a text"), std::string::npos) << r.err;
  r = cli("study tell " + s + "--trial 0 --value 0,5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--value '0,5' is not a number (a decimal comma? write 0.5)"), std::string::npos) << r.err;
  r = cli("study add " + s + "--param temperature=350,5 --param solvent=water --value 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("(a decimal comma? write 350.5)"), std::string::npos) << r.err;
  r = cli("study add " + s + "--param temperature=350 --param solvent=DMF --value 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not one of the choices 'water', 'DMF, dry'"), std::string::npos) << r.err;
  EXPECT_EQ(trials()[0].state, TrialState::Running);
}

// `study add` run twice on the same history would count every experiment twice: refused, naming
// the trial; a failure at the same point may repeat. Past the budget, the user is told.
TEST_P(StudyCliSpreadsheet, HistoryAddedTwiceIsRefused) {
  create("--budget 3");
  write("past.csv", "temperature,solvent,value,error\n320.5,water,0.41,\n400,\"DMF, dry\",failed,tar\n");
  auto r = cli("study add " + s + "--from past.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("budget"), std::string::npos) << r.err;
  r = cli("study add " + s + "--from past.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'past.csv' line 2: trial 0 was added with the same parameters and value 0.41; added twice? (nothing was "
                       "added; a replicate that measured the same: --allow-duplicates)"),
            std::string::npos)
      << r.err;
  r = cli("study add " + s + "--param temperature=320.5 --param solvent=water --value 0.41");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("trial 0 was added with the same parameters and value 0.41"), std::string::npos) << r.err;
  EXPECT_EQ(trials().size(), 2u);
  // A replicate that measured the same value is added on request (Python: allow_duplicates=True).
  r = cli("study add " + s + "--param temperature=320.5 --param solvent=water --value 0.41 --allow-duplicates");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(trials().size(), 3u);
  EXPECT_EQ(trials()[2].value, 0.41);
  EXPECT_EQ(trials()[2].x, trials()[0].x);
  r = cli("study tell " + s + "--from past.csv");  // the wrong command for history
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("experiments no one asked are recorded with 'study add --from'"), std::string::npos) << r.err;
  r = cli("study add " + s + "--param temperature=400 --param 'solvent=DMF, dry' --failed tar");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("its budget of 3 trials is used (added experiments count against it)"), std::string::npos) << r.err;
  EXPECT_EQ(trials().size(), 4u);
}

// History past the budget is added (it was paid for), and the user is told how to ask more: by
// `study set --budget`, with the figure to exceed; `study ask` says the same. Both once only said
// the budget was used.
TEST_P(StudyCliSpreadsheet, HistoryPastTheBudgetSaysHowToRaiseIt) {
  create("--budget 2");
  write("past.csv", "temperature,solvent,value\n320.5,water,0.41\n400,water,0.5\n444.25,\"DMF, dry\",0.93\n");
  auto r = cli("study add " + s + "--from past.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials().size(), 3u);
  EXPECT_NE(r.out.find("(budget 2, 3 used)"), std::string::npos) << r.out;
  const std::string raise = "to ask more, raise it above 3 with: optimist study set --storage ";
  EXPECT_NE(r.err.find("its budget of 2 trials is used (added experiments count against it)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(raise), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" --name lab --budget N"), std::string::npos) << r.err;  // one shell word (quoted when it must be)
  r = cli("study ask " + s);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(raise), std::string::npos) << r.err;
  r = cli("study set " + s + "--budget 4");  // what the message says works
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study ask " + s);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials().size(), 4u);
}

// A value told after the lease ended says where it was kept, and that the point's re-queued copy
// is still out with someone.
TEST_P(StudyCliSpreadsheet, ALateValueSaysWhereItWentAndWhatIsStillRunning) {
  create("--budget 5 --grace 0.5 --heartbeat 0.2");
  auto r = cli("study ask " + s + "--lease 0.5s");
  ASSERT_EQ(r.code, 0) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  r = cli("study show " + s);  // reading fails nothing: the lease is said to be over
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(": failed as stale by the next ask)"), std::string::npos) << r.out;
  r = cli("study ask " + s);  // fails trial 0 as stale; trial 1 is its point again
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study tell " + s + "--trial 0 --value 2.5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(it had been failed as stale: worker"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the value is kept as trial 2); trial 1, its re-queued copy, is still running: give it back with "
                       "'study tell --trial 1 --give-back --no-requeue' unless it is being run again"),
            std::string::npos) << r.out;
  const auto all = trials();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].value, 2.5);
  EXPECT_EQ(all[1].requeued_from, 0u);

  // A plate saying 'failed' for a trial whose lease ended: failed already, the rest is told.
  r = cli("study ask " + s + "--lease 0.5s");
  ASSERT_EQ(r.code, 0) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_EQ(cli("study ask " + s).code, 0);  // fails trial 3 as stale
  r = cli("study tell " + s + "--trial 3 --failed 'no yield'");  // one trial: said, not skipped
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is failed as stale (stale: worker"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a failure told now changes nothing; its point was queued again"), std::string::npos) << r.err;
  write("plate.csv", "trial,value\n3,failed\n1,0.75\n");
  r = cli("study tell " + s + "--from plate.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("told 1 trial(s)"), std::string::npos) << r.out;
  EXPECT_EQ(trials()[1].value, 0.75);
}

// Trials that `study ask` could not print (a full disk) would be held until told, unseen: given
// back, the exit code says so, and the next ask hands out their points.
TEST_P(StudyCliSpreadsheet, TrialsThatCouldNotBePrintedAreGivenBack) {
  create("--budget 4");
  const std::string cmd = "cd '" + dir.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' study ask " + s +
                          "--count 2 --format csv > /dev/full 2> full.err";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2);
  std::ifstream in(dir / "full.err");
  const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(err.find("could not write the asked trial(s) to standard output"), std::string::npos) << err;
  auto all = trials();
  ASSERT_EQ(all.size(), 4u);  // two given back, their points queued again
  EXPECT_EQ(all[0].state, TrialState::Failed);
  EXPECT_EQ(all[1].state, TrialState::Failed);
  EXPECT_EQ(all[2].state, TrialState::Waiting);
  EXPECT_EQ(all[3].state, TrialState::Waiting);
  const auto r = cli("study ask " + s + "--count 4");
  EXPECT_EQ(r.code, 0) << r.err;  // the budget was not used by the trials nobody saw
  all = trials();
  EXPECT_EQ(all[2].x, all[0].x);
  EXPECT_EQ(all[2].state, TrialState::Running);
}

// Ctrl-C during a long batch: the trials asked so far are printed (each one the study holds),
// exit code 130.
TEST_P(StudyCliSpreadsheet, AnInterruptedBatchPrintsWhatItAsked) {
  create("--algorithm random");
  optimist::testing::Process ask(std::string(OPTIMIST_CLI_PATH) + " study ask " + s + "--count 100000 --format csv", dir, "ask");
  while (trials().size() < 20) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(ask.pid(), SIGINT);
  EXPECT_EQ(ask.wait(), 130) << ask.err();
  EXPECT_NE(ask.err().find("interrupted after"), std::string::npos) << ask.err();
  const auto all = trials();
  std::size_t printed = 0;
  std::istringstream out(ask.out());
  for (std::string line; std::getline(out, line);) printed += line.empty() || line.rfind("trial,", 0) == 0 ? 0 : 1;
  EXPECT_GE(all.size(), 20u);
  EXPECT_LT(all.size(), 100000u);
  EXPECT_EQ(printed, all.size());
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyCliSpreadsheet, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const auto& info) { return info.param; });
