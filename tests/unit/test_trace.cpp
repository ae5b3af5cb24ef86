// TraceWriter -> read_trace round trips and the reader's handling of damaged files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>

#include "optimist/core/trace.hpp"
#include "message_of.hpp"
#include "temp_test_dir.hpp"

namespace {

using optimist::EvaluationRecord;
using optimist::InvalidArgument;
using optimist::Space;
using optimist::TraceMeta;
using optimist::TraceWriter;
using optimist::Vector;

// A fresh folder per test, so tests may run in parallel (ctest -j).
std::filesystem::path test_dir() { return optimist::testing::test_dir("optimist_trace"); }

std::string temp_path(const std::string& name) { return (test_dir() / name).string(); }

class Trace : public ::testing::Test {};  // the test's folder goes when it passes (temp_test_dir.hpp)

Space mixed_space() {
  Space s;
  s.add_continuous("lr", 1e-4, 1.0, true);
  s.add_integer("layers", 1, 8);
  s.add_categorical("kernel", {"rbf", "matern", "linear"});
  return s;
}

TraceMeta meta_for(const Space& space) {
  TraceMeta m;
  m.algorithm = "random";
  m.options = {{"name", "random"}, {"seed", 42}};
  m.problem = "toy";
  m.dim = space.dim();
  m.seed = 42;
  m.noise = 0.25;
  m.direction = optimist::Direction::Minimize;
  m.f_star = -1.5;
  m.budget = 3;
  m.space = space.to_json();
  m.run = {{"time_limit_s", 60.0}, {"target", nullptr}, {"batch", 2}, {"on_failure", "mark-failed"}};
  return m;
}

Vector point(double lr, double layers, double kernel) {
  Vector x(3);
  x << lr, layers, kernel;
  return x;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// A complete three-evaluation trace: ok, failed, ok with diagnostics and a non-finite value.
std::string write_sample(const std::string& path) {
  const Space space = mixed_space();
  TraceWriter w(path, meta_for(space), space);

  EvaluationRecord a;
  a.i = 1;
  a.x = point(0.1 / 3.0, 4, 2);  // 0.1/3: a double that needs all 17 digits
  a.y = 0.1 + 0.2;
  a.f = 0.3;
  a.regret = 1.8;
  a.cum_regret = 1.8;
  a.best_f = 0.3;
  a.suggest_s = 0.5;
  a.eval_s = 0.25;
  w.write(a);

  EvaluationRecord b;
  b.i = 2;
  b.x = point(1e-3, 1, 0);
  b.failed = true;
  b.error = "boom";
  b.cum_regret = 1.8;
  b.best_f = 0.3;
  w.write(b);

  EvaluationRecord c;
  c.i = 3;
  c.x = point(0.5, 8, 1);
  c.y = -1.0;
  c.f = std::numeric_limits<double>::quiet_NaN();  // non-finite: must come back as null
  c.best_f = 0.3;
  c.diagnostics = {{"dictionary_size", 12}, {"y", "shadowed"}};
  w.write(c);

  w.write_recommend(point(0.1 / 3.0, 4, 2), 0.3, 1.8);
  return path;
}

TEST_F(Trace, RoundTripKeepsEveryField) {
  const std::string path = write_sample(temp_path("t.jsonl"));
  const optimist::Trace t = optimist::read_trace(path);

  EXPECT_EQ(t.meta.algorithm, "random");
  EXPECT_EQ(t.meta.problem, "toy");
  EXPECT_EQ(t.meta.dim, 3u);
  EXPECT_EQ(t.meta.seed, 42u);
  EXPECT_EQ(t.meta.noise, 0.25);
  EXPECT_EQ(t.meta.direction, optimist::Direction::Minimize);
  ASSERT_TRUE(t.meta.f_star.has_value());
  EXPECT_EQ(*t.meta.f_star, -1.5);
  EXPECT_EQ(t.meta.budget, 3u);
  EXPECT_EQ(t.meta.options.at("seed"), 42);
  EXPECT_EQ(Space::from_json(t.meta.space).dim(), 3u);
  EXPECT_EQ(t.meta.run.at("time_limit_s"), 60.0);
  EXPECT_EQ(t.meta.run.at("on_failure"), "mark-failed");
  EXPECT_EQ(t.meta.run.at("batch"), 2);
  EXPECT_TRUE(t.meta.run.at("target").is_null());
  EXPECT_EQ(t.meta.options.at("name"), "random");
  EXPECT_EQ(Space::from_json(t.meta.space).to_json(), mixed_space().to_json());  // names, bounds, log, choices
  ASSERT_EQ(t.evaluations.size(), 3u);
  ASSERT_TRUE(t.complete());

  const auto& a = t.evaluations[0];
  EXPECT_EQ(a.at("i"), 1);
  EXPECT_EQ(a.at("x")[0].get<double>(), 0.1 / 3.0);  // bit-exact
  EXPECT_EQ(a.at("x")[1], 4);
  EXPECT_EQ(a.at("x")[2], "linear");  // categorical as its string
  EXPECT_EQ(a.at("y").get<double>(), 0.1 + 0.2);
  EXPECT_EQ(a.at("status"), "ok");
  EXPECT_FALSE(a.contains("error"));
  EXPECT_EQ(a.at("suggest_s").get<double>(), 0.5);
  EXPECT_EQ(a.at("eval_s").get<double>(), 0.25);
  EXPECT_EQ(a.at("f").get<double>(), 0.3);
  EXPECT_EQ(a.at("regret").get<double>(), 1.8);
  EXPECT_EQ(a.at("cum_regret").get<double>(), 1.8);
  EXPECT_EQ(a.at("best_f").get<double>(), 0.3);

  const auto& b = t.evaluations[1];
  EXPECT_EQ(b.at("status"), "failed");
  EXPECT_EQ(b.at("error"), "boom");
  EXPECT_TRUE(b.at("y").is_null());
  EXPECT_TRUE(b.at("f").is_null());
  EXPECT_TRUE(b.at("regret").is_null());
  EXPECT_EQ(b.at("x")[2], "rbf");
  EXPECT_EQ(b.at("i"), 2);
  EXPECT_EQ(b.at("x")[0].get<double>(), 1e-3);
  EXPECT_EQ(b.at("x")[1], 1);
  EXPECT_EQ(b.at("cum_regret").get<double>(), 1.8);  // a failure keeps the running totals
  EXPECT_EQ(b.at("best_f").get<double>(), 0.3);

  const auto& c = t.evaluations[2];
  EXPECT_TRUE(c.at("f").is_null());  // NaN written as null
  EXPECT_TRUE(c.at("cum_regret").is_null());
  EXPECT_EQ(c.at("dictionary_size"), 12);
  EXPECT_EQ(c.at("y").get<double>(), -1.0);  // a diagnostic never overwrites a core field
  EXPECT_EQ(c.at("diag_y"), "shadowed");
  EXPECT_EQ(c.at("i"), 3);
  EXPECT_EQ(c.at("status"), "ok");
  EXPECT_EQ(c.at("x")[0].get<double>(), 0.5);
  EXPECT_EQ(c.at("x")[1], 8);
  EXPECT_EQ(c.at("x")[2], "matern");
  EXPECT_TRUE(c.at("regret").is_null());
  EXPECT_EQ(c.at("best_f").get<double>(), 0.3);

  EXPECT_EQ(t.recommend->at("x")[0].get<double>(), 0.1 / 3.0);
  EXPECT_EQ(t.recommend->at("x")[1], 4);
  EXPECT_EQ(t.recommend->at("x")[2], "linear");
  EXPECT_EQ(t.recommend->at("f").get<double>(), 0.3);
  EXPECT_EQ(t.recommend->at("simple_regret").get<double>(), 1.8);

  // The point read back maps to the same user point.
  const Space space = mixed_space();
  EXPECT_EQ(space.point_from_json(a.at("x")), point(0.1 / 3.0, 4, 2));
}

TEST_F(Trace, LinesAreWrittenAsTheyHappen) {
  const std::string path = temp_path("live.jsonl");
  const Space space = Space::box(2, 0.0, 1.0);
  TraceWriter w(path, meta_for(space), space);
  EvaluationRecord r;
  r.i = 1;
  r.x = Vector::Constant(2, 0.5);
  r.y = 1.0;
  r.f = 1.0;
  w.write(r);
  // Still open: the meta and the evaluation must already be on disk.
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(nlohmann::json::parse(lines[0]).contains("meta"));
  const optimist::Trace t = optimist::read_trace(path);
  EXPECT_EQ(t.evaluations.size(), 1u);
  EXPECT_FALSE(t.complete());
  EXPECT_TRUE(t.evaluations[0].at("regret").is_null());
}

TEST_F(Trace, MetaLineHasTheDocumentedKeys) {
  const std::string path = write_sample(temp_path("meta.jsonl"));
  const auto meta = nlohmann::json::parse(read_lines(path).at(0)).at("meta");
  for (const char* key : {"algorithm", "options", "problem", "dim", "seed", "noise", "direction", "f_star",
                          "budget", "space", "run", "version"})
    EXPECT_TRUE(meta.contains(key)) << key;
  EXPECT_EQ(meta.at("direction"), "minimize");
  EXPECT_EQ(meta.at("version"), optimist::version());
}

TEST_F(Trace, NullRecommendWhenThereIsNoAnswer) {
  const std::string path = temp_path("norec.jsonl");
  const Space space = Space::box(1, 0.0, 1.0);
  {
    TraceMeta m = meta_for(space);
    m.f_star.reset();
    TraceWriter w(path, m, space);
    w.write_recommend(Vector(), std::nullopt, std::nullopt);
    // A second recommend line (a caller writing its own after optimize()'s) made an unreadable trace.
    EXPECT_THROW(w.write_recommend(Vector(), std::nullopt, std::nullopt), std::logic_error);
  }
  const optimist::Trace t = optimist::read_trace(path);
  EXPECT_FALSE(t.meta.f_star.has_value());
  ASSERT_TRUE(t.complete());
  EXPECT_TRUE(t.recommend->at("x").is_null());
  EXPECT_TRUE(t.recommend->at("f").is_null());
}

TEST_F(Trace, TruncatedLastLineIsIgnored) {
  const std::string path = write_sample(temp_path("cut.jsonl"));
  auto lines = read_lines(path);
  // Simulate a writer killed in the middle of the third evaluation line.
  std::string text = lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n" + lines[3].substr(0, lines[3].size() / 2);
  write_text(path, text);
  const optimist::Trace t = optimist::read_trace(path);
  EXPECT_EQ(t.evaluations.size(), 2u);
  EXPECT_FALSE(t.complete());
}

TEST_F(Trace, MalformedMiddleLineNamesFileAndLine) {
  const std::string path = write_sample(temp_path("bad.jsonl"));
  auto lines = read_lines(path);
  lines[2] = "{\"i\": 2, \"x\": [";  // line 3 of the file
  std::ostringstream os;
  for (const auto& l : lines) os << l << '\n';
  write_text(path, os.str());
  try {
    optimist::read_trace(path);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ":3:"), std::string::npos) << what;
  }
}

