// The dashboard's view of trace files: following a trace while it is written, folders of traces,
// and the JSON API over them.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "dashboard/api.hpp"
#include "dashboard/server.hpp"
#include "dashboard/trace_follower.hpp"
#include "dashboard/trace_source.hpp"
#include "dashboard_test_helpers.hpp"

namespace {

using namespace dashboard_test;
using optimist::dashboard::Api;
using optimist::dashboard::NotFound;
using optimist::dashboard::TraceFollower;
using optimist::dashboard::TraceSource;
using optimist::dashboard::TrialState;
using nlohmann::json;

class TraceFollowerTest : public DashboardTest {};
class TraceSourceTest : public DashboardTest {};
class DashboardApiTest : public DashboardTest {};

TEST_F(TraceFollowerTest, ReadsOnlyCompleteLinesAsTheRunWritesThem) {
  const fs::path file = dir() / "run.jsonl";
  const std::string third = eval_line(3, 0.7, R"({"beta": 2.5, "tr_lengths": [0.4, 0.8]})");
  write(file, meta_line() + eval_line(1, 2.0) + eval_line(2, 1.5) + third.substr(0, 20));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  ASSERT_EQ(f.trials().size(), 2u) << f.summary().error;
  EXPECT_TRUE(f.summary().error.empty());

  append(file, third.substr(20));
  f.refresh();
  ASSERT_EQ(f.trials().size(), 3u);
  const auto& t = f.trials()[2];
  EXPECT_EQ(t.number, 3u);
  EXPECT_EQ(t.state, TrialState::Complete);
  EXPECT_DOUBLE_EQ(*t.value, 0.7);
  EXPECT_EQ(t.params, json({0.03, "rbf"}));
  EXPECT_EQ(t.diagnostics, json({{"beta", 2.5}, {"tr_lengths", {0.4, 0.8}}}));
  // The run's clock: each evaluation starts after its suggest time, ends after its eval time,
  // and the next one starts after the tell.
  EXPECT_NEAR(*t.started_at, 2 * 1.3 + 0.1, 1e-12);
  EXPECT_NEAR(*t.completed_at, 2 * 1.3 + 1.1, 1e-12);

  const auto s = f.summary();
  EXPECT_EQ(s.counts.complete, 3u);
  EXPECT_DOUBLE_EQ(*s.best_value, 0.7);
  EXPECT_EQ(*s.best_number, 3u);
  EXPECT_FALSE(s.finished);
  append(file, R"({"recommend":{"x":[0.03,"rbf"],"f":0.7,"simple_regret":0.2,"stop_reason":"budget"}})" "\n");
  f.refresh();
  EXPECT_TRUE(f.summary().finished);
  EXPECT_EQ(f.detail().recommend.at("stop_reason"), "budget");
}

// `run --jobs 2` writes each line's `trial` and `worker`, and kept 2 evaluations in flight: the
// clock summed every duration on one line ("trial" was plotted as a diagnostic).
TEST_F(TraceFollowerTest, ARunOfSeveralJobsIsTimedOnAsManySlots) {
  json meta = json::parse(meta_line());
  meta["meta"]["run"] = {{"batch", 1}, {"jobs", 2}};
  const fs::path file = dir() / "jobs.jsonl";
  const std::string job = R"({"trial": 0, "worker": "vm:1:a"})";
  write(file, meta.dump() + "\n" + eval_line(1, 2.0, job) + eval_line(2, 1.0, job) + eval_line(3, 0.5, job));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  ASSERT_EQ(f.trials().size(), 3u) << f.summary().error;
  // Each: 0.1 s suggest, 1 s eval, 0.2 s tell. 1 and 2 run at once; 3 takes the first free slot.
  EXPECT_NEAR(*f.trials()[0].started_at, 0.1, 1e-12);
  EXPECT_NEAR(*f.trials()[1].started_at, 0.1, 1e-12);
  EXPECT_NEAR(*f.trials()[2].started_at, 1.3 + 0.1, 1e-12);
  EXPECT_NEAR(*f.trials()[2].completed_at, 1.3 + 1.1, 1e-12);
  EXPECT_EQ(f.trials()[0].worker, "vm:1:a");
  EXPECT_TRUE(f.trials()[0].diagnostics.empty()) << f.trials()[0].diagnostics;
}

TEST_F(TraceFollowerTest, FailedEvaluationsAndBestByDirection) {
  const fs::path file = dir() / "max.jsonl";
  write(file, meta_line(optimist::Direction::Maximize) + eval_line(1, 2.0) + eval_line(2, std::nullopt) +
                  eval_line(3, 5.0) + eval_line(4, 1.0));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  ASSERT_EQ(f.trials().size(), 4u);
  EXPECT_EQ(f.trials()[1].state, TrialState::Failed);
  EXPECT_FALSE(f.trials()[1].value);
  EXPECT_EQ(f.trials()[1].error, "objective threw: boom");
  const auto s = f.summary();
  EXPECT_EQ(s.counts.complete, 3u);
  EXPECT_EQ(s.counts.failed, 1u);
  EXPECT_DOUBLE_EQ(*s.best_value, 5.0);  // maximizing
  EXPECT_EQ(s.algorithm, "gp-ei");
  EXPECT_EQ(s.budget, 10u);
}

TEST_F(TraceFollowerTest, ACategoricalGivenAsItsIndexIsReadAsItsChoice) {
  // docs/trace-format.md: a reader takes a categorical as its choice or its 0-based index; the API
  // gives the choice (the page drew an index nowhere on the categorical axis).
  const fs::path file = dir() / "indexes.jsonl";
  write(file, meta_line() + eval_line(1, 2.0, R"({"x": [0.01, 1]})") + eval_line(2, 3.0, R"({"x": [0.25, "rbf"]})"));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  ASSERT_EQ(f.trials().size(), 2u);
  EXPECT_EQ(f.trials()[0].params, json::parse(R"([0.01, "matern"])"));
  EXPECT_EQ(f.trials()[1].params, json::parse(R"([0.25, "rbf"])"));
  // An index past the choices is the file's error, named (as --resume names it).
  write(file, meta_line() + eval_line(1, 2.0, R"({"x": [0.01, 2]})"));
  TraceFollower g(file.string());
  g.keep_trials();
  g.refresh();
  EXPECT_NE(g.summary().error.find("kernel"), std::string::npos) << g.summary().error;
}

TEST_F(TraceFollowerTest, StartsOverWhenTheFileIsReplaced) {
  const fs::path file = dir() / "run.jsonl";
  write(file, meta_line() + eval_line(1, 2.0) + eval_line(2, 1.0) + eval_line(3, 0.9));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  ASSERT_EQ(f.trials().size(), 3u);
  const std::string first = f.summary().generation;
  EXPECT_FALSE(first.empty());
  append(file, eval_line(4, 0.8));
  f.refresh();
  EXPECT_EQ(f.summary().generation, first);  // appended: the trials held still hold
  // A resumed run rewrites its trace through a temporary file renamed over it.
  const fs::path replacement = dir() / "run.jsonl.tmp";
  write(replacement, meta_line() + eval_line(1, 4.0));
  fs::rename(replacement, file);
  f.refresh();
  ASSERT_EQ(f.trials().size(), 1u);
  EXPECT_DOUBLE_EQ(*f.trials()[0].value, 4.0);
  EXPECT_DOUBLE_EQ(*f.summary().best_value, 4.0);
  // A page that held trials 1..4 must drop them: asking after trial 4 it got nothing new and kept
  // the old run's trials under the new run's counts.
  const std::string second = f.summary().generation;
  EXPECT_NE(second, first);
  // Cut in place (same inode, shorter): a new generation again.
  { std::ofstream(file, std::ios::trunc) << meta_line(); }
  f.refresh();
  EXPECT_TRUE(f.trials().empty());
  EXPECT_NE(f.summary().generation, second);
}

// `run --out` over a served trace truncates the same inode and may grow past the follower's offset
// before its next look: the old trials stayed, with a parse error in the middle of a line, for good.
TEST_F(TraceFollowerTest, StartsOverWhenTheFileIsRewrittenInPlace) {
  const fs::path file = dir() / "run.jsonl";
  write(file, meta_line() + eval_line(1, 2.0) + eval_line(2, 1.0));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  ASSERT_EQ(f.trials().size(), 2u);
  std::string longer = meta_line(optimist::Direction::Minimize, 0.25);
  for (int i = 1; i <= 6; ++i) longer += eval_line(i, 3.0 + i);
  { std::ofstream(file, std::ios::trunc) << longer; }  // the same inode, written over
  f.refresh();
  EXPECT_EQ(f.summary().error, "");
  ASSERT_EQ(f.trials().size(), 6u);
  EXPECT_DOUBLE_EQ(*f.summary().best_value, 4.0);

  // A malformed line stops reading; the file written again (fixed) is read again.
  write(file, meta_line() + "{not json\n");
  f.refresh();
  EXPECT_NE(f.summary().error, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later mtime
  { std::ofstream(file, std::ios::trunc) << meta_line() + eval_line(1, 7.0); }
  f.refresh();
  EXPECT_EQ(f.summary().error, "");
  ASSERT_EQ(f.trials().size(), 1u);
}

TEST_F(TraceFollowerTest, MalformedLineIsReportedWithItsPlaceAndEarlierTrialsKept) {
  const fs::path file = dir() / "bad.jsonl";
  write(file, meta_line() + eval_line(1, 2.0) + "{not json\n" + eval_line(3, 1.0));
  TraceFollower f(file.string());
  f.keep_trials();
  f.refresh();
  EXPECT_EQ(f.trials().size(), 1u);
  EXPECT_NE(f.summary().error.find(file.string() + ":3:"), std::string::npos) << f.summary().error;

  write(dir() / "nometa.jsonl", eval_line(1, 2.0));
  TraceFollower g((dir() / "nometa.jsonl").string());
  g.refresh();
  EXPECT_NE(g.summary().error.find("meta"), std::string::npos) << g.summary().error;

  write(dir() / "order.jsonl", meta_line() + eval_line(2, 2.0) + eval_line(1, 1.0));
  TraceFollower h((dir() / "order.jsonl").string());
  h.refresh();
  EXPECT_NE(h.summary().error.find("evaluation 1 follows evaluation 2"), std::string::npos) << h.summary().error;

  // Lines that --resume refuses were shown as complete trials (a best value of 1 from a point of
  // the wrong length); they are the file's error now, named as --resume names them.
  for (const auto& [extra, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"x": [1, 2, 3, 4]})", "has 4 values, the space has 2"},
           {R"({"x": "notalist"})", "a point must be a JSON array"},
           {R"({"y": "abc"})", "\"y\" must be a finite number"},
           {R"({"x": [0.5, "linear"]})", "unknown choice"}}) {
    write(dir() / "odd.jsonl", meta_line() + eval_line(1, 1.0, extra));
    TraceFollower odd((dir() / "odd.jsonl").string());
    odd.keep_trials();
    odd.refresh();
    EXPECT_TRUE(odd.trials().empty()) << extra;
    EXPECT_FALSE(odd.summary().best_value) << extra;
    EXPECT_NE(odd.summary().error.find("odd.jsonl:2: "), std::string::npos) << odd.summary().error;
    EXPECT_NE(odd.summary().error.find(message), std::string::npos) << extra << ": " << odd.summary().error;
  }
}

