// The dashboard over a study database: the studies workers fill, read through Storage, with the
// same incremental reads as traces, on every study backend.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <optional>
#include <thread>

#include <pqxx/pqxx>

#include "dashboard/api.hpp"
#include "dashboard/storage_source.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/study/study.hpp"
#include "study/study_backends.hpp"

namespace {

using namespace optimist;
using dashboard::StorageSource;
using dashboard::TrialState;
using nlohmann::json;

class DashboardStudies : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { url = optimist::testing::fresh_storage_url(GetParam()); }
  std::string url;
};

StudyConfig branin_config(const std::string& name, const std::string& algorithm = "random") {
  const Problem p = make_problem("branin");
  StudyConfig c;
  c.name = name;
  c.space = p.space;
  c.direction = p.direction;
  c.algorithm = algorithm;
  c.seed = 3;
  c.budget = 10;
  c.f_star = p.f_star;
  c.settings.objective = {{"problem", "branin"}};
  return c;
}

Study branin_study(const std::string& url, const std::string& name, const std::string& algorithm = "random",
                   std::optional<StudyConfig> config = std::nullopt) {
  StudyOptions o;
  o.worker = "w1";
  o.heartbeat_thread = false;
  return Study::create(url, config.value_or(branin_config(name, algorithm)), o);
}

TEST_P(DashboardStudies, TrialsAsAWorkerAsksAndTells) {
  Study study = branin_study(url, "branin-study");
  const Problem p = make_problem("branin");
  StorageSource source(url);
  auto list = source.studies();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, "branin-study");
  EXPECT_EQ(list[0].kind, "study");
  EXPECT_EQ(list[0].algorithm, "random");
  EXPECT_EQ(list[0].problem, "branin");
  EXPECT_EQ(list[0].budget, 10u);
  EXPECT_EQ(list[0].counts.total(), 0u);

  const auto t0 = study.ask();
  const auto t1 = study.ask();
  const double y0 = p.f(t0->x);
  study.tell(*t0, y0);
  auto page = source.trials("branin-study", {std::nullopt, {}, 100});
  ASSERT_EQ(page.trials.size(), 2u);
  const auto& first = page.trials[0];
  EXPECT_EQ(first.number, 0u);
  EXPECT_EQ(first.state, TrialState::Complete);
  EXPECT_DOUBLE_EQ(*first.value, y0);
  EXPECT_DOUBLE_EQ(*first.regret, y0 - *p.f_star);
  EXPECT_EQ(first.params, p.space.point_to_json(t0->x));
  EXPECT_EQ(first.worker, "w1");
  EXPECT_TRUE(first.started_at && first.completed_at);
  EXPECT_EQ(page.trials[1].state, TrialState::Running);
  EXPECT_TRUE(page.trials[1].heartbeat_at);
  EXPECT_FALSE(page.trials[1].value);
  EXPECT_EQ(page.summary.counts.complete, 1u);
  EXPECT_EQ(page.summary.counts.running, 1u);
  EXPECT_DOUBLE_EQ(*page.summary.best_value, y0);
  EXPECT_EQ(*page.summary.best_number, 0u);

  // The page holds trial 0 as settled: it asks after it, and gets trial 1 again once it ends.
  page = source.trials("branin-study", {0, {}, 100});
  ASSERT_EQ(page.trials.size(), 1u);
  EXPECT_EQ(page.trials[0].state, TrialState::Running);
  study.tell(*t1, p.f(t1->x));
  const auto t2 = study.ask();
  study.tell_failed(*t2, "boom");
  page = source.trials("branin-study", {0, {}, 100});
  ASSERT_EQ(page.trials.size(), 2u);
  EXPECT_EQ(page.trials[0].state, TrialState::Complete);
  EXPECT_EQ(page.trials[1].state, TrialState::Failed);
  EXPECT_EQ(page.trials[1].error, "boom");
  page = source.trials("branin-study", {std::nullopt, {}, 2});
  EXPECT_EQ(page.trials.size(), 2u);
  EXPECT_TRUE(page.more);

  // The list agrees with the storage's own counts and best value.
  list = source.studies();
  EXPECT_EQ(list[0].counts.complete, 2u);
  EXPECT_EQ(list[0].counts.failed, 1u);
  EXPECT_DOUBLE_EQ(*list[0].best_value, std::min(y0, p.f(t1->x)));
  EXPECT_EQ(*list[0].best_number, y0 <= p.f(t1->x) ? 0u : 1u);
  EXPECT_FALSE(list[0].finished);
  // A study the page never opened names its best trial too (it was null next to a best value).
  Study other = branin_study(url, "unopened");
  const auto u0 = other.ask(), u1 = other.ask();
  other.tell(*u0, 5.0);
  other.tell(*u1, 2.0);
  list = source.studies();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].name, "unopened");
  EXPECT_EQ(*list[1].best_number, 1u);

  const auto detail = source.study("branin-study");
  EXPECT_EQ(detail.space.at("parameters")[0].at("name"), "x1");
  EXPECT_EQ(detail.options.at("name"), "random");
  EXPECT_EQ(detail.extra.at("seed"), 3);
  try {
    source.study("other");
    FAIL() << "no NotFound";
  } catch (const dashboard::NotFound& e) {
    EXPECT_NE(std::string(e.what()).find("'branin-study'"), std::string::npos) << e.what();
  }
}

