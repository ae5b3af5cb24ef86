// `optimist study ask|tell|add` end to end, on every storage backend: a lab's batch of
// experiments asked, told days later from another shell, historical data added from a CSV file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "optimist/study/study.hpp"
#include "study/lab_study_cli.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using optimist::testing::run_optimist;

namespace {

class StudyCliByHand : public optimist::testing::LabStudyCli {
 protected:
  StudyCliByHand()
      : LabStudyCli("[[parameters]]\nname = \"temperature\"\ntype = \"continuous\"\nlower = 300\nupper = 450\n"
                    "[[parameters]]\nname = \"time_h\"\ntype = \"integer\"\nlower = 1\nupper = 24\n"
                    "[[parameters]]\nname = \"solvent\"\ntype = \"categorical\"\n"
                    "choices = [\"water\", \"ethanol\", \"acetone\"]\n") {}
};

// Ordered: the parameters come in the space's order.
std::vector<nlohmann::ordered_json> json_lines(const std::string& out) {
  std::vector<nlohmann::ordered_json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::ordered_json::parse(line));
  return lines;
}

std::vector<std::string> text_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

// The lab's cycle: historical data added, a plate of 8 asked, the grace period passes (nobody
// heartbeats a hand-run experiment), another ask gets new points, results told one by one later.
TEST_P(StudyCliByHand, AskABatchTellLaterAddHistory) {
  create("--budget 14 --grace 1 --heartbeat 0.5");
  write("history.csv", "\xEF\xBB\xBFtemperature,time_h,solvent,value,notes\r\n"
                       "320.5,2,water,0.41,first run\r\n"
                       "\"400\", 12 ,\"ethanol\",failed,\"spilled, redone later\"\r\n"
                       "\r\n"
                       "444.25,24,acetone,0.93,\r\n");
  auto r = cli("study add " + s + "--from history.csv --ignore-column notes");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("added 3 evaluation(s) to study 'lab' as trials 0 to 2"), std::string::npos) << r.out;

  r = cli("study ask " + s + "--count 8 --format json --worker-name ann");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto plate = json_lines(r.out);
  ASSERT_EQ(plate.size(), 8u) << r.out;
  std::set<std::string> points;
  for (std::size_t k = 0; k < plate.size(); ++k) {
    EXPECT_EQ(plate[k]["trial"], 3 + k);
    const auto& p = plate[k]["params"];
    ASSERT_EQ(p.size(), 3u) << p.dump();
    EXPECT_EQ(p.begin().key(), "temperature");  // in the space's order
    EXPECT_TRUE(p["temperature"].is_number_float());
    EXPECT_GE(p["temperature"].get<double>(), 300.0);
    EXPECT_LE(p["temperature"].get<double>(), 450.0);
    EXPECT_TRUE(p["time_h"].is_number_integer()) << p.dump();
    EXPECT_TRUE(p["solvent"].is_string()) << p.dump();
    points.insert(p.dump());
  }
  EXPECT_EQ(points.size(), 8u);  // each ask saw the earlier ones as pending

  // Past the grace period: a worker's silent trials would be failed as stale and handed out
  // again; these are held until told.
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  r = cli("study ask " + s + "--format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("trial,temperature,time_h,solvent\n11,", 0), 0u) << r.out;
  for (const auto& t : trials()) EXPECT_FALSE(t.stale) << "trial " << t.number << ": " << t.error;

  // Told later, from another shell (another worker name), one by one; one experiment failed.
  for (std::size_t k = 0; k < plate.size(); ++k) {
    const std::string trial = "--trial " + std::to_string(3 + k) + " ";
    r = cli("study tell " + s + trial + (k == 5 ? "--failed 'cracked crucible'" : "--value " + std::to_string(0.5 + 0.01 * k)));
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_NE(r.out.find("told trial 10 of study 'lab': 0.57"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best so far 0.93 (trial 2)"), std::string::npos) << r.out;
  const auto all = trials();
  ASSERT_EQ(all.size(), 12u);
  EXPECT_EQ(all[3].worker, "ann");
  EXPECT_EQ(all[3].value, 0.5);
  EXPECT_EQ(all[8].state, TrialState::Failed);
  EXPECT_EQ(all[8].error, "cracked crucible");
  EXPECT_EQ(all[11].state, TrialState::Running);
  EXPECT_EQ(all[1].error, "failed");

  r = cli("study show " + s);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 waiting, 1 running, 9 complete, 2 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best       0.93 at [444.25, 24, acetone] (trial 2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(held until told)"), std::string::npos) << r.out;

  // The budget (14) leaves two: asked, then the shortfall is said, exit 3.
  r = cli("study ask " + s + "--count 3 --lease 36h");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("asked 2 of 3 trial(s): the budget of 14 trials is used"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\n12 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n13 "), std::string::npos) << r.out;
  const auto last = trials();
  ASSERT_TRUE(last[13].lease_until);
  ASSERT_TRUE(last[13].started);
  EXPECT_NEAR(*last[13].lease_until - *last[13].started, 36 * 3600.0, 60.0);
}

// Floats are printed in full: the text reads back to the stored double.
TEST_P(StudyCliByHand, AskedValuesReadBackExactly) {
  create("--budget 10 --algorithm random");
  auto r = cli("study ask " + s + "--count 3 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "trial,temperature,time_h,solvent");
  const auto stored = trials();
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(std::getline(in, line)) << r.out;
    std::istringstream cells(line);
    std::string number, temperature, time_h, solvent;
    std::getline(cells, number, ',');
    std::getline(cells, temperature, ',');
    std::getline(cells, time_h, ',');
    std::getline(cells, solvent, ',');
    EXPECT_EQ(number, std::to_string(k));
    EXPECT_EQ(std::strtod(temperature.c_str(), nullptr), stored[k].x[0]) << line;
    EXPECT_EQ(std::stoll(time_h), static_cast<long long>(stored[k].x[1])) << line;
    EXPECT_EQ(solvent, (std::vector<std::string>{"water", "ethanol", "acetone"}[static_cast<std::size_t>(stored[k].x[2])]));
  }
  r = cli("study ask " + s);  // the table, for people
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("trial  temperature", 0), 0u) << r.out;
}

// Bad input: exit 2, a message naming the offending value, and nothing written.
TEST_P(StudyCliByHand, BadInputIsRefusedNamingTheValue) {
  create("--budget 10");
  auto r = cli("study ask " + s + "--count 2 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study tell " + s + "--trial 0 --value 1.25");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"study tell " + s + "--trial 7 --value 1", "has no trial 7 (its trials are numbered 0 to 1)"},
      {"study tell " + s + "--trial 0 --value 2", "trial 0 is complete (value 1.25, worker 'cli:"},
      {"study tell " + s + "--trial 0 --value 2", "it was told already"},
      {"study tell " + s + "--trial 1 --value nan", "--value 'nan' is not finite"},
      {"study tell " + s + "--trial 1 --value inf", "--value 'inf' is not finite"},
      {"study tell " + s + "--trial 1 --value 1.5x", "--value '1.5x' is not a number"},
      {"study tell " + s + "--trial 1 --value -1e400", "--value '-1e400' is not finite"},  // was "not a number"
      {"study tell " + s + "--trial 1", "needs --value V or --failed"},
      {"study tell " + s + "--trial 1 --value 1 --failed", "needs --value V or --failed"},
      {"study tell " + s + "--trial -1 --value 1", "--trial must be a trial number (an integer >= 0), got '-1'"},
      {"study tell " + s + "--trial 1.5 --value 1", "got '1.5'"},
      {"study ask " + s + "--lease 0", "--lease must be a duration > 0"},
      {"study ask " + s + "--lease 3x", "got '3x'"},
      {"study ask " + s + "--format xml", "--format must be table, json or csv, got 'xml'"},
      {"study ask --storage '" + url + "' --name nope", "no study named 'nope'"},
      {"study add " + s + "--param temperature=500 --param time_h=2 --param solvent=water --value 1",
       "--param 'temperature=500': '500' is above the upper bound 450"},
      {"study add " + s + "--param temperature=350 --param time_h=2 --param solvent=benzene --value 1",
       "'benzene' is not one of the choices 'water', 'ethanol', 'acetone'"},
      {"study add " + s + "--param temperature=350 --param time_h=2 --param solvnt=water --value 1",
       "the study has no parameter 'solvnt'"},
      {"study add " + s + "--param temperature=350 --param time_h=2 --value 1", "--param solvent=VALUE is missing"},
      {"study add " + s + "--param temperature=350 --param time_h=2 --param solvent=water --value nan", "is not finite"},
      {"study add " + s + "--param temperature=350 --param time_h=2 --param solvent=water", "needs --value V or --failed"},
  };
  for (const auto& [args, expected] : cases) {
    r = cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << "\n" << r.err;
  }
  // A CSV file is refused whole, naming the line and the column of the first bad cell.
  const std::string header = "temperature,time_h,solvent,value\n";
  const std::string good = "350,3,water,0.5\n";
  const std::vector<std::pair<std::string, std::string>> files = {
      {header + good + "350,3.5,water,0.5\n", "line 3, column 'time_h': '3.5' is not an integer"},
      {header + good + good + "299.9,3,water,0.5\n", "line 4, column 'temperature': '299.9' is below the lower bound 300"},
      {header + good + "350,3,Water,0.5\n", "line 3, column 'solvent': 'Water' is not one of the choices"},
      {header + good + "350,3,water,\n", "line 3, column 'value': empty"},
      {header + good + "350,3,water,NaN\n", "line 3, column 'value': 'NaN' is not finite"},
      {header + good + "350,3,water,high\n", "'high' is not a number (nor 'failed')"},
      {header + good + "350,3,water\n", "line 3: 3 cells, the header has 4"},
      {header + good + "abc,3,water,1\n", "line 3, column 'temperature': 'abc' is not a number"},
      {"temperature,time_h,value\n" + std::string("350,3,0.5\n"), "the header has no column 'solvent'"},
      {"temperature,time_h,solvent,yield\n" + good, "the header has no column 'value' (its columns: temperature, time_h, solvent, yield)"},
      {header.substr(0, header.size() - 1) + ",batch\n350,3,water,0.5,B7\n", "column(s) 'batch' are neither parameters"},
      {"trial," + header + "0," + good, "has a 'trial' column"},
      {header + "350,3,\"water,0.5\n", "is never closed"},
      {"", "is empty"},
      {header, "holds a header but no evaluation"},
  };
  for (std::size_t k = 0; k < files.size(); ++k) {
    write("bad.csv", files[k].first);
    r = cli("study add " + s + "--from bad.csv");
    EXPECT_EQ(r.code, 2) << "file " << k << ":\n" << files[k].first << r.err;
    EXPECT_NE(r.err.find(files[k].second), std::string::npos) << "file " << k << ":\n" << files[k].first << r.err;
  }
  r = cli("study add " + s + "--from missing.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot read CSV file 'missing.csv'"), std::string::npos) << r.err;
  const auto all = trials();
  ASSERT_EQ(all.size(), 2u);  // nothing was added, nothing else told
  EXPECT_EQ(all[0].value, 1.25);
  EXPECT_EQ(all[1].state, TrialState::Running);
  // A value below the smallest double is read as the nearest one, as an objective printing it is
  // (it was refused as not a number).
  r = cli("study tell " + s + "--trial 1 --value 1e-400");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials().at(1).value, std::optional<double>(0.0));
}