TEST_F(TraceFollowerTest, SummaryOnlyUntilTrialsAreAskedFor) {
  const fs::path file = dir() / "run.jsonl";
  write(file, meta_line() + eval_line(1, 2.0) + eval_line(2, 1.0));
  TraceFollower f(file.string());
  f.refresh();
  EXPECT_TRUE(f.trials().empty());  // a folder of thousands of traces keeps summaries only
  EXPECT_EQ(f.summary().counts.total(), 2u);
  const std::string generation = f.summary().generation;
  f.keep_trials();
  f.refresh();
  EXPECT_EQ(f.trials().size(), 2u);
  EXPECT_EQ(f.summary().counts.total(), 2u);
  EXPECT_EQ(f.summary().generation, generation);  // read again, the same trials
}

TEST_F(TraceSourceTest, FolderOfABenchSweepWithRunningRuns) {
  const fs::path root = dir() / "sweep";
  write(root / "traces/toy/gp-ei/seed-0.jsonl", meta_line() + eval_line(1, 1.0) + "{\"recommend\":{}}\n");
  write(root / "traces/toy/gp-ei/seed-1.jsonl.partial", meta_line() + eval_line(1, 3.0));
  write(root / "summary.json", "{}");
  TraceSource source({root.string()}, std::chrono::milliseconds(0));
  auto list = source.studies();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, "traces/toy/gp-ei/seed-0");
  EXPECT_TRUE(list[0].finished);
  EXPECT_EQ(list[1].id, "traces/toy/gp-ei/seed-1");
  EXPECT_FALSE(list[1].finished);

  // The bench runner renames a finished run's .partial trace: same study, now finished.
  append(root / "traces/toy/gp-ei/seed-1.jsonl.partial", eval_line(2, 0.5) + "{\"recommend\":{}}\n");
  fs::rename(root / "traces/toy/gp-ei/seed-1.jsonl.partial", root / "traces/toy/gp-ei/seed-1.jsonl");
  list = source.studies();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(list[1].finished);
  EXPECT_EQ(list[1].counts.total(), 2u);

  write(root / "traces/toy/random/seed-0.jsonl.partial", meta_line());
  EXPECT_EQ(source.studies().size(), 3u);  // a run started meanwhile
}