TEST_F(Trace, MissingMetaIsAnError) {
  const std::string path = temp_path("nometa.jsonl");
  write_text(path, "{\"i\":1,\"x\":[0.5],\"y\":1}\n{\"recommend\":{\"x\":[0.5],\"f\":1,\"simple_regret\":null}}\n");
  EXPECT_THROW(optimist::read_trace(path), InvalidArgument);
  write_text(path, "");
  EXPECT_THROW(optimist::read_trace(path), InvalidArgument);
  EXPECT_THROW(optimist::read_trace(temp_path("does_not_exist.jsonl")), InvalidArgument);
}

TEST_F(Trace, UnwritablePathIsAnError) {
  const Space space = Space::box(1, 0.0, 1.0);
  const std::string path = temp_path("missing_dir") + "/sub/t.jsonl";
  EXPECT_THROW(TraceWriter(path, meta_for(space), space), InvalidArgument);
}

TEST_F(Trace, EvaluationToJsonMatchesTheWrittenLine) {
  const Space space = mixed_space();
  EvaluationRecord r;
  r.i = 7;
  r.x = point(0.5, 2, 0);
  r.y = 3.0;
  r.f = 2.5;
  r.suggest_s = std::numeric_limits<double>::infinity();
  const nlohmann::json j = optimist::evaluation_to_json(r, space);
  EXPECT_EQ(j.at("i"), 7);
  EXPECT_EQ(j.at("x")[2], "rbf");
  EXPECT_TRUE(j.at("suggest_s").is_null());
  EXPECT_TRUE(j.at("best_f").is_null());
  EXPECT_EQ(j.at("status"), "ok");
}