// A running trial failed as stale by a worker's grace period (here: its lease ended) keeps a
// value told later; the CLI says so.
TEST_P(StudyCliByHand, AValueToldAfterTheLeaseEndedIsKept) {
  create("--budget 5 --grace 0.5 --heartbeat 0.2");
  auto r = cli("study ask " + s + "--lease 0.5s --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  r = cli("study ask " + s + "--format json");  // fails trial 0 as stale and gets its point again
  ASSERT_EQ(r.code, 0) << r.err;
  const auto again = json_lines(r.out);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]["trial"], 1);
  r = cli("study tell " + s + "--trial 0 --value 2.5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("it had been failed as stale"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the value is kept"), std::string::npos) << r.out;
  const auto all = trials();
  ASSERT_EQ(all.size(), 3u);  // the re-queued copy was taken by the second ask: a new complete trial
  EXPECT_EQ(all[2].state, TrialState::Complete);
  EXPECT_EQ(all[2].value, 2.5);
  EXPECT_EQ(all[2].requeued_from, 0u);
}

// A plate told from a CSV file: the file `study ask --format csv` wrote, with a value column filled
// as results come; told again as it fills, each result is told once; a row whose parameters are not
// its trial's (rows mixed up in a spreadsheet) refuses the whole file.
TEST_P(StudyCliByHand, APlateIsToldFromItsCsvFile) {
  create("--budget 20");
  auto r = cli("study ask " + s + "--count 4 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lines = text_lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  auto plate = [&](const std::vector<std::string>& values) {
    std::string text = lines[0] + ",value\n";
    for (std::size_t k = 0; k < values.size(); ++k) text += lines[k + 1] + "," + values[k] + "\n";
    write("plate.csv", text);
    return cli("study tell " + s + "--from plate.csv");
  };
  r = plate({"0.5", "", "failed", "0.25"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("told 3 trial(s) of study 'lab' from 'plate.csv' (1 row(s) without a value yet, 0 told before"), std::string::npos)
      << r.out;
  r = plate({"0.5", "0.75", "failed", "0.25"});  // told again once the last result is in
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("told 1 trial(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 told before with the same result"), std::string::npos) << r.out;
  auto all = trials();
  EXPECT_EQ(all[0].value, 0.5);
  EXPECT_EQ(all[1].value, 0.75);
  EXPECT_EQ(all[2].state, TrialState::Failed);
  EXPECT_EQ(all[3].value, 0.25);

  r = cli("study ask " + s + "--count 2 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  lines = text_lines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  const auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string c; std::getline(in, c, ',');) out.push_back(c);
    return out;
  };
  const auto a = cells(lines[1]);
  const std::string moved = a[1] == "300" ? "301" : "300";  // another row's temperature
  const std::vector<std::pair<std::string, std::string>> bad = {
      {lines[0] + ",value\n" + a[0] + "," + moved + "," + a[2] + "," + a[3] + ",1\n",
       "column 'temperature': trial 4 has temperature = " + a[1] + ", the file says '" + moved + "' (rows mixed up?)"},
      {lines[0] + ",value\n" + lines[1] + ",1\n" + lines[1] + ",2\n", "trial 4 is told twice in one batch"},
      {"trial,value\n99,1\n", "line 2, column 'trial': the study has no trial 99"},
      {"trial,value\nfour,1\n", "'four' is not a trial number"},
      {"trial,value\n0,0.6\n", "trial 0 is complete (value 0.5"},
      {"trial,value\n4,nan\n", "'nan' is not finite"},
      {"trial\n4\n", "the header has no column 'value'"},
      {"trial,value,notes\n4,1,x\n", "column(s) 'notes' are neither parameters"},
  };
  for (std::size_t k = 0; k < bad.size(); ++k) {
    write("bad.csv", bad[k].first);
    r = cli("study tell " + s + "--from bad.csv");
    EXPECT_EQ(r.code, 2) << "file " << k << ":\n" << bad[k].first << r.err;
    EXPECT_NE(r.err.find(bad[k].second), std::string::npos) << "file " << k << ":\n" << bad[k].first << r.err;
  }
  all = trials();
  EXPECT_EQ(all[0].value, 0.5);
  EXPECT_EQ(all[4].state, TrialState::Running);
  EXPECT_EQ(all[5].state, TrialState::Running);
  write("notes.csv", lines[0] + ",value,notes\n" + lines[2] + ",0.125,redone\n");
  r = cli("study tell " + s + "--from notes.csv --ignore-column notes");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials()[5].value, 0.125);
}

