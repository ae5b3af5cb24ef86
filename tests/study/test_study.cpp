// Studies on every storage backend: creation and errors, one worker equal to optimize(), several
// workers sharing pending trials, queued and added trials, heartbeats and stale trials, budgets.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/study/study.hpp"
#include "optimist/study/worker.hpp"
#include "study/database.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using optimist::testing::message_of;

namespace {

class StudyTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { url = optimist::testing::fresh_storage_url(GetParam()); }
  std::string url;
};

StudyConfig branin_config(const std::string& name, const std::string& algorithm = "random", std::size_t budget = 20) {
  const Problem p = make_problem("branin");
  StudyConfig c;
  c.name = name;
  c.space = p.space;
  c.direction = p.direction;
  c.algorithm = algorithm;
  c.seed = 3;
  c.budget = budget;
  c.f_star = p.f_star;
  return c;
}

StudyOptions no_thread(const std::string& worker) {
  StudyOptions o;
  o.worker = worker;
  o.heartbeat_thread = false;
  return o;
}

double branin(const Vector& x) { return make_problem("branin").f(x); }

}  // namespace

TEST_P(StudyTest, CreateLoadAndClearErrors) {
  Study::create(url, branin_config("a"));
  EXPECT_THROW(Study::create(url, branin_config("a")), InvalidArgument);
  Study::create(url, branin_config("b", "gp-ei"));
  const std::string missing = message_of([&] { Study::load(url, "nope"); });
  EXPECT_NE(missing.find("no study named 'nope'"), std::string::npos) << missing;
  EXPECT_NE(missing.find("'a', 'b'"), std::string::npos) << missing;
  const Study b = Study::load(url, "b");
  EXPECT_EQ(b.record().algorithm, "gp-ei");
  EXPECT_EQ(b.record().space.to_json(), make_problem("branin").space.to_json());
  EXPECT_EQ(b.record().seed, 3u);
  EXPECT_FALSE(b.record().options.contains("seed"));  // the seed is the study's, given as its RunContext
  EXPECT_EQ(b.record().budget, 20u);
  const std::string scheme = message_of([] { Storage s("mysql://h/db"); });
  EXPECT_NE(scheme.find("unknown scheme 'mysql'"), std::string::npos) << scheme;
  EXPECT_NE(scheme.find("postgresql://"), std::string::npos) << scheme;
  const std::string algo = message_of([&] { Study::create(url, branin_config("c", "no-such-algorithm")); });
  EXPECT_NE(algo.find("no-such-algorithm"), std::string::npos) << algo;
  // Any text is a name but one with blanks around it (unreadable in a table) or a NUL.
  for (const std::string& name : std::vector<std::string>{" ", "a ", "\tb", std::string("x\0y", 3), "line\n"}) {
    const std::string bad = message_of([&] { Study::create(url, branin_config(name)); });
    EXPECT_NE(bad.find("study name \""), std::string::npos) << bad;
  }
  EXPECT_EQ(Study::create(url, branin_config("with inner blanks")).record().name, "with inner blanks");
  // Bytes that are not UTF-8 (SQLite stored them, the dashboard could not name them, PostgreSQL
  // refused them raw) and names past 1,000 bytes (PostgreSQL's index refused them raw): the same
  // rule on both backends.
  const std::string not_utf8 = message_of([&] { Study::create(url, branin_config("bad\xff\xfe")); });
  EXPECT_NE(not_utf8.find("is not valid UTF-8 text"), std::string::npos) << not_utf8;
  const std::string long_name = message_of([&] { Study::create(url, branin_config(std::string(10000, 'n'))); });
  EXPECT_NE(long_name.find("10000 bytes is too long (at most 1000)"), std::string::npos) << long_name;
  EXPECT_EQ(Study::create(url, branin_config("\xc3\xa9t\xc3\xa9")).record().name, "\xc3\xa9t\xc3\xa9");

  Storage storage(url);
  const auto list = storage.list_studies();
  ASSERT_EQ(list.size(), 4u);
  storage.delete_study("with inner blanks");
  storage.delete_study("a");
  EXPECT_EQ(storage.list_studies().size(), 2u);
  EXPECT_THROW(storage.delete_study("a"), InvalidArgument);
}