TEST_F(TraceSourceTest, UnknownStudiesAndMissingPathsAreNamed) {
  write(dir() / "a.jsonl", meta_line());
  TraceSource source({(dir() / "a.jsonl").string()});
  const std::string id = (dir() / "a").string();
  EXPECT_EQ(source.study(id).summary.name, "a");  // a file named on the command line shows as its name
  try {
    source.study("nope");
    FAIL() << "no NotFound";
  } catch (const NotFound& e) {
    EXPECT_NE(std::string(e.what()).find("no study 'nope'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(id), std::string::npos) << "lists the known ones: " << e.what();
  }
  EXPECT_THROW(TraceSource({(dir() / "missing.jsonl").string()}), optimist::InvalidArgument);
}

TEST_F(TraceSourceTest, FilesSharingANameShowTheirPaths) {
  write(dir() / "x/run.jsonl", meta_line());
  write(dir() / "y/run.jsonl", meta_line());
  write(dir() / "z/other.jsonl", meta_line());
  TraceSource source({(dir() / "x/run.jsonl").string(), (dir() / "y/run.jsonl").string(), (dir() / "z/other.jsonl").string()});
  std::vector<std::string> names;
  for (const auto& s : source.studies()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{(dir() / "x/run").string(), (dir() / "y/run").string(), "other"}));
}

// Runs numbered by a person read in their order: r2 before r10 (a string order put r10 first).
TEST_F(TraceSourceTest, AFolderListsNumberedRunsInTheirOrder) {
  for (const char* name : {"r10", "r2", "r1", "r02b", "base", "r2a"}) write(dir() / "runs" / (std::string(name) + ".jsonl"), meta_line());
  TraceSource source({(dir() / "runs").string()}, std::chrono::milliseconds(0));
  std::vector<std::string> names;
  for (const auto& s : source.studies()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"base", "r1", "r2", "r2a", "r02b", "r10"}));
}