// A plate's sample that will not be measured is given back from the file too: value 'given back'
// (its reason in 'error'), in the same transaction as the plate's results; told again, it is skipped.
TEST_P(StudyCliByHand, APlateGivesBackASampleFromItsCsvFile) {
  create("--budget 4");
  auto r = cli("study ask " + s + "--count 4 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lines = text_lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  const std::string header = lines[0] + ",value,error\n";
  write("plate.csv", header + lines[1] + ",0.5,\n" + lines[2] + ",Given Back,vial broke\n" + lines[3] + ",given back,\n" +
                         lines[4] + ",,\n");
  r = cli("study tell " + s + "--from plate.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("told 3 trial(s) of study 'lab' from 'plate.csv', 2 of them given back (not counted; their points "
                       "queued again) (1 row(s) without a value yet"),
            std::string::npos) << r.out;
  auto all = trials();
  ASSERT_EQ(all.size(), 6u);  // two points queued again
  EXPECT_EQ(all[0].value, 0.5);
  EXPECT_TRUE(all[1].given_back && all[2].given_back);
  EXPECT_EQ(all[1].error, "vial broke");
  EXPECT_EQ(all[2].error, "given back");
  EXPECT_EQ(all[4].requeued_from, 1u);
  EXPECT_EQ(all[5].requeued_from, 2u);
  EXPECT_EQ(Study::load(url, "lab").budget_used(), 2u);  // trials 0 and 3
  r = cli("study tell " + s + "--from plate.csv");  // told again: nothing new
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("told 0 trial(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 told before with the same result"), std::string::npos) << r.out;
  // A trial told with a value cannot be given back, and the whole file is refused.
  write("bad.csv", header + lines[1] + ",given back,\n" + lines[4] + ",0.25,\n");
  r = cli("study tell " + s + "--from bad.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("trial 0 is complete (value 0.5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot be given back"), std::string::npos) << r.err;
  EXPECT_EQ(trials()[3].state, TrialState::Running);  // nothing told
  // --no-requeue applies to the file's given-back rows.
  write("last.csv", header + lines[4] + ",given back,\n");
  r = cli("study tell " + s + "--from last.csv --no-requeue");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1 of them given back (not counted; not queued again)"), std::string::npos) << r.out;
  all = trials();
  EXPECT_EQ(all.size(), 6u);
  EXPECT_TRUE(all[3].given_back);
}

// A parameter named like a column of the files (trial, value, error) is written params_NAME, as
// Optuna's trials_dataframe names it, so that a file is never read the wrong way round.
TEST_P(StudyCliByHand, AParameterNamedValueIsParamsValue) {
  write("odd.json", R"({"parameters": [{"name": "value", "type": "integer", "lower": 1, "upper": 5},
                                       {"name": "trial", "type": "categorical", "choices": ["a", "b"]}]})");
  auto r = cli("study create " + s + "--space odd.json --direction minimize --budget 10 --algorithm random");
  ASSERT_EQ(r.code, 0) << r.err;
  write("past.csv", "params_value,params_trial,value\n3,b,0.5\n");
  r = cli("study add " + s + "--from past.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study ask " + s + "--format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("trial,params_value,params_trial\n1,", 0), 0u) << r.out;
  write("plate.csv", r.out.substr(0, r.out.find('\n')) + ",value\n" + r.out.substr(r.out.find('\n') + 1, r.out.size() - r.out.find('\n') - 2) + ",0.25\n");
  r = cli("study tell " + s + "--from plate.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto all = trials();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].x[0], 3.0);
  EXPECT_EQ(all[0].x[1], 1.0);
  EXPECT_EQ(all[0].value, 0.5);
  EXPECT_EQ(all[1].value, 0.25);
  write("bad.csv", "params_value,params_trial,value\n7,b,0.5\n");
  r = cli("study add " + s + "--from bad.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("line 2, column 'params_value': '7' is above the upper bound 5"), std::string::npos) << r.err;
}

// A finite space (4 points) asked for 6: the 4 are printed, the shortfall said, exit 3.
TEST_P(StudyCliByHand, AnExhaustedSpaceIsSaid) {
  write("small.json", R"({"parameters": [{"name": "n", "type": "integer", "lower": 1, "upper": 2},
                                         {"name": "c", "type": "categorical", "choices": ["a", "b"]}]})");
  auto r = cli("study create " + s + "--space small.json --direction minimize --algorithm random");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study ask " + s + "--count 6 --format json");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(json_lines(r.out).size(), 4u) << r.out;
  EXPECT_NE(r.err.find("asked 4 of 6 trial(s): every point of the study's finite space has been evaluated or is running"),
            std::string::npos) << r.err;
  r = cli("study ask " + s);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("asked 0 of 1 trial(s)"), std::string::npos) << r.err;
}