// The algorithms are deterministic functions of (options, seed, history): one worker's study
// holds exactly the evaluations of optimize() with the same seed.
TEST_P(StudyTest, OneWorkerEqualsTheInMemoryRun) {
  for (const std::string algorithm : {"random", "gp-ei", "sequool", "turbo", "bkb"}) {
    SCOPED_TRACE(algorithm);
    const std::size_t budget = 12;
    Study study = Study::create(url, branin_config("det-" + algorithm, algorithm, budget), no_thread("w"));
    while (auto t = study.ask()) study.tell(*t, branin(t->x));

    const auto optimizer =
        make_optimizer(study.record().options, study.space(), Direction::Minimize, study_run_context(study.record()));
    Objective objective;
    objective.direction = Direction::Minimize;
    objective.function = branin;
    RunOptions options;
    options.budget = budget;
    const RunSummary run = optimize(*optimizer, objective, options);

    const auto trials = study.trials();
    ASSERT_EQ(trials.size(), budget);
    for (std::size_t i = 0; i < budget; ++i) {
      EXPECT_EQ(trials[i].number, i);
      EXPECT_EQ(trials[i].state, TrialState::Complete);
      ASSERT_EQ(trials[i].x, run.evaluations[i].x) << "trial " << i;
      EXPECT_EQ(trials[i].value, run.evaluations[i].y) << "trial " << i;  // bit for bit
    }
    EXPECT_EQ(study.recommend(), run.recommended_x);
  }
}

// A study that used its budget gets more trials (Study::set_budget, `study set --budget`): a worker
// loaded before the change asks them at its next ask, and every worker keeps the horizon the study
// was created with, so a study continued from 8 to 14 trials is, trial for trial, one run of budget
// 14 whose algorithm plans for 8 (a trace resumed with a larger budget does the same).
TEST_P(StudyTest, ARaisedBudgetGivesMoreTrialsWithTheFirstHorizon) {
  Study study = Study::create(url, branin_config("more", "go-ucb", 8), no_thread("w"));
  Study other = Study::load(url, "more", no_thread("other"));  // loaded before the change
  while (auto t = study.ask()) study.tell(*t, branin(t->x));
  EXPECT_FALSE(other.ask());
  EXPECT_NE(message_of([&] { study.set_budget(5); }).find("a budget of 5 is below the 8 trial(s) it has counted"), std::string::npos);
  EXPECT_NE(message_of([&] { study.set_budget(0); }).find("budget must be > 0"), std::string::npos);
  study.set_budget(14);
  EXPECT_EQ(Study::load(url, "more").record().budget, std::optional<std::size_t>(14));
  EXPECT_EQ(study_run_context(Storage(url).load_study("more")).horizon, std::optional<std::size_t>(8));
  for (int k = 0; k < 3; ++k) {
    auto t = other.ask();
    ASSERT_TRUE(t) << k;
    other.tell(*t, branin(t->x));
  }
  while (auto t = study.ask()) study.tell(*t, branin(t->x));
  const auto trials = study.trials();
  ASSERT_EQ(trials.size(), 14u);

  const auto optimizer = make_optimizer(study.record().options, study.space(), Direction::Minimize,
                                        RunContext{.seed = study.record().seed, .horizon = 8});
  Objective objective;
  objective.direction = Direction::Minimize;
  objective.function = branin;
  RunOptions options;
  options.budget = 14;
  const RunSummary run = optimize(*optimizer, objective, options);
  for (std::size_t i = 0; i < 14; ++i) ASSERT_EQ(trials[i].x, run.evaluations[i].x) << "trial " << i;
  study.set_budget(std::nullopt);  // unlimited; the horizon stays
  EXPECT_FALSE(Study::load(url, "more").record().budget);
  EXPECT_EQ(study_run_context(Storage(url).load_study("more")).horizon, std::optional<std::size_t>(8));
}