TEST_F(Trace, EvaluationsReadBackAsRecordsAndRewriteInPlace) {
  const std::string path = write_sample(temp_path("t.jsonl"));
  const Space space = mixed_space();
  const optimist::Trace t = optimist::read_trace(path);
  std::vector<EvaluationRecord> records;
  for (const auto& line : t.evaluations) records.push_back(optimist::evaluation_from_json(line, space));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].x, point(0.1 / 3.0, 4, 2));
  EXPECT_EQ(*records[0].y, 0.1 + 0.2);
  EXPECT_EQ(records[0].suggest_s, 0.5);
  EXPECT_TRUE(records[1].failed);
  EXPECT_FALSE(records[1].y.has_value());
  EXPECT_EQ(records[1].error, "boom");
  EXPECT_FALSE(records[2].f.has_value());  // null comes back as absent
  EXPECT_EQ(records[2].diagnostics.at("dictionary_size"), 12);
  // Rewriting the records over the same file (resume in place) gives the same evaluation lines.
  TraceMeta meta = meta_for(space);
  meta.objective_command = "python3 train.py";
  { TraceWriter w(path, meta, space, records); }
  const optimist::Trace again = optimist::read_trace(path);
  EXPECT_EQ(again.evaluations, t.evaluations);
  EXPECT_FALSE(again.complete());
  EXPECT_EQ(again.meta.objective_command, "python3 train.py");
  EXPECT_FALSE(std::filesystem::exists(path + ".resume-tmp"));
}