// The settings panel shows what `auto` chose and why (the trace's meta "decisions").
TEST_F(TraceFollowerTest, DetailCarriesWhatAutoChoseAndWhy) {
  json meta = json::parse(meta_line());
  meta["meta"]["decisions"] = {{"algorithm", "gp-ei"}, {"reason", "2 parameters: a Gaussian process"}};
  write(dir() / "auto.jsonl", meta.dump() + "\n");
  TraceFollower f((dir() / "auto.jsonl").string());
  f.refresh();
  EXPECT_EQ(f.detail().extra.at("decisions").at("reason"), "2 parameters: a Gaussian process");
  write(dir() / "plain.jsonl", meta_line());
  TraceFollower plain((dir() / "plain.jsonl").string());
  plain.refresh();
  EXPECT_FALSE(plain.detail().extra.contains("decisions"));
}

TEST_F(TraceSourceTest, TrialsAfterANumberInPages) {
  std::string text = meta_line();
  for (int i = 1; i <= 7; ++i) text += eval_line(i, 10.0 - i);
  write(dir() / "t.jsonl", text);
  TraceSource source({(dir() / "t.jsonl").string()});
  const std::string id = (dir() / "t").string();
  auto page = source.trials(id, {std::nullopt, {}, 3});
  ASSERT_EQ(page.trials.size(), 3u);
  EXPECT_EQ(page.trials.front().number, 1u);
  EXPECT_TRUE(page.more);
  page = source.trials(id, {3, {}, 3});
  ASSERT_EQ(page.trials.size(), 3u);
  EXPECT_EQ(page.trials.front().number, 4u);
  page = source.trials(id, {6, {}, 3});
  ASSERT_EQ(page.trials.size(), 1u);
  EXPECT_FALSE(page.more);
  EXPECT_EQ(page.summary.counts.total(), 7u);
  EXPECT_TRUE(source.trials(id, {7, {}, 3}).trials.empty());
}