// Two workers asking in turn before any tell: each registers the other's ask as pending, so the
// study's trials equal one optimizer doing the same asks and tells (every worker computes the
// same state), for every algorithm.
TEST_P(StudyTest, TwoWorkersSeeEachOthersPendingTrials) {
  for (const auto& info : algorithms()) {
    SCOPED_TRACE(info.name);
    Study a = Study::create(url, branin_config("two-" + info.name, info.name, 40), no_thread("a"));
    Study b = Study::load(url, "two-" + info.name, no_thread("b"));
    auto single = make_study_optimizer(a.record());
    for (int round = 0; round < 5; ++round) {
      auto ta = a.ask();
      auto tb = b.ask();
      ASSERT_TRUE(ta && tb);
      EXPECT_NE(ta->number, tb->number);
      const Trial sa = single->ask(), sb = single->ask();
      ASSERT_EQ(ta->x, sa.x) << "round " << round;
      ASSERT_EQ(tb->x, sb.x) << "round " << round;
      a.tell(*ta, branin(ta->x));
      b.tell(*tb, branin(tb->x));
      single->tell(sa, branin(sa.x));
      single->tell(sb, branin(sb.x));
    }
  }
}

TEST_P(StudyTest, QueuedTrialsComeFirstAndAddedOnesCount) {
  Study s = Study::create(url, branin_config("q", "random", 6), no_thread("w"));
  Vector p1(2), p2(2), p3(2);
  p1 << 1.0, 2.0;
  p2 << 3.0, 4.0;
  p3 << -3.14159265358979, 12.275;
  EXPECT_EQ(s.enqueue(p1), 0u);
  EXPECT_EQ(s.enqueue(p2), 1u);
  const double told = 0.1 + 0.2;  // not a short decimal: must come back bit for bit
  EXPECT_EQ(s.add(p3, told), 2u);
  Vector outside(2);
  outside << 100.0, 0.0;
  EXPECT_THROW(s.enqueue(outside), InvalidArgument);
  auto t0 = s.ask(), t1 = s.ask();
  ASSERT_TRUE(t0 && t1);
  EXPECT_EQ(t0->number, 0u);
  EXPECT_EQ(t0->x, p1);
  EXPECT_EQ(t0->origin, "enqueued");
  EXPECT_EQ(t1->x, p2);
  s.tell(*t0, branin(p1));
  s.tell_failed(*t1, "simulator crashed");
  const auto t3 = s.ask();
  ASSERT_TRUE(t3);
  EXPECT_EQ(t3->number, 3u);
  EXPECT_EQ(t3->origin, "asked");
  s.tell(*t3, branin(t3->x));
  const auto trials = s.trials();
  ASSERT_EQ(trials.size(), 4u);
  EXPECT_EQ(trials[1].state, TrialState::Failed);
  EXPECT_EQ(trials[1].error, "simulator crashed");
  EXPECT_EQ(trials[2].origin, "told");
  EXPECT_EQ(*trials[2].value, told);
  EXPECT_EQ(s.best()->number, 2u);  // 0.3 beats every branin value above the minimum 0.398
  EXPECT_EQ(s.recommend(), p3);
  // skip_if_exists: an evaluated point (p1, p3) is not queued again; a failed one (p2) is.
  EXPECT_EQ(s.enqueue(p1, true), 0u);
  EXPECT_EQ(s.enqueue(p3, true), 2u);
  EXPECT_EQ(s.enqueue(p2, true), 4u);
  EXPECT_EQ(s.enqueue(p2, true), 4u);  // now waiting
  // Budget 6: trials 0-3 count, two more asks (the first takes p2 again), then nothing.
  const auto retried = s.ask();
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->x, p2);
  EXPECT_TRUE(s.ask());
  EXPECT_FALSE(s.ask());
}