TEST_F(Trace, MalformedEvaluationsNameTheField) {
  const Space space = mixed_space();
  const nlohmann::json good = {{"i", 4}, {"x", {0.5, 2, "rbf"}}, {"y", 1.0}, {"status", "ok"}};
  EXPECT_NO_THROW(optimist::evaluation_from_json(good, space));
  const auto message = [&](nlohmann::json line) {
    try {
      optimist::evaluation_from_json(line, space);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto outside = good;
  outside["x"][0] = 7.0;
  EXPECT_NE(message(outside).find("evaluation 4"), std::string::npos) << message(outside);
  EXPECT_NE(message(outside).find("lr"), std::string::npos) << message(outside);
  auto no_y = good;
  no_y["y"] = nullptr;
  EXPECT_NE(message(no_y).find("finite \"y\""), std::string::npos) << message(no_y);
  auto status = good;
  status["status"] = "done";
  EXPECT_NE(message(status).find("\"done\""), std::string::npos) << message(status);
  auto short_x = good;
  short_x["x"] = {0.5, 2};
  EXPECT_NE(message(short_x).find("2 values"), std::string::npos) << message(short_x);
}

TEST_F(Trace, StartPointsRoundTripThroughTheMetaAndBadOnesAreNamed) {
  const Space space = mixed_space();
  TraceMeta meta = meta_for(space);
  optimist::record_start_points(meta, space, {});
  EXPECT_FALSE(meta.run.contains("x0"));  // a run without x0 writes none
  const std::vector<Vector> points = {Vector{{0.01, 3.0, 2.0}}, Vector{{1.0, 8.0, 0.0}}};
  optimist::record_start_points(meta, space, points);
  EXPECT_EQ(meta.run["x0"], nlohmann::json::parse(R"([[0.01, 3, "linear"], [1.0, 8, "rbf"]])"));
  EXPECT_EQ(optimist::recorded_start_points(TraceMeta::from_json(meta.to_json()), space), points);
  EXPECT_TRUE(optimist::recorded_start_points(meta_for(space), space).empty());
  meta.run["x0"][1][2] = "poly";
  const std::string bad = optimist::testing::message_of([&] { (void)optimist::recorded_start_points(meta, space); });
  EXPECT_NE(bad.find("run.x0[1]"), std::string::npos) << bad;
  EXPECT_NE(bad.find("poly"), std::string::npos) << bad;
  meta.run["x0"] = "abc";
  const std::string not_list = optimist::testing::message_of([&] { (void)optimist::recorded_start_points(meta, space); });
  EXPECT_NE(not_list.find("\"abc\""), std::string::npos) << not_list;
}

}  // namespace

namespace {

// Room for several objectives, black-box constraints and intermediate values
// (docs/trace-format.md): a trace that has objectives or constraints is refused by name, never
// read as a one-objective run; their evaluation keys are never taken for diagnostics.
TEST_F(Trace, RoomForObjectivesConstraintsAndIntermediateValues) {
  const Space space = mixed_space();
  const std::string path = write_sample(temp_path("t.jsonl"));
  std::vector<std::string> lines = read_lines(path);
  const nlohmann::json meta_line = nlohmann::json::parse(lines[0]);
  const auto read_with_meta = [&](const nlohmann::json& meta) {
    std::vector<std::string> edited = lines;
    edited[0] = nlohmann::json{{"meta", meta}}.dump();
    std::string text;
    for (const auto& l : edited) text += l + "\n";
    write_text(path, text);
    try {
      optimist::read_trace(path);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  nlohmann::json m = meta_line.at("meta");
  m["version"] = "9.0.0";
  m["objectives"] = {{{"name", "loss"}, {"direction", "minimize"}}, {{"name", "latency"}, {"direction", "minimize"}}};
  EXPECT_NE(read_with_meta(m).find(":1: trace meta: the run has 2 objectives ('objectives'); this optimist (" + std::string(optimist::version()) +
                                   ") reads traces of one objective without constraints (the trace was written by 9.0.0)"),
            std::string::npos)
      << read_with_meta(m);
  m["objectives"] = {{{"name", "loss"}, {"direction", "minimize"}}};
  EXPECT_EQ(read_with_meta(m), "read");
  m["objectives"] = "loss";
  EXPECT_NE(read_with_meta(m).find("'objectives' must be an array"), std::string::npos) << read_with_meta(m);
  m.erase("objectives");
  m["constraints"] = {{{"name", "memory_gb"}}};
  EXPECT_NE(read_with_meta(m).find("the run has 1 black-box constraint(s) ('constraints')"), std::string::npos) << read_with_meta(m);
  m["constraints"] = nlohmann::json::array();
  EXPECT_EQ(read_with_meta(m), "read");

  // A diagnostic with a reserved name keeps its value under diag_; read back, the reserved keys
  // are not diagnostics.
  EvaluationRecord r;
  r.i = 1;
  r.x = point(0.5, 2, 0);
  r.y = 3.0;
  r.diagnostics = {{"constraints", 2}, {"intermediate", "x"}, {"values", 1}, {"lengthscale", 0.5}};
  const nlohmann::json j = optimist::evaluation_to_json(r, space);
  EXPECT_FALSE(j.contains("constraints"));
  EXPECT_EQ(j.at("diag_constraints"), 2);
  EXPECT_EQ(j.at("diag_intermediate"), "x");
  EXPECT_EQ(j.at("diag_values"), 1);
  nlohmann::json future = j;
  future["intermediate"] = {{1, 0.9}, {2, 0.7}};
  const EvaluationRecord back = optimist::evaluation_from_json(future, space);
  EXPECT_FALSE(back.diagnostics.contains("intermediate"));
  EXPECT_EQ(back.diagnostics.at("lengthscale"), 0.5);
  EXPECT_EQ(back.diagnostics.at("diag_constraints"), 2);
}

}  // namespace

namespace {

// A resume refused on its space says which parameter differs (it printed the trace's space
// alone, after "differs from this run's:", as if it were this run's).
// `--resume /dev/zero` (or a binary file named by mistake) read one endless line until memory
// ran out; lines are read in chunks, whatever their length up to 64 MiB.
TEST_F(Trace, AnEndlessLineIsRefusedAndLongOnesAreRead) {
  std::istringstream endless(std::string((std::size_t{64} << 20) + 100, 'x'));
  try {
    (void)optimist::read_trace(endless, "zero");
    FAIL() << "read a 64 MiB line";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("zero:1: a line longer than 64 MiB: not a trace"), std::string::npos) << e.what();
  }
  // Lines around the chunk's size (65,535 characters and a '\n'), with and without a last '\n'.
  const Space space = mixed_space();
  const std::string path = write_sample(temp_path("long.jsonl"));
  std::vector<std::string> lines = read_lines(path);
  for (const std::size_t pad : {65535u - 30u, 65535u, 65536u, 200000u}) {
    for (const bool last_newline : {true, false}) {
      std::string text;
      for (std::size_t k = 0; k < lines.size(); ++k) {
        std::string line = lines[k];
        if (k == 1) {  // an evaluation with a long diagnostic
          auto j = nlohmann::json::parse(line);
          j["note"] = std::string(pad, 'n');
          line = j.dump();
        }
        text += line;
        if (k + 1 < lines.size() || last_newline) text += "\n";
      }
      std::istringstream in(text);
      const auto t = optimist::read_trace(in, "long");
      ASSERT_EQ(t.evaluations.size(), 3u) << pad;
      EXPECT_EQ(t.evaluations[0].at("note").get<std::string>().size(), pad);
      EXPECT_TRUE(t.complete()) << pad << " " << last_newline;
    }
  }
  (void)space;
}

// What a new trace does to the file at its path (stop 67's probe: `--out train.sh` replaced the
// user's program, `--out space.json` the space it read, and a rerun wrote over a finished trace of
// evaluations the user paid for).
TEST_F(Trace, AFileThatIsNotATraceIsNeverWrittenOver) {
  const Space space = mixed_space();
  for (const std::string text : {"#!/bin/sh\necho '{\"y\": 1}'\n", "{\"parameters\": []}\n", "budget = 5\n"}) {
    const std::string path = temp_path("mine.txt");
    write_text(path, text);
    try {
      TraceWriter w(path, meta_for(space), space);
      FAIL() << "wrote a trace over " << text;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("the file '" + path + "' is there and is not a trace"), std::string::npos) << e.what();
    }
    std::ifstream in(path);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
  }
  write_text(temp_path("empty.jsonl"), "");  // an empty file (mktemp's) is taken
  TraceWriter w(temp_path("empty.jsonl"), meta_for(space), space);
  EXPECT_TRUE(w.kept_as().empty());
}

TEST_F(Trace, AFinishedRunOfTheUsersObjectiveIsKeptAndABenchmarksWrittenOver) {
  const Space space = mixed_space();
  TraceMeta mine = meta_for(space);
  mine.user_objective = true;
  auto write_mine = [&](const std::string& path) {
    TraceWriter w(path, mine, space);
    EvaluationRecord r;
    r.i = 1;
    r.x = point(0.1, 2, 1);
    r.y = 0.5;
    w.write(r);
    w.write_recommend(r.x, std::nullopt, std::nullopt);
  };
  const std::string path = temp_path("run.jsonl");
  write_mine(path);
  EXPECT_TRUE(optimist::read_trace(path).meta.user_objective);  // written, and read back
  const std::vector<std::string> first = read_lines(path);
  {
    TraceWriter w(path, mine, space);
    EXPECT_EQ(w.kept_as(), temp_path("run.1.jsonl"));
  }
  EXPECT_EQ(read_lines(temp_path("run.1.jsonl")), first);
  EXPECT_EQ(read_lines(path).size(), 1u);  // the new run's meta line
  // Kept by what the file holds, whatever the new run evaluates (a benchmark run over it too).
  write_mine(path);
  {
    TraceWriter benchmark_over_mine(path, meta_for(space), space);
    EXPECT_EQ(benchmark_over_mine.kept_as(), temp_path("run.2.jsonl"));  // the next free name
  }
  // A program's trace written before user_objective existed: its objective_command says it.
  mine.user_objective = false;
  mine.objective_command = "./train.sh";
  write_mine(path);
  {
    TraceWriter benchmark_over_program(path, meta_for(space), space);
    EXPECT_EQ(benchmark_over_program.kept_as(), temp_path("run.3.jsonl"));
  }
  write_sample(temp_path("bench.jsonl"));  // a benchmark's finished trace: evaluated again at no cost
  TraceWriter benchmark(temp_path("bench.jsonl"), meta_for(space), space);
  EXPECT_TRUE(benchmark.kept_as().empty());
  EXPECT_FALSE(std::filesystem::exists(temp_path("bench.1.jsonl")));
}

// A resume writes over the trace it continues; any other file it is sent to is met as by a new
// run (a resume --out another run's unfinished trace replaced it).
TEST_F(Trace, AResumeIntoAnotherFileMeetsItAsANewRunDoes) {
  const Space space = mixed_space();
  const std::string resumed = write_sample(temp_path("a.jsonl"));
  const std::vector<EvaluationRecord> earlier =
      optimist::evaluations_from_trace(optimist::read_trace(resumed), space);
  std::vector<std::string> lines = read_lines(write_sample(temp_path("other.jsonl")));
  lines.pop_back();
  std::string unfinished;
  for (const auto& l : lines) unfinished += l + "\n";
  write_text(temp_path("other.jsonl"), unfinished);
  try {
    TraceWriter w(temp_path("other.jsonl"), meta_for(space), space, earlier, nullptr, resumed);
    FAIL() << "a resume wrote over another run's unfinished trace";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish"), std::string::npos) << e.what();
  }
  TraceWriter in_place(temp_path("./a.jsonl"), meta_for(space), space, earlier, nullptr, resumed);  // its own
  EXPECT_TRUE(in_place.kept_as().empty());
}

// A second writer of a trace another process is writing was told to resume it (it read as an
// unfinished run) when the first had written a line.
TEST_F(Trace, ATraceBeingWrittenIsSaidToBe) {
  const Space space = mixed_space();
  const std::string path = write_sample(temp_path("live.jsonl"));
  std::vector<std::string> lines = read_lines(path);
  lines.pop_back();  // no recommend line: as while its run goes on
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  write_text(path, text);
  optimist::TraceLock other(path, /*create=*/false);  // an open file description of its own
  try {
    TraceWriter w(path, meta_for(space), space);
    FAIL() << "wrote a trace another writer holds";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("written by another process"), std::string::npos) << e.what();
  }
}

TEST_F(Trace, SpaceDifferenceNamesEachParameterThatDiffers) {
  const nlohmann::json there = mixed_space().to_json();
  EXPECT_EQ(optimist::space_difference(there, there), "");
  Space wider;
  wider.add_continuous("lr", 1e-4, 10.0, true);
  wider.add_integer("layers", 1, 8);
  wider.add_categorical("kernel", {"rbf", "matern"});
  wider.add_integer("batch", 16, 256, true);
  EXPECT_EQ(optimist::space_difference(there, wider.to_json()),
            "'lr' is continuous [0.0001, 1.0] log there, continuous [0.0001, 10.0] log here; 'kernel' is categorical "
            "[\"rbf\",\"matern\",\"linear\"] there, categorical [\"rbf\",\"matern\"] here; 'batch' is only here");
  Space fewer;
  fewer.add_integer("layers", 1, 8);
  fewer.add_categorical("kernel", {"rbf", "matern", "linear"});
  EXPECT_EQ(optimist::space_difference(there, fewer.to_json()), "'lr' is only there");
  Space reordered;
  reordered.add_integer("layers", 1, 8);
  reordered.add_continuous("lr", 1e-4, 1.0, true);
  reordered.add_categorical("kernel", {"rbf", "matern", "linear"});
  EXPECT_EQ(optimist::space_difference(there, reordered.to_json()),
            "parameters [\"lr\",\"layers\",\"kernel\"] there, [\"layers\",\"lr\",\"kernel\"] here");
  EXPECT_EQ(optimist::space_difference(nlohmann::json{{"dims", 2}}, fewer.to_json()),
            "{\"dims\":2} there, " + fewer.to_json().dump() + " here");
}

}  // namespace