// A trial keeps the optimizer's diagnostics behind its suggestion (here gp-ei's fitted GP), so
// the page's diagnostics panel works over studies as over traces; queued trials have none.
TEST_P(DashboardStudies, AskedTrialsCarryTheOptimizersDiagnostics) {
  Study study = branin_study(url, "gp-study", "gp-ei");
  const Problem p = make_problem("branin");
  study.enqueue(p.space.to_user(Vector::Constant(2, 0.5)));
  while (auto t = study.ask()) study.tell(*t, p.f(t->x));
  StorageSource source(url);
  const auto page = source.trials("gp-study", {std::nullopt, {}, 100});
  ASSERT_EQ(page.trials.size(), 10u);
  EXPECT_TRUE(page.trials[0].diagnostics.empty());  // the queued point: no optimizer behind it
  std::size_t with_gp = 0;  // the initial design's trials come before any GP fit
  for (std::size_t i = 1; i < page.trials.size(); ++i) {
    const auto& d = page.trials[i].diagnostics;
    SCOPED_TRACE(d.dump());
    if (d.empty()) {
      EXPECT_EQ(with_gp, 0u) << "trial " << i << " after a fitted one has no diagnostics";
      continue;
    }
    ++with_gp;
    EXPECT_GT(d.at("gp_lengthscale_geomean").get<double>(), 0.0);
  }
  EXPECT_GE(with_gp, 3u);
  // The same through the storage itself, as `optimist study export` reads it.
  const auto trials = study.trials();
  EXPECT_EQ(trials[9].user_attrs.at("diagnostics"), page.trials[9].diagnostics);
}