TEST_P(StudyTest, BadTellsAreRefused) {
  Study s = Study::create(url, branin_config("bad"), no_thread("w"));
  const auto t = s.ask();
  ASSERT_TRUE(t);
  EXPECT_THROW(s.tell(*t, std::nan("")), InvalidArgument);
  s.tell(*t, 1.5);
  const std::string twice = message_of([&] { s.tell(*t, 2.5); });
  EXPECT_NE(twice.find("is complete"), std::string::npos) << twice;
  EXPECT_EQ(*s.trials()[0].value, 1.5);  // a told value is never overwritten
  // Told twice with the same value, or failed twice: the second is the caller's mistake, not a
  // lost commit run again (that happens only while this object still holds the trial).
  const std::string same = message_of([&] { s.tell(*t, 1.5); });
  EXPECT_NE(same.find("told twice"), std::string::npos) << same;
  const auto f = s.ask();
  s.tell_failed(*f, "broke");
  const std::string failed_twice = message_of([&] { s.tell_failed(*f, "broke"); });
  EXPECT_NE(failed_twice.find("is failed"), std::string::npos) << failed_twice;
  Study other = Study::load(url, "bad", no_thread("other"));
  const auto u = s.ask();
  EXPECT_THROW(other.tell(*u, 1.0), InvalidArgument);  // not the worker holding it
  StudyTrial ghost{99, u->x, "asked", 0.0, std::nullopt};
  EXPECT_THROW(s.tell(ghost, 1.0), InvalidArgument);
}

// A study deleted while a worker held a trial: its tell was a raw "vector::_M_range_check".
TEST_P(StudyTest, ATellIntoADeletedStudyNamesTheDeletion) {
  Study s = Study::create(url, branin_config("gone"), no_thread("w"));
  const auto t = s.ask();
  ASSERT_TRUE(t);
  Storage(url).delete_study("gone");
  const std::string message = message_of([&] { s.tell(*t, 1.0); });
  EXPECT_NE(message.find("the study no longer exists: it was deleted"), std::string::npos) << message;
}

// An interrupted worker gives its trial back at once instead of after the grace period.
TEST_P(StudyTest, ReleasedTrialsAreRequeuedAtOnce) {
  Study s = Study::create(url, branin_config("released", "random", 3), no_thread("w"));
  Study other = Study::load(url, "released", no_thread("other"));
  const auto t = s.ask();
  ASSERT_TRUE(t);
  EXPECT_THROW(other.release(*t, "not mine"), InvalidArgument);
  s.release(*t, "released: interrupted");
  EXPECT_THROW(s.release(*t, "twice"), InvalidArgument);
  EXPECT_EQ(s.budget_used(), 0u);
  const auto again = other.ask();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->origin, "requeued");
  EXPECT_EQ(again->x, t->x);
  const auto trials = s.trials();
  EXPECT_EQ(trials[0].state, TrialState::Failed);
  EXPECT_TRUE(trials[0].stale);
  EXPECT_EQ(trials[0].error, "released: interrupted");
  EXPECT_EQ(trials[1].requeued_from, 0u);
}