json body(const optimist::dashboard::ApiResponse& r) { return json::parse(r.body); }

TEST_F(DashboardApiTest, StudiesAndIncrementalTrials) {
  const fs::path file = dir() / "t.jsonl";
  write(file, meta_line() + eval_line(1, 2.0) + eval_line(2, std::nullopt) + eval_line(3, 0.75));
  TraceSource source({file.string()});
  Api api(source, {});
  const std::string id = (dir() / "t").string();

  auto r = api.get("/api/studies", {});
  ASSERT_EQ(r.status, 200) << r.body;
  const json s = body(r).at("studies").at(0);
  EXPECT_EQ(s.at("id"), id);
  EXPECT_EQ(s.at("algorithm"), "gp-ei");
  EXPECT_EQ(s.at("direction"), "minimize");
  EXPECT_EQ(s.at("counts"), json({{"waiting", 0}, {"running", 0}, {"complete", 2}, {"failed", 1}}));
  EXPECT_EQ(s.at("best_value"), 0.75);
  EXPECT_EQ(s.at("best_number"), 3);
  EXPECT_EQ(s.at("f_star"), 0.5);
  EXPECT_TRUE(s.at("generation").is_string());

  r = api.get("/api/trials", {{"study", id}, {"after", "1"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json b = body(r);
  ASSERT_EQ(b.at("trials").size(), 2u);
  EXPECT_EQ(b.at("trials")[0].at("state"), "failed");
  EXPECT_EQ(b.at("trials")[0].at("error"), "objective threw: boom");
  EXPECT_FALSE(b.at("trials")[0].contains("value"));
  EXPECT_EQ(b.at("trials")[1].at("value"), 0.75);
  EXPECT_EQ(b.at("trials")[1].at("params"), json({0.03, "rbf"}));
  EXPECT_EQ(b.at("study").at("n_trials"), 3);
  EXPECT_TRUE(b.contains("server_time"));

  append(file, eval_line(4, 0.6));
  b = body(api.get("/api/trials", {{"study", id}, {"after", "3"}}));
  ASSERT_EQ(b.at("trials").size(), 1u);
  EXPECT_EQ(b.at("trials")[0].at("number"), 4);
  EXPECT_EQ(b.at("study").at("best_value"), 0.6);

  r = api.get("/api/study", {{"id", id}});
  ASSERT_EQ(r.status, 200) << r.body;
  b = body(r).at("study");
  EXPECT_EQ(b.at("space").at("parameters")[0].at("log"), true);
  EXPECT_EQ(b.at("options").at("seed"), 3);
  EXPECT_EQ(b.at("extra").at("path"), file.string());
}

// A file name is bytes, the API's ids are JSON text: a name that is not UTF-8 gets an id with its
// stray bytes written as \xNN, by which the page opens it (it was listed with U+FFFD in its id,
// which named no trace).
TEST_F(DashboardApiTest, ATraceWhoseNameIsNotUtf8CanBeOpened) {
  write(dir() / "runs" / "caf\xe9.jsonl", meta_line() + eval_line(1, 2.0));  // Latin-1 "café"
  write(dir() / "runs" / "caf\xc3\xa9.jsonl", meta_line() + eval_line(1, 3.0));  // UTF-8 "café"
  TraceSource source({(dir() / "runs").string()});
  Api api(source, {});
  auto r = api.get("/api/studies", {});
  ASSERT_EQ(r.status, 200) << r.body;
  std::set<std::string> ids;
  const json listed = body(r);
  for (const auto& s : listed.at("studies")) ids.insert(s.at("id").get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{"caf\\xe9", "caf\xc3\xa9"}));
  for (const auto& [id, value] : std::vector<std::pair<std::string, double>>{{"caf\\xe9", 2.0}, {"caf\xc3\xa9", 3.0}}) {
    r = api.get("/api/trials", {{"study", id}});
    ASSERT_EQ(r.status, 200) << id << ": " << r.body;
    EXPECT_EQ(body(r).at("trials").at(0).at("value"), value) << id;
  }
}

TEST_F(DashboardApiTest, BadRequestsNameTheProblem) {
  write(dir() / "t.jsonl", meta_line() + eval_line(1, 2.0));
  TraceSource source({(dir() / "t.jsonl").string()});
  Api api(source, {});
  const std::string id = (dir() / "t").string();
  std::string many_numbers = "0";
  for (int k = 1; k <= 1000; ++k) {
    many_numbers += ',';  // not "," + to_string(k): GCC 12's -Wrestrict misfires on it
    many_numbers += std::to_string(k);
  }
  struct Case {
    std::string path;
    std::map<std::string, std::string> query;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"/api/trials", {{"study", id}, {"after", "-1"}}, 400, "'after' must be a non-negative integer, got '-1'"},
      {"/api/trials", {{"study", id}, {"after", "3x"}}, 400, "got '3x'"},
      {"/api/trials", {{"study", id}, {"limit", "0"}}, 400, "'limit' must be an integer between 1 and 100000, got 0"},
      // "a non-negative integer" for -1, and for a number that is only too large
      {"/api/trials", {{"study", id}, {"limit", "-1"}}, 400, "'limit' must be an integer between 1 and 100000, got '-1'"},
      {"/api/trials", {{"study", id}, {"after", "99999999999999999999999"}}, 400, "'after' is too large"},
      {"/api/trials", {{"study", id}, {"limit", "100001"}}, 400, "got 100001"},
      {"/api/trials", {}, 400, "missing query parameter 'study'"},
      {"/api/trials", {{"study", id}, {"after", "3"}, {"include", "1,x"}}, 400,
       "'include' must be trial numbers separated by commas, got 'x' in it"},
      {"/api/trials", {{"study", id}, {"after", "3"}, {"include", "1,,2"}}, 400, "got '' in it"},
      {"/api/trials", {{"study", id}, {"after", "3"}, {"include", "-1"}}, 400, "got '-1' in it"},
      {"/api/trials", {{"study", id}, {"after", "3"}, {"include", many_numbers}}, 400, "'include' names at most 1000 trials"},
      {"/api/trials", {{"study", "other"}}, 404, "no study 'other'"},
      {"/api/study", {{"id", "other"}}, 404, "no study 'other'"},
      // A NUL ended the exception's text: the message stopped before the list of known studies.
      {"/api/study", {{"id", std::string("a\0b", 3)}}, 404, "no study \"a\\u0000b\"; known: '"},
      {"/api/nothing", {}, 404, "no API endpoint '/api/nothing'"},
  };
  for (const auto& c : cases) {
    const auto r = api.get(c.path, c.query);
    EXPECT_EQ(r.status, c.status) << c.path << " " << r.body;
    EXPECT_NE(body(r).at("error").get<std::string>().find(c.message), std::string::npos) << r.body;
  }
  const auto info = body(api.get("/api/info", {}));
  EXPECT_EQ(info.at("read_only"), true);
  EXPECT_EQ(info.at("version"), optimist::version());
}

// cpp-httplib's SO_REUSEPORT let a second dashboard bind a port in use, silently, and the kernel
// then split the requests between the two servers.
TEST_F(DashboardApiTest, APortInUseIsRefused) {
  const fs::path file = dir() / "t.jsonl";
  write(file, meta_line() + eval_line(1, 2.0));
  TraceSource source({file.string()});
  optimist::dashboard::ServerOptions options;
  options.port = 0;
  optimist::dashboard::Server first(source, options);
  options.port = first.bind();
  optimist::dashboard::Server second(source, options);
  try {
    second.bind();
    FAIL() << "a second server bound port " << options.port;
  } catch (const optimist::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
  }
}

}  // namespace