// A lab study that used its budget gets more trials with `study set --budget` (there was no way
// but a new study); below what it counted already, or not a number, is refused by name.
TEST_P(StudyCliByHand, SetBudgetGivesMoreTrials) {
  create("--budget 2");
  auto r = cli("study ask " + s + "--count 2");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(cli("study tell " + s + "--trial 0 --value 0.5").code, 0);
  ASSERT_EQ(cli("study tell " + s + "--trial 1 --value 0.7").code, 0);
  EXPECT_EQ(cli("study ask " + s).code, 3);  // the budget is used
  r = cli("study set " + s + "--budget 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("budget 2 -> 4 (2 counted so far); its algorithm keeps planning for 2 trials"), std::string::npos) << r.out;
  r = cli("study ask " + s + "--count 2");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trials().size(), 4u);
  r = cli("study set " + s + "--budget 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a budget of 3 is below the 4 trial(s) it has counted"), std::string::npos) << r.err;
  for (const char* bad : {"0", "-1", "ten", "4.5", ""}) {
    r = cli("study set " + s + "--budget '" + bad + "'");
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--budget must be a number of trials >= 1 or 'unlimited'"), std::string::npos) << r.err;
  }
  r = cli("study set " + s + "--budget unlimited");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(Study::load(url, "lab").record().budget);
  EXPECT_EQ(cli("study ask " + s + "--count 3").code, 0);
}