// A worker interrupted mid-evaluation (its trial released, then run again from the queue) leaves
// the algorithm's run as if it had not been interrupted: the released trial is withdrawn from the
// optimizers, not told as a failure (gp-ei put the worst value at the point it had just chosen).
TEST_P(StudyTest, AnInterruptedTrialLeavesTheRunAsIfItWereNot) {
  for (const std::string algorithm : {"gp-ei", "sequool", "turbo"}) {
    SCOPED_TRACE(algorithm);
    const std::size_t budget = 12;
    Study plain = Study::create(url, branin_config("plain-" + algorithm, algorithm, budget), no_thread("w"));
    while (auto t = plain.ask()) plain.tell(*t, branin(t->x));
    Study study = Study::create(url, branin_config("cut-" + algorithm, algorithm, budget), no_thread("w"));
    std::vector<Vector> evaluated;
    while (auto t = study.ask()) {
      if (t->number == 6 || t->number == 9) {
        study.release(*t, "released: interrupted");
        continue;
      }
      evaluated.push_back(t->x);
      study.tell(*t, branin(t->x));
    }
    const auto reference = plain.trials();
    ASSERT_EQ(evaluated.size(), budget);
    for (std::size_t i = 0; i < budget; ++i) ASSERT_EQ(evaluated[i], reference[i].x) << "evaluation " << i;
    EXPECT_EQ(study.recommend(), plain.recommend());
  }
}

TEST_P(StudyTest, StaleTrialsAreFailedAndRequeuedAndLateValuesKept) {
  StudyConfig c = branin_config("stale", "random", 10);
  c.settings.heartbeat_interval_s = 0.0;  // nobody beats: trials go stale after the grace period
  c.settings.grace_period_s = 0.3;
  Study dead = Study::create(url, c, no_thread("dead"));
  Study alive = Study::load(url, "stale", no_thread("alive"));
  const auto lost = dead.ask();
  ASSERT_TRUE(lost);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  const auto again = alive.ask();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->origin, "requeued");
  EXPECT_EQ(again->x, lost->x);
  EXPECT_EQ(again->number, 1u);
  auto trials = alive.trials();
  EXPECT_EQ(trials[0].state, TrialState::Failed);
  EXPECT_TRUE(trials[0].stale);
  EXPECT_NE(trials[0].error.find("dead"), std::string::npos) << trials[0].error;
  EXPECT_EQ(trials[1].requeued_from, 0u);
  EXPECT_EQ(alive.budget_used(), 1u);  // the stale trial does not count
  // The "dead" worker comes back and tells: the value is kept as a new trial.
  dead.tell(*lost, 7.0);
  trials = alive.trials();
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[2].state, TrialState::Complete);
  EXPECT_EQ(*trials[2].value, 7.0);
  EXPECT_EQ(trials[2].requeued_from, 0u);

  // Late again, but now before any worker took the re-queued copy: the copy takes the value and is
  // not evaluated a second time.
  alive.tell(*again, 5.0);
  const auto late = dead.ask();
  ASSERT_TRUE(late);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(alive.fail_stale(), 1u);
  dead.tell(*late, 8.0);
  trials = alive.trials();
  ASSERT_EQ(trials.size(), 5u);
  EXPECT_TRUE(trials[3].stale);
  EXPECT_EQ(trials[4].state, TrialState::Complete);
  EXPECT_EQ(trials[4].requeued_from, 3u);
  EXPECT_EQ(*trials[4].value, 8.0);
  EXPECT_EQ(alive.budget_used(), 3u);
  const auto next = alive.ask();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->origin, "asked");  // not the copy again
  EXPECT_EQ(next->number, 5u);
}

TEST_P(StudyTest, HeartbeatThreadKeepsRunningTrialsAlive) {
  StudyConfig c = branin_config("beat");
  c.settings.heartbeat_interval_s = 0.05;
  c.settings.grace_period_s = 1.0;
  StudyOptions beating;
  beating.worker = "beating";
  Study a = Study::create(url, c, beating);
  Study b = Study::load(url, "beat", no_thread("b"));
  const auto held = a.ask();
  ASSERT_TRUE(held);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(b.fail_stale(), 0u);
  EXPECT_EQ(b.trials()[0].state, TrialState::Running);
  a.tell(*held, 3.0);
  EXPECT_EQ(b.trials()[0].state, TrialState::Complete);
}