TEST_P(DashboardStudies, ApiOverAStudyUntilItsBudgetIsUsed) {
  Study study = branin_study(url, "s");
  const Problem p = make_problem("branin");
  StorageSource source(url);
  dashboard::Api api(source, {});
  while (auto t = study.ask()) study.tell(*t, p.f(t->x));
  auto r = api.get("/api/trials", {{"study", "s"}, {"after", "7"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json b = json::parse(r.body);
  ASSERT_EQ(b.at("trials").size(), 2u);
  EXPECT_EQ(b.at("trials")[0].at("number"), 8);
  EXPECT_EQ(b.at("study").at("n_trials"), 10);
  EXPECT_EQ(b.at("study").at("finished"), true);
  r = api.get("/api/studies", {});
  EXPECT_EQ(json::parse(r.body).at("studies")[0].at("finished"), true);
}

// A deterministic study over a finite space ends when every point was evaluated (its workers stop),
// before its budget; it was shown as unfinished for good.
TEST_P(DashboardStudies, AFiniteSpaceUsedUpFinishesTheStudy) {
  StudyConfig c;
  c.name = "finite";
  c.space.add_integer("n", 1, 2).add_categorical("c", {"a", "b"});
  c.algorithm = "random";
  c.budget = 12;
  StudyOptions o;
  o.heartbeat_thread = false;
  Study study = Study::create(url, c, o);
  StorageSource source(url);
  std::size_t told = 0;
  while (auto t = study.ask()) {
    EXPECT_FALSE(source.study("finite").summary.finished);
    study.tell(*t, t->x[0] + t->x[1]);
    ++told;
  }
  EXPECT_EQ(told, 4u);
  EXPECT_TRUE(source.study("finite").summary.finished);
  EXPECT_TRUE(source.studies()[0].finished);
}

TEST_P(DashboardStudies, StaleTrialsAreMarked) {
  const Problem p = make_problem("branin");
  StudyConfig c;
  c.name = "s";
  c.space = p.space;
  c.direction = p.direction;
  c.settings.heartbeat_interval_s = 0.005;
  c.settings.grace_period_s = 0.01;
  c.settings.requeue_stale = false;
  StudyOptions o;
  o.worker = "vanished";
  o.heartbeat_thread = false;
  Study study = Study::create(url, c, o);
  const auto t = study.ask();
  // The study layer's grace period is wall time: wait it out, then let it fail the trial.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(study.fail_stale(), 1u);
  StorageSource source(url);
  const auto page = source.trials("s", {std::nullopt, {}, 10});
  ASSERT_EQ(page.trials.size(), 1u);
  EXPECT_EQ(page.trials[0].state, TrialState::Failed);
  EXPECT_TRUE(page.trials[0].stale);
  EXPECT_EQ(page.trials[0].error.rfind("stale:", 0), 0u) << page.trials[0].error;
  EXPECT_EQ(dashboard::trial_json(page.trials[0]).at("stale"), true);
  EXPECT_FALSE(dashboard::trial_json(page.trials[0]).contains("given_back"));
}

// A trial given back by hand (it will not be run) is marked as such, not as a silent worker's.
TEST_P(DashboardStudies, AGivenBackTrialIsMarked) {
  Study study = branin_study(url, "g");
  const auto t = study.ask();
  ASSERT_TRUE(t);
  study.release(t->number, "sample contaminated");
  StorageSource source(url);
  const auto page = source.trials("g", {std::nullopt, {}, 10});
  ASSERT_GE(page.trials.size(), 1u);
  EXPECT_TRUE(page.trials[0].stale);
  EXPECT_TRUE(page.trials[0].given_back);
  EXPECT_EQ(page.trials[0].error, "sample contaminated");
  EXPECT_EQ(dashboard::trial_json(page.trials[0]).at("given_back"), true);
}

// A trial asked by hand (study ask: a lease, no heartbeat) is shown running with its worker and no
// heartbeat age, which the page would flag as stale once past the grace period.
TEST_P(DashboardStudies, AHandHeldTrialShowsNoHeartbeatAge) {
  StudyConfig c = branin_config("lab");
  c.settings.heartbeat_interval_s = 0.005;
  c.settings.grace_period_s = 0.01;
  Study study = branin_study(url, "lab", "random", c);
  const auto held = study.ask(std::numeric_limits<double>::infinity());
  const auto silent = study.ask();
  ASSERT_TRUE(held && silent);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the grace period
  StorageSource source(url);
  const auto page = source.trials("lab", {std::nullopt, {}, 10});
  ASSERT_EQ(page.trials.size(), 2u);
  EXPECT_EQ(page.trials[0].state, TrialState::Running);
  EXPECT_EQ(page.trials[0].worker, "w1");
  EXPECT_FALSE(dashboard::trial_json(page.trials[0]).contains("heartbeat_at"));
  EXPECT_TRUE(dashboard::trial_json(page.trials[1]).contains("heartbeat_at"));  // a worker's: its age is shown
}

// A trial held open (asked by hand, or a hung evaluation) while workers add thousands after it: the
// page asks for the trials after the last it holds and for its open ones by number, and the source
// reads those alone from the database (stop 67's probe: every poll read, converted and sent the
// 20,000 trials after a held one again, 15 MB and ~190 ms each).
TEST_P(DashboardStudies, AHeldTrialDoesNotMakeEveryLaterTrialReadAndSentAgain) {
  StudyConfig c = branin_config("lab");
  c.budget = 400;
  Study study = branin_study(url, "lab", "random", c);
  const Problem p = make_problem("branin");
  const auto held = study.ask(std::numeric_limits<double>::infinity());
  ASSERT_TRUE(held);
  for (int k = 0; k < 300; ++k) {
    const auto t = study.ask();
    study.tell(*t, p.f(t->x));
  }
  StorageSource source(url);
  auto page = source.trials("lab", {std::nullopt, {}, 1000});
  ASSERT_EQ(page.trials.size(), 301u);
  const std::size_t first_read = source.records_read();
  EXPECT_EQ(first_read, 301u + 1);  // read ahead when the source opened, then the held trial again
  // Polls while nothing changes: the held trial alone, read and sent again.
  for (int poll = 0; poll < 3; ++poll) {
    page = source.trials("lab", {300, {0}, 1000});
    ASSERT_EQ(page.trials.size(), 1u);
    EXPECT_EQ(page.trials[0].number, 0u);
    EXPECT_EQ(page.trials[0].state, TrialState::Running);
    EXPECT_EQ(page.summary.counts.complete, 300u);
    EXPECT_EQ(page.summary.counts.running, 1u);
  }
  EXPECT_EQ(source.records_read(), first_read + 3);
  // The held trial is told and a new one arrives: both come, nothing else.
  study.tell(*held, p.f(held->x));
  const auto next = study.ask();
  page = source.trials("lab", {300, {0}, 1000});
  ASSERT_EQ(page.trials.size(), 2u);
  EXPECT_EQ(page.trials[0].number, 0u);
  EXPECT_EQ(page.trials[0].state, TrialState::Complete);
  EXPECT_EQ(page.trials[1].number, 301u);
  EXPECT_EQ(page.trials[1].state, TrialState::Running);
  EXPECT_EQ(page.summary.counts.complete, 301u);
  EXPECT_EQ(source.records_read(), first_read + 3 + 2);
  // A page without `include` (an older page) still gets everything after `after`, and a fresh
  // page everything, with the summary's best value over all.
  page = source.trials("lab", {250, {}, 1000});
  EXPECT_EQ(page.trials.size(), 51u);
  page = source.trials("lab", {std::nullopt, {}, 1000});
  ASSERT_EQ(page.trials.size(), 302u);
  double best = std::numeric_limits<double>::infinity();
  for (const auto& t : page.trials)
    if (t.value) best = std::min(best, *t.value);
  EXPECT_DOUBLE_EQ(*page.summary.best_value, best);
  // Paging: the included trials come first and do not count against the limit.
  study.tell(*next, p.f(next->x));
  const auto open = study.ask();
  ASSERT_TRUE(open);
  page = source.trials("lab", {301, {0, 301}, 1});
  ASSERT_EQ(page.trials.size(), 3u);
  EXPECT_EQ(page.trials[0].number, 0u);
  EXPECT_EQ(page.trials[1].number, 301u);
  EXPECT_EQ(page.trials[2].number, 302u);
  EXPECT_FALSE(page.more);
  // A number after `after` is one of the later trials, not included twice; one that does not
  // exist is left out.
  page = source.trials("lab", {300, {302, 9999}, 1});
  ASSERT_EQ(page.trials.size(), 1u);
  EXPECT_EQ(page.trials[0].number, 301u);
  EXPECT_TRUE(page.more);
}

// The list is kept while nothing is committed (SQLite's data_version): every commit of another
// connection shows at the next read.
TEST_P(DashboardStudies, TheStudyListFollowsEveryCommit) {
  Study first = branin_study(url, "first");
  StorageSource source(url);
  ASSERT_EQ(source.studies().size(), 1u);
  ASSERT_EQ(source.studies().size(), 1u);
  Study second = branin_study(url, "second");
  auto list = source.studies();
  ASSERT_EQ(list.size(), 2u);
  const auto t = second.ask();
  list = source.studies();
  EXPECT_EQ(list[1].counts.running, 1u);
  second.tell(*t, 4.5);
  list = source.studies();
  EXPECT_EQ(list[1].counts.complete, 1u);
  EXPECT_DOUBLE_EQ(*list[1].best_value, 4.5);
  Storage(url).delete_study("first");
  list = source.studies();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, "second");
}

// ... and its lease end instead (docs/dashboard.md): the time a leased trial is held until, or that
// it is held until told; a worker's trial and a told one have neither.
TEST_P(DashboardStudies, AHandHeldTrialShowsItsLeaseEnd) {
  Study study = branin_study(url, "lab");
  const auto forever = study.ask(std::numeric_limits<double>::infinity());
  const double now = study.storage().now();
  const auto leased = study.ask(3600.0);
  const auto silent = study.ask();
  ASSERT_TRUE(forever && leased && silent);
  StorageSource source(url);
  auto page = source.trials("lab", {std::nullopt, {}, 10});
  ASSERT_EQ(page.trials.size(), 3u);
  const json held = dashboard::trial_json(page.trials[0]), until = dashboard::trial_json(page.trials[1]),
             worker = dashboard::trial_json(page.trials[2]);
  EXPECT_EQ(held.value("held_until_told", false), true) << held;
  EXPECT_FALSE(held.contains("lease_until")) << held;
  ASSERT_TRUE(until.contains("lease_until")) << until;
  EXPECT_NEAR(until.at("lease_until").get<double>(), now + 3600.0, 30.0) << until;
  EXPECT_FALSE(until.contains("held_until_told")) << until;
  EXPECT_FALSE(worker.contains("lease_until") || worker.contains("held_until_told")) << worker;
  study.tell(*leased, 1.0);  // told: held no more
  page = StorageSource(url).trials("lab", {std::nullopt, {}, 10});
  ASSERT_EQ(page.trials.size(), 3u);
  EXPECT_FALSE(dashboard::trial_json(page.trials[1]).contains("lease_until"));
  // A lease shorter than the grace period holds the trial for the grace period (the stale rule's
  // heartbeat + grace): the lease end shown is that, not the lease asked for, which the page would
  // call ended while the next ask does not fail the trial (stop 63's probe).
  const double grace = study.record().settings.grace_period_s;
  ASSERT_GE(grace, 30.0);
  const double asked_at = study.storage().now();
  const auto brief = study.ask(1.0);
  ASSERT_TRUE(brief);
  page = StorageSource(url).trials("lab", {std::nullopt, {}, 10});
  ASSERT_EQ(page.trials.size(), 4u);
  const json shown = dashboard::trial_json(page.trials[3]);
  ASSERT_TRUE(shown.contains("lease_until")) << shown;
  EXPECT_NEAR(shown.at("lease_until").get<double>(), asked_at + grace, 5.0) << shown;
  const TrialRecord record = Storage(url).trials(study.record().id).at(3);
  EXPECT_NEAR(*record.lease_until, asked_at + 1.0, 5.0);  // stored as asked: the stale rule adds the grace
  EXPECT_EQ(record.held_until(grace), std::max(*record.lease_until, *record.heartbeat + grace));
}

// A study deleted and created again under its name was served from the old one's cache (SQLite
// gave the new study the deleted one's id).
TEST_P(DashboardStudies, AStudyDeletedAndCreatedAgainIsReadAfresh) {
  {
    Study old = branin_study(url, "again");
    for (int k = 0; k < 3; ++k) {
      const auto t = old.ask();
      old.tell(*t, 100.0 + k);
    }
  }
  StorageSource source(url);
  const auto before = source.trials("again", {std::nullopt, {}, 100});
  ASSERT_EQ(before.trials.size(), 3u);
  Storage(url).delete_study("again");
  Study fresh = branin_study(url, "again");
  const auto t = fresh.ask();
  fresh.tell(*t, 7.0);
  const auto page = source.trials("again", {std::nullopt, {}, 100});
  ASSERT_EQ(page.trials.size(), 1u);
  EXPECT_EQ(*page.trials[0].value, 7.0);
  EXPECT_EQ(page.summary.counts.total(), 1u);
  EXPECT_EQ(*page.summary.best_value, 7.0);
  EXPECT_EQ(*source.study("again").summary.best_value, 7.0);
  // The page holding the old study's trials sees a new generation, and drops them (asking only
  // after its last trial, it got nothing and kept 3 trials of a study that has 1).
  EXPECT_NE(page.summary.generation, before.summary.generation);
  EXPECT_EQ(source.trials("again", {0, {}, 100}).summary.generation, page.summary.generation);
}

// A noisy benchmark study's regret came from the noisy value (negative below f*); `study export`
// takes it from the noise-free f.
TEST_P(DashboardStudies, ANoisyProblemsRegretIsThatOfItsNoiseFreeValue) {
  const Problem p = make_problem("branin");
  StudyConfig c = branin_config("noisy");
  c.settings.objective["noise"] = 5.0;
  Study study = branin_study(url, "noisy", "random", c);
  const auto t = study.ask();
  study.tell(*t, *p.f_star - 3.0);  // the noise took it below f*
  StorageSource source(url);
  const auto page = source.trials("noisy", {std::nullopt, {}, 100});
  ASSERT_EQ(page.trials.size(), 1u);
  EXPECT_DOUBLE_EQ(*page.trials[0].regret, p.f(t->x) - *p.f_star);
  EXPECT_GT(*page.trials[0].regret, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, DashboardStudies, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const auto& info) { return info.param; });

TEST(DashboardStorage, NeverCreatesADatabase) {
  const auto dir = optimist::testing::study_test_dir();
  const auto missing = dir / "missing.db";
  try {
    StorageSource source("sqlite:///" + missing.string());
    FAIL() << "opened a missing database";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(missing));
  std::filesystem::remove_all(dir);
}

// rsync and scp replace a file by writing a new one and renaming it over the old: the dashboard
// kept reading the old inode (its studies, "live") for ever, and after a delete too (stop 67's probe).
TEST(DashboardStorage, ADatabaseFileReplacedOrDeletedWhileServedIsFollowed) {
  const auto dir = optimist::testing::study_test_dir();
  const auto served = dir / "s.db", fresh = dir / "fresh.db";
  branin_study("sqlite:///" + served.string(), "old-study");
  branin_study("sqlite:///" + fresh.string(), "new-study");
  StorageSource source("sqlite:///" + served.string());
  ASSERT_EQ(source.studies().size(), 1u);
  EXPECT_EQ(source.studies()[0].id, "old-study");
  std::filesystem::rename(fresh, served);
  auto list = source.studies();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, "new-study");
  EXPECT_EQ(source.study("new-study").summary.budget, 10u);
  const auto kept = dir / "kept.db";
  std::filesystem::rename(served, kept);
  try {
    (void)source.studies();
    FAIL() << "read a database file that is no longer there";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("was deleted or renamed while it was read"), std::string::npos) << e.what();
  }
  std::filesystem::rename(kept, served);  // back: read again
  list = source.studies();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, "new-study");
  std::filesystem::remove_all(dir);
}