// Samples that will not be measured (one lost, two postponed) are given back rather than told
// failed: `study tell --give-back` frees their places in the budget, queues the lost one's point
// again (the next ask hands it out first) and, with --no-requeue, leaves the others' points to the
// algorithm; `study show` says they were given back. A trial told, unknown or given back already
// is refused, exit 2, naming it; several are given back all or none.
TEST_P(StudyCliByHand, ATrialThatWillNotBeRunIsGivenBack) {
  create("--budget 4");
  auto r = cli("study ask " + s + "--count 4 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto plate = json_lines(r.out);
  ASSERT_EQ(plate.size(), 4u);
  EXPECT_EQ(cli("study ask " + s).code, 3);  // the budget is used
  ASSERT_EQ(cli("study tell " + s + "--trial 0 --value 0.5").code, 0);

  r = cli("study tell " + s + "--trial 1 --give-back 'sample lost'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gave back trial 1 of study 'lab' (sample lost): not counted against the budget (budget 4, 3 used); "
                       "its point is queued again: the next ask hands it out first"),
            std::string::npos) << r.out;
  auto all = trials();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[1].state, TrialState::Failed);
  EXPECT_TRUE(all[1].stale && all[1].given_back);
  EXPECT_EQ(all[1].error, "sample lost");
  EXPECT_EQ(all[4].state, TrialState::Waiting);
  EXPECT_EQ(all[4].requeued_from, 1u);
  r = cli("study ask " + s + "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto again = json_lines(r.out);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]["trial"], 4);
  EXPECT_EQ(again[0]["params"], plate[1]["params"]);

  r = cli("study tell " + s + "--trial 2 --trial 3 --give-back --no-requeue");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gave back trials 2, 3 of study 'lab' (given back): not counted against the budget (budget 4, 2 used); "
                       "their points are not queued again"),
            std::string::npos) << r.out;
  all = trials();
  ASSERT_EQ(all.size(), 5u);  // nothing queued
  EXPECT_TRUE(all[2].given_back && all[3].given_back);
  r = cli("study show " + s + "--trials");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("given back: sample lost"), std::string::npos) << r.out;

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--trial 2 --give-back", "trial 2 was given back already: its point was not queued again"},
      {"--trial 1 --give-back", "trial 1 was given back (sample lost) already: its point was queued again (trial 4)"},
      {"--trial 0 --give-back", "trial 0 is complete (value 0.5, worker 'cli:"},
      {"--trial 0 --give-back", "it was told already, so it cannot be given back"},
      {"--trial 9 --give-back", "has no trial 9 (its trials are numbered 0 to 4)"},
      {"--trial 4 --trial 0 --give-back", "trial 0 is complete"},
      {"--trial 4 --trial 0 --give-back", "(none was given back)"},
      {"--trial 4 --trial 4 --give-back", "trial 4 is given back twice in one batch"},
      {"--trial 4 --give-back --value 1", "needs --value V or --failed [WHY], or --give-back [WHY] (one of them)"},
      {"--trial 4 --value 1 --no-requeue", "--no-requeue goes with --give-back"},
      {"--trial 4 --trial 0 --value 1", "--value and --failed tell one trial"},
      {"--from plate.csv --give-back", "in --from FILE.csv a trial is given back by the value 'given back'"},
      {"--trial x --give-back", "--trial must be a trial number (an integer >= 0), got 'x'"},
  };
  for (const auto& [args, expected] : refused) {
    r = cli("study tell " + s + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << "\n" << r.err;
  }
  all = trials();
  EXPECT_EQ(all[4].state, TrialState::Running);  // nothing given back by the refused batch
  EXPECT_EQ(Study::load(url, "lab").budget_used(), 2u);
  // Their places in the budget are free again: two more are asked.
  r = cli("study ask " + s + "--count 2 --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json_lines(r.out).size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyCliByHand, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

namespace {

// A catalyst's loading matters only with a catalyst (docs/discrete.md, "Conditional parameters").
class StudyCliConditional : public optimist::testing::LabStudyCli {
 protected:
  StudyCliConditional()
      : LabStudyCli("[[parameters]]\nname = \"catalyst\"\ntype = \"categorical\"\nchoices = [\"none\", \"pd\"]\n"
                    "[[parameters]]\nname = \"loading\"\ntype = \"continuous\"\nlower = 0.1\nupper = 5\n"
                    "condition = { parent = \"catalyst\", values = [\"pd\"] }\n"
                    "[[parameters]]\nname = \"time_h\"\ntype = \"integer\"\nlower = 1\nupper = 24\n") {}
};

}  // namespace

// `study add` takes an experiment without the parameters it did not use (--param left out, an
// empty CSV cell or no column), names one missing where it was used, and sees an unused value as
// the same experiment; `study ask` leaves unused parameters out of its params.
TEST_P(StudyCliConditional, AnUnusedParameterMayBeLeftOut) {
  create("--budget 30");
  auto r = cli("study add " + s + "--param catalyst=none --param time_h=3 --value 0.2");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study add " + s + "--param catalyst=none --param loading=2 --param time_h=3 --value 0.2");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("trial 0 was added with the same parameters and value"), std::string::npos) << r.err;
  r = cli("study add " + s + "--param catalyst=pd --param time_h=3 --value 0.5");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("a --param is missing: loading (it is used where catalyst is pd)"), std::string::npos) << r.err;
  write("rows.csv", "catalyst,loading,time_h,value\nnone,,5,0.3\npd,1.5,5,0.8\n");
  r = cli("study add " + s + "--from rows.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  write("no_column.csv", "catalyst,time_h,value\nnone,7,0.35\n");
  r = cli("study add " + s + "--from no_column.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  write("bad.csv", "catalyst,loading,time_h,value\nnone,,6,0.3\npd,,5,0.3\n");
  r = cli("study add " + s + "--from bad.csv");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("line 3: no value for loading (it is used where catalyst is pd)"), std::string::npos) << r.err;
  const auto added = trials();
  ASSERT_EQ(added.size(), 4u);
  EXPECT_DOUBLE_EQ(added[1].x[1], 0.1);  // an unused loading holds its fixed value, the lower bound
  EXPECT_DOUBLE_EQ(added[2].x[1], 1.5);
  // Any value where unused, even one the space refuses, is no error (a spreadsheet's leftover).
  r = cli("study add " + s + "--param catalyst=none --param loading=99 --param time_h=9 --value 0.1");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study ask " + s + "--count 6 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto asked = json_lines(r.out);
  ASSERT_EQ(asked.size(), 6u) << r.out;
  for (const auto& line : asked) {
    const auto& p = line["params"];
    EXPECT_EQ(p.contains("loading"), p["catalyst"] == "pd") << p.dump();
  }
  // CSV: an unused parameter's cell is empty; telling from it checks only the used ones.
  r = cli("study ask " + s + "--count 4 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string told = "trial,catalyst,loading,time_h,value\n";
  const auto rows = text_lines(r.out);
  ASSERT_EQ(rows.size(), 5u) << r.out;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const bool none = rows[k].find(",none,") != std::string::npos;
    EXPECT_EQ(rows[k].find(",none,,") != std::string::npos, none) << rows[k];
    // A stale value in an unused cell (as a copied row would have) does not stop the tell.
    std::string row = rows[k];
    if (none) row.replace(row.find(",none,,"), 7, ",none,3.3,");
    told += row + ",0.5\n";
  }
  write("told.csv", told);
  r = cli("study tell " + s + "--from told.csv");
  EXPECT_EQ(r.code, 0) << r.err << told;
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyCliConditional, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// A study whose trials run (workers, or experiments asked by hand) is not deleted by mistake
// (stop 68's probe: it was, with no word): refused naming them, deleted with --force.
TEST_P(StudyCliByHand, DeletingAStudyWhoseTrialsRunNeedsForce) {
  create("--budget 4");
  auto r = cli("study ask " + s + "--format json --worker-name bench-3");
  ASSERT_EQ(r.code, 0) << r.err;
  r = cli("study delete " + s);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("study 'lab' has 1 running trial(s) (worker(s) bench-3; last heartbeat "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("delete it anyway with --force"), std::string::npos) << r.err;
  EXPECT_EQ(trials().size(), 1u);
  r = cli("study delete " + s + "--force");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(Storage(url).find_study("lab"));
}