// Threads of one process, each with its own handle: numbers dense and unique, nothing lost.
TEST_P(StudyTest, ConcurrentWorkersGetDistinctTrials) {
  const std::size_t budget = 60;
  Study::create(url, branin_config("conc", "random", budget));
  std::vector<std::thread> threads;
  std::mutex m;
  std::set<std::size_t> told;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      Study s = Study::load(url, "conc", no_thread("w" + std::to_string(w)));
      while (auto t = s.ask()) {
        s.tell(*t, branin(t->x));
        std::lock_guard<std::mutex> lock(m);
        EXPECT_TRUE(told.insert(t->number).second) << "trial " << t->number << " handed out twice";
      }
    });
  for (auto& t : threads) t.join();
  Study s = Study::load(url, "conc");
  const auto trials = s.trials();
  ASSERT_EQ(trials.size(), budget);
  std::set<std::vector<double>> points;
  for (std::size_t i = 0; i < budget; ++i) {
    EXPECT_EQ(trials[i].number, i);
    EXPECT_EQ(trials[i].state, TrialState::Complete);
    EXPECT_EQ(*trials[i].value, branin(trials[i].x));
    points.insert(std::vector<double>(trials[i].x.data(), trials[i].x.data() + trials[i].x.size()));
  }
  EXPECT_EQ(told.size(), budget);
  EXPECT_EQ(points.size(), budget);  // no point evaluated twice
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyTest, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(StorageUrl, ErrorsNameTheUrlAndTheCause) {
  const std::string refused = message_of([] { Storage s("postgresql://optimist@127.0.0.1:1/nowhere"); });
  EXPECT_NE(refused.find("cannot connect to PostgreSQL"), std::string::npos) << refused;
  EXPECT_NE(refused.find("127.0.0.1"), std::string::npos) << refused;  // the server's (libpq's) own message
  EXPECT_EQ(refused.find_first_of("\n\t"), std::string::npos) << refused;  // libpq's lines and tabs: one line
  const std::string secret = message_of([] { Storage s("postgresql://me:hunter2@127.0.0.1:1/db"); });
  EXPECT_EQ(secret.find("hunter2"), std::string::npos) << secret;
  const std::string folder = message_of([] { Storage s("sqlite:////nonexistent-folder/x/study.db"); });
  EXPECT_NE(folder.find("/nonexistent-folder/x/study.db"), std::string::npos) << folder;
  EXPECT_NE(folder.find("(the folder '/nonexistent-folder/x' does not exist; create it first)"), std::string::npos) << folder;
  const std::string no_file = message_of([] { Storage s("sqlite:///"); });
  EXPECT_NE(no_file.find("names no file"), std::string::npos) << no_file;
}

// A database of another program with tables named like optimist's (Optuna's `studies` and
// `trials`): CREATE TABLE IF NOT EXISTS kept theirs, and the first index failed with raw SQL
// ("no such column: asked_seq"); refused by name, and nothing of optimist's is left in it.
TEST_P(StudyTest, AnotherProgramsTablesOfTheSameNamesAreRefused) {
  {
    const auto db = study_detail::connect(url, 10.0);
    db->query("CREATE TABLE trials (trial_id INTEGER PRIMARY KEY, number INTEGER, state TEXT)");
  }
  try {
    Study::create(url, branin_config("mine", "random", 10), no_thread("w"));
    FAIL() << "created a study over another program's tables";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("holds a table 'trials' that is not optimist's"), std::string::npos) << e.what();
  }
  const auto db = study_detail::connect(url, 10.0);
  const std::string schema_version = GetParam() == "sqlite"
                                         ? "SELECT name FROM sqlite_master WHERE name = 'schema_version'"
                                         : "SELECT table_name FROM information_schema.tables WHERE table_name = 'schema_version' "
                                           "AND table_schema = current_schema()";
  EXPECT_TRUE(db->query(schema_version).empty());
}