TEST(DashboardStorage, PasswordsNeverShown) {
  EXPECT_EQ(dashboard::redact_url("postgresql://bob:s3cret@db.lan:5432/studies"), "postgresql://bob:***@db.lan:5432/studies");
  EXPECT_EQ(dashboard::redact_url("postgresql://bob@db.lan/studies"), "postgresql://bob@db.lan/studies");
  EXPECT_EQ(dashboard::redact_url("sqlite:///tmp/a@b:c.db"), "sqlite:///tmp/a@b:c.db");
}

}  // namespace

// The reading side issues no statement that writes: a PostgreSQL role granted only SELECT can
// list, show and serve studies (it could not before: the schema check created tables).
TEST(DashboardStoragePostgres, ASelectOnlyRoleReads) {
  const std::string url = optimist::testing::fresh_storage_url("postgresql");
  {
    Study study = branin_study(url, "read-me");
    const auto t = study.ask();
    study.tell(*t, 3.5);
  }
  const std::string role = "viewer" + std::to_string(::getpid());
  const auto at = url.find("optimist@");
  ASSERT_NE(at, std::string::npos) << url;
  const std::string viewer = url.substr(0, at) + role + url.substr(at + 8);
  const std::string database = url.substr(url.rfind('/') + 1);
  {
    pqxx::connection admin(url);
    pqxx::nontransaction tx(admin);
    tx.exec("CREATE ROLE " + tx.quote_name(role) + " LOGIN");
    tx.exec("GRANT CONNECT ON DATABASE " + tx.quote_name(database) + " TO " + tx.quote_name(role));
    tx.exec("GRANT USAGE ON SCHEMA public TO " + tx.quote_name(role));
    tx.exec("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + tx.quote_name(role));
  }
  {
    StorageOptions reading;
    reading.read_only = true;
    Storage storage(viewer, reading);
    ASSERT_EQ(storage.list_studies().size(), 1u);
    StorageSource source(viewer);
    const auto page = source.trials("read-me", {std::nullopt, {}, 10});
    ASSERT_EQ(page.trials.size(), 1u);
    EXPECT_EQ(*page.trials[0].value, 3.5);
    // A writer as this role is refused by the server, as it should be, saying why (it named the
    // prepared statement, "in: s2", and exited 1).
    try {
      Study::load(viewer, "read-me").ask();
      ADD_FAILURE() << "a SELECT-only role asked a trial";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("permission denied"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("the role in the URL lacks a privilege"), std::string::npos) << e.what();
    }
  }
  // A role that may not read the tables is told so, not that the database holds no studies.
  const std::string outsider_role = "outsider" + std::to_string(::getpid());
  const std::string outsider = url.substr(0, at) + outsider_role + url.substr(at + 8);
  {
    pqxx::connection admin(url);
    pqxx::nontransaction tx(admin);
    tx.exec("CREATE ROLE " + tx.quote_name(outsider_role) + " LOGIN");
    tx.exec("GRANT CONNECT ON DATABASE " + tx.quote_name(database) + " TO " + tx.quote_name(outsider_role));
  }
  try {
    StorageOptions reading;
    reading.read_only = true;
    Storage storage(outsider, reading);
    ADD_FAILURE() << "a role without SELECT read the studies";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("permission denied"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("holds no optimist studies"), std::string::npos) << e.what();
  }
  pqxx::connection admin(url);
  pqxx::nontransaction tx(admin);
  for (const std::string& r : {role, outsider_role}) {
    tx.exec("DROP OWNED BY " + tx.quote_name(r));
    tx.exec("DROP ROLE " + tx.quote_name(r));
  }
}

// A role that reads and writes the tables but may not create any (PostgreSQL 15's default for a
// new role: PUBLIC lost CREATE on the public schema) runs workers and creates studies once the
// schema exists: every writing command failed with "permission denied for schema public" (stop
// 68's probe), since the schema check ran CREATE TABLE IF NOT EXISTS each time.
TEST(StudyPostgres, ARoleThatOnlyReadsAndWritesTheTablesRunsWorkers) {
  const std::string url = optimist::testing::fresh_storage_url("postgresql");
  (void)branin_study(url, "first");  // the schema, created by its owner
  const std::string role = "writer" + std::to_string(::getpid());
  const auto at = url.find("optimist@");
  ASSERT_NE(at, std::string::npos) << url;
  const std::string writer = url.substr(0, at) + role + url.substr(at + 8);
  const std::string database = url.substr(url.rfind('/') + 1);
  {
    pqxx::connection admin(url);
    pqxx::nontransaction tx(admin);
    tx.exec("CREATE ROLE " + tx.quote_name(role) + " LOGIN");
    tx.exec("GRANT CONNECT ON DATABASE " + tx.quote_name(database) + " TO " + tx.quote_name(role));
    tx.exec("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    tx.exec("GRANT USAGE ON SCHEMA public TO " + tx.quote_name(role));
    tx.exec("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + tx.quote_name(role));
    tx.exec("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + tx.quote_name(role));
  }
  {
    Study study = Study::load(writer, "first");
    const auto t = study.ask();
    ASSERT_TRUE(t);
    study.tell(*t, 2.5);
    Study second = branin_study(writer, "second");
    const auto u = second.ask();
    ASSERT_TRUE(u);
    second.tell(*u, 1.5);
  }
  EXPECT_EQ(*Study::load(url, "first").trials().at(0).value, 2.5);
  EXPECT_EQ(*Study::load(url, "second").trials().at(0).value, 1.5);
  pqxx::connection admin(url);
  pqxx::nontransaction tx(admin);
  tx.exec("DROP OWNED BY " + tx.quote_name(role));
  tx.exec("DROP ROLE " + tx.quote_name(role));
}