// A database written by schema version 1 (no budget count on the study row) is upgraded when
// opened, its count computed from the trials.
TEST_P(StudyTest, VersionOneDatabaseIsMigrated) {
  {
    Study s = Study::create(url, branin_config("old", "random", 10), no_thread("w"));
    for (int k = 0; k < 3; ++k) s.tell(*s.ask(), 1.0);
    s.ask();  // running: counts too
    s.enqueue(s.space().to_user(Vector::Constant(2, 0.5)));  // waiting: does not count
  }
  {
    const auto db = study_detail::connect(url, 10.0);
    db->query("ALTER TABLE studies DROP COLUMN used");
    db->query("ALTER TABLE trials DROP COLUMN lease_until");  // version 3's (a version 1 database had neither)
    db->query("UPDATE schema_version SET version = 1");
  }
  Study again = Study::load(url, "old", no_thread("w2"));
  EXPECT_EQ(again.budget_used(), 4u);
  const auto rows = study_detail::connect(url, 10.0)->query("SELECT version FROM schema_version");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].integer(), kStudySchemaVersion);
}

// A tell that cannot be stored (here: the study was deleted under the worker) stops the worker
// with the error, and the evaluation it paid for is printed as JSON rather than lost.
// SQLite keeps writing into a deleted file's inode, which nobody reads again: the next write
// is refused instead, and the worker prints the evaluation it could not store.
TEST(StudySqlite, ADeletedDatabaseFileIsNoticedAndTheEvaluationPrinted) {
  const auto dir = optimist::testing::study_test_dir();
  const std::string url = "sqlite:///" + (dir / "deleted.db").string();
  Study study = Study::create(url, branin_config("gone"), no_thread("w"));
  ::testing::internal::CaptureStderr();
  const std::string why = message_of([&] {
    run_worker(study, [&] {
      return [&](const StudyTrial& t) {
        if (t.number == 1) std::filesystem::remove(dir / "deleted.db");
        return 1.5 + 0.0 * t.x[0];
      };
    }, WorkerOptions{});
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(why.find("was deleted, renamed or replaced"), std::string::npos) << why;
  EXPECT_NE(err.find(R"("trial":1)"), std::string::npos) << err;
  EXPECT_NE(err.find(R"("value":1.5)"), std::string::npos) << err;
}

TEST_P(StudyTest, AnEvaluationThatCannotBeStoredIsPrintedNotLost) {
  StudyConfig config = branin_config("vanishing");
  config.space.add_categorical("act", {"relu", "tanh"}).add_integer("n", 1, 9);  // printed as the user gives them
  Study study = Study::create(url, config, no_thread("w"));
  const std::string name = study.name();
  const std::string storage_url = url;
  WorkerOptions options;
  Vector evaluated;
  ::testing::internal::CaptureStderr();
  EXPECT_THROW(run_worker(study,
                          [&] {
                            return [&](const StudyTrial& t) {
                              Storage(storage_url).delete_study(name);
                              evaluated = t.x;
                              return 42.5 + 0.0 * t.x[0];
                            };
                          },
                          options),
               std::exception);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("could not store an evaluation"), std::string::npos) << err;
  EXPECT_NE(err.find(R"("study":"vanishing")"), std::string::npos) << err;
  EXPECT_NE(err.find(R"("trial":0)"), std::string::npos) << err;
  EXPECT_NE(err.find(R"("value":42.5)"), std::string::npos) << err;
  // Its x is the point in the user's form (the categorical's index and a float integer once),
  // which Study::add takes back as it is.
  const auto at = err.find("as JSON: ");
  ASSERT_NE(at, std::string::npos) << err;
  const nlohmann::json line = nlohmann::json::parse(err.substr(at + 9, err.find('\n', at) - at - 9));
  EXPECT_TRUE(line["x"][2].is_string()) << line.dump();
  EXPECT_TRUE(line["x"][3].is_number_integer()) << line.dump();
  EXPECT_EQ(config.space.point_from_json(line["x"]), evaluated);
}
