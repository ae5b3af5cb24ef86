// Trials run by hand (lab experiments): asked under a lease instead of heartbeats, told by number
// from any process, evaluations added in one all-or-nothing batch; the schema upgrade that added the
// lease (docs/studies.md, "Experiments run by hand").
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "optimist/problems/problem.hpp"
#include "optimist/study/study.hpp"
#include "study/database.hpp"
#include "study/study_backends.hpp"

using namespace optimist;
using optimist::testing::message_of;

namespace {

class StudyByHand : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { url = optimist::testing::fresh_storage_url(GetParam()); }
  std::string url;
};

constexpr double kUntilTold = std::numeric_limits<double>::infinity();

// Nobody heartbeats (interval 0): a trial held by heartbeats alone goes stale after `grace`.
StudyConfig silent_config(const std::string& name, double grace, std::size_t budget = 20) {
  const Problem p = make_problem("branin");
  StudyConfig c;
  c.name = name;
  c.space = p.space;
  c.direction = p.direction;
  c.algorithm = "random";
  c.seed = 5;
  c.budget = budget;
  c.settings.heartbeat_interval_s = 0.0;
  c.settings.grace_period_s = grace;
  return c;
}

StudyOptions as_worker(const std::string& worker) {
  StudyOptions o;
  o.worker = worker;
  o.heartbeat_thread = false;
  return o;
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

// The stale rule: a worker's silent trial is failed after the grace period; a trial asked by hand
// is not, until its lease ends (never, for one held until told). A worker does not wait for them.
TEST_P(StudyByHand, AHandAskedTrialOutlivesTheGracePeriodAWorkersDoesNot) {
  Study lab = Study::create(url, silent_config("lab", 0.3), as_worker("cli:ann@lab"));
  const Vector queued = lab.space().to_user(Vector::Constant(2, 0.25));
  lab.enqueue(queued);
  const auto forever = lab.ask(kUntilTold);  // claims the queued point: the lease applies to it too
  ASSERT_TRUE(forever);
  EXPECT_EQ(forever->number, 0u);
  EXPECT_EQ(forever->x, queued);
  ASSERT_TRUE(forever->lease_until);
  EXPECT_TRUE(std::isinf(*forever->lease_until));
  Study worker = Study::load(url, "lab", as_worker("w"));
  const auto silent = worker.ask();  // held by heartbeats, and nobody beats
  ASSERT_TRUE(silent);
  EXPECT_FALSE(silent->lease_until);
  const auto short_lease = lab.ask(2.0);
  ASSERT_TRUE(short_lease);
  ASSERT_TRUE(short_lease->lease_until);
  Study other = Study::load(url, "lab", as_worker("x"));
  EXPECT_EQ(other.running_elsewhere(), 1u);  // only the worker's trial: a leased one may run for days

  sleep_s(0.6);  // past the grace period, within the short lease
  EXPECT_EQ(other.fail_stale(), 1u);
  auto trials = other.trials();
  EXPECT_EQ(trials[0].state, TrialState::Running);
  EXPECT_EQ(trials[1].state, TrialState::Failed);
  EXPECT_TRUE(trials[1].stale);
  EXPECT_EQ(trials[2].state, TrialState::Running);
  // The next ask hands out the stale worker trial's point again, never a hand-held one.
  const auto next = other.ask();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->x, silent->x);
  EXPECT_EQ(next->origin, "requeued");

  sleep_s(1.8);  // the short lease has ended too (and its heartbeat is older than the grace)
  EXPECT_EQ(other.fail_stale(), 2u);  // the short lease and the requeued copy (nobody beats it)
  trials = other.trials();
  EXPECT_EQ(trials[0].state, TrialState::Running);  // held until told
  EXPECT_TRUE(trials[2].stale);
  EXPECT_NE(trials[2].error.find("lease"), std::string::npos) << trials[2].error;
  ASSERT_TRUE(trials[0].lease_until);
  EXPECT_TRUE(std::isinf(*trials[0].lease_until));

  // Told days later, by number, from a process that did not ask it.
  Study later = Study::load(url, "lab", as_worker("cli:bob@office"));
  later.tell(forever->number, 7.5);
  const auto told = later.storage().trial(later.record().id, 0);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->state, TrialState::Complete);
  EXPECT_EQ(told->value, 7.5);
  EXPECT_EQ(told->worker, "cli:ann@lab");  // who ran it stays recorded
}

TEST_P(StudyByHand, AskRefusesABadLease) {
  Study lab = Study::create(url, silent_config("lab", 60.0), as_worker("a"));
  for (const double bad : {0.0, -1.0, std::nan("")}) {
    const std::string why = message_of([&] { lab.ask(bad); });
    EXPECT_NE(why.find("a lease must be > 0"), std::string::npos) << why;
  }
  EXPECT_TRUE(lab.trials().empty());
}

TEST_P(StudyByHand, TellByNumberNamesWhatIsWrong) {
  Study lab = Study::create(url, silent_config("lab", 60.0), as_worker("cli:ann@lab"));
  Study other = Study::load(url, "lab", as_worker("cli:bob@office"));
  EXPECT_NE(message_of([&] { other.tell(0, 1.0); }).find("has no trial 0 (it has no trials yet)"), std::string::npos);
  const auto a = lab.ask(kUntilTold);
  const auto b = lab.ask(kUntilTold);
  ASSERT_TRUE(a && b);
  other.tell(a->number, 2.5);
  std::string why = message_of([&] { other.tell(a->number, 3.0); });
  EXPECT_NE(why.find("trial 0 is complete (value 2.5, worker 'cli:ann@lab'): it was told already"), std::string::npos) << why;
  why = message_of([&] { other.tell(7, 1.0); });
  EXPECT_NE(why.find("has no trial 7 (its trials are numbered 0 to 1)"), std::string::npos) << why;
  why = message_of([&] { other.tell(b->number, std::nan("")); });
  EXPECT_NE(why.find("trial 1: value nan is not finite"), std::string::npos) << why;
  why = message_of([&] { other.tell(b->number, -std::numeric_limits<double>::infinity()); });
  EXPECT_NE(why.find("is not finite"), std::string::npos) << why;
  other.tell_failed(b->number, "the furnace tripped");
  why = message_of([&] { other.tell(b->number, 1.0); });
  EXPECT_NE(why.find("trial 1 is failed (the furnace tripped, worker 'cli:ann@lab'): it was told already"), std::string::npos) << why;
  const std::size_t queued = lab.enqueue(lab.space().to_user(Vector::Constant(2, 0.5)));
  why = message_of([&] { other.tell(queued, 1.0); });
  EXPECT_NE(why.find("trial 2 is waiting: no one has asked it yet"), std::string::npos) << why;
  // The asker's own tell of a trial told by number is refused the same way.
  why = message_of([&] { lab.tell(*a, 4.0); });
  EXPECT_NE(why.find("it was told already"), std::string::npos) << why;
  const auto trials = lab.trials();
  EXPECT_EQ(trials[0].value, 2.5);
  EXPECT_EQ(trials[1].error, "the furnace tripped");
  EXPECT_EQ(trials[2].state, TrialState::Waiting);
}

// A trial asked by hand that will not be run (a sample cancelled before it was measured) is given
// back by number from another process: not counted against the budget, its point queued again
// (or not), and the algorithm withdraws it: the trials evaluated are, one for one, those of a study
// where it was never asked (gp-ei: told as a failure, it would get the worst value so far at the
// point it had just chosen). Also in a study that does not requeue stale trials: a trial given
// back is withdrawn there too, only a timed-out one is a failure.
TEST_P(StudyByHand, AGivenBackTrialLeavesTheStudyAsIfItWereNeverAsked) {
  const Problem p = make_problem("branin");
  const std::size_t budget = 8, cancelled = 4;
  auto config = [&](const std::string& name, bool requeue_stale) {
    StudyConfig c = silent_config(name, 60.0, budget);
    c.algorithm = "gp-ei";
    c.settings.requeue_stale = requeue_stale;
    return c;
  };
  Study plain = Study::create(url, config("plain", true), as_worker("w"));
  while (auto t = plain.ask()) plain.tell(*t, p.f(t->x));
  const auto reference = plain.trials();
  ASSERT_EQ(reference.size(), budget);
  for (const bool requeue_stale : {true, false})
    for (const bool requeue : {true, false}) {
      const std::string name = std::string("lab-") + (requeue_stale ? "r" : "n") + (requeue ? "r" : "n");
      SCOPED_TRACE(name);
      Study lab = Study::create(url, config(name, requeue_stale), as_worker("cli:ann@lab"));
      std::vector<Vector> evaluated;
      for (std::size_t k = 0; k < cancelled; ++k) {
        const auto t = lab.ask(kUntilTold);
        ASSERT_TRUE(t);
        evaluated.push_back(t->x);
        lab.tell(t->number, p.f(t->x));
      }
      const auto asked = lab.ask(kUntilTold);
      ASSERT_TRUE(asked);
      ASSERT_EQ(asked->number, cancelled);
      EXPECT_EQ(lab.budget_used(), cancelled + 1);
      Study office = Study::load(url, name, as_worker("cli:bob@office"));
      office.release(asked->number, "sample cancelled", requeue);
      auto trials = office.trials();
      EXPECT_EQ(trials[cancelled].state, TrialState::Failed);
      EXPECT_TRUE(trials[cancelled].stale);
      EXPECT_TRUE(trials[cancelled].given_back);
      EXPECT_EQ(trials[cancelled].error, "sample cancelled");
      EXPECT_EQ(trials[cancelled].worker, "cli:ann@lab");  // who asked it stays recorded
      EXPECT_EQ(office.budget_used(), cancelled);  // not counted
      ASSERT_EQ(trials.size(), cancelled + (requeue ? 2 : 1));
      if (requeue) {
        EXPECT_EQ(trials.back().state, TrialState::Waiting);
        EXPECT_EQ(trials.back().requeued_from, cancelled);
      }
      // The asker, told of it at its next ask, and a fresh process replaying the history agree.
      for (Study* s : {&lab, &office}) {
        const auto next = s == &lab ? lab.ask(kUntilTold) : office.ask();
        ASSERT_TRUE(next);
        EXPECT_EQ(next->origin, requeue && s == &lab ? "requeued" : "asked");
        if (requeue && s == &lab) {
          EXPECT_EQ(next->x, asked->x);  // its point first
        }
        evaluated.push_back(next->x);
        s->tell(*next, p.f(next->x));
      }
      Study fresh = Study::load(url, name, as_worker("w2"));
      while (auto t = fresh.ask()) {
        evaluated.push_back(t->x);
        fresh.tell(*t, p.f(t->x));
      }
      ASSERT_EQ(evaluated.size(), budget);
      for (std::size_t i = 0; i < budget; ++i) EXPECT_EQ(evaluated[i], reference[i].x) << "evaluation " << i;
      EXPECT_EQ(fresh.recommend(), plain.recommend());
    }
}

// A trial given back frees its place in the budget; one told, waiting, unknown or given back
// already is refused, naming it; many are given back in one transaction, all or none; a value told
// later for a trial given back is still kept (its queued copy takes it).
TEST_P(StudyByHand, GivingBackByNumberNamesWhatIsWrong) {
  Study lab = Study::create(url, silent_config("lab", 60.0, 4), as_worker("cli:ann@lab"));
  Study other = Study::load(url, "lab", as_worker("cli:bob@office"));
  EXPECT_NE(message_of([&] { other.release(0, "x"); }).find("has no trial 0 (it has no trials yet)"), std::string::npos);
  std::vector<StudyTrial> plate;
  for (int k = 0; k < 4; ++k) plate.push_back(*lab.ask(kUntilTold));
  EXPECT_FALSE(lab.ask(kUntilTold));  // the budget is used
  other.tell(0, 2.5);
  other.tell_failed(1, "the furnace tripped");
  std::string why = message_of([&] { other.release(0, "x"); });
  EXPECT_NE(why.find("trial 0 is complete (value 2.5, worker 'cli:ann@lab'): it was told already, so it cannot be given back"),
            std::string::npos) << why;
  why = message_of([&] { other.release(1, "x"); });
  EXPECT_NE(why.find("trial 1 is failed (the furnace tripped, worker 'cli:ann@lab'): it was told already"), std::string::npos) << why;
  why = message_of([&] { other.release(9, "x"); });
  EXPECT_NE(why.find("has no trial 9 (its trials are numbered 0 to 3)"), std::string::npos) << why;
  why = message_of([&] { other.release({2, 0}, "x"); });  // all or none
  EXPECT_NE(why.find("trial 0 is complete"), std::string::npos) << why;
  why = message_of([&] { other.release(std::vector<std::size_t>{2, 3, 9}, "x"); });  // the count before any copy
  EXPECT_NE(why.find("has no trial 9 (its trials are numbered 0 to 3)"), std::string::npos) << why;
  why = message_of([&] { other.release({2, 2}, "x"); });
  EXPECT_NE(why.find("trial 2 is given back twice in one batch"), std::string::npos) << why;
  why = message_of([&] { other.release(plate[2], "x"); });  // by the trial: only its worker's
  EXPECT_NE(why.find("trial 2 is running for worker 'cli:ann@lab', not for this worker 'cli:bob@office'"), std::string::npos) << why;
  EXPECT_EQ(other.trials()[2].state, TrialState::Running);

  other.release({2, 3}, "plate dropped", /*requeue=*/false);
  EXPECT_EQ(other.budget_used(), 2u);
  auto trials = other.trials();
  ASSERT_EQ(trials.size(), 4u);  // nothing queued
  EXPECT_TRUE(trials[2].given_back && trials[3].given_back);
  why = message_of([&] { other.release(2, "x"); });
  EXPECT_NE(why.find("trial 2 was given back (plate dropped) already: its point was not queued again"), std::string::npos) << why;
  why = message_of([&] { other.tell_failed(3, "x"); });
  EXPECT_NE(why.find("trial 3 was given back (plate dropped): a failure told now changes nothing"), std::string::npos) << why;
  const auto next = lab.ask(kUntilTold);  // its place in the budget is free again
  ASSERT_TRUE(next);
  EXPECT_EQ(next->origin, "asked");
  lab.release(*next, "", /*requeue=*/true);  // the asker's own, by the trial: queued again
  trials = other.trials();
  ASSERT_EQ(trials.size(), 6u);
  EXPECT_EQ(trials[4].error, "given back");
  EXPECT_EQ(trials[5].state, TrialState::Waiting);
  why = message_of([&] { other.release(5, "x"); });
  EXPECT_NE(why.find("trial 5 is waiting: no one has asked it yet, so there is nothing to give back"), std::string::npos) << why;
  why = message_of([&] { other.release(4, "x"); });
  EXPECT_NE(why.find("trial 4 was given back already: its point was queued again (trial 5)"), std::string::npos) << why;
  // The sample was measured after all: the value is kept, by the queued copy.
  other.tell(4, 1.75);
  trials = other.trials();
  EXPECT_EQ(trials[5].state, TrialState::Complete);
  EXPECT_EQ(trials[5].value, 1.75);
}

// A value told for a trial whose lease ended (failed as stale, its point queued again) is kept:
// the queued copy takes it, and no one runs the experiment again.
TEST_P(StudyByHand, AValueToldAfterTheLeaseEndedIsKept) {
  Study lab = Study::create(url, silent_config("lab", 0.2), as_worker("cli:ann@lab"));
  const auto t = lab.ask(0.3);
  ASSERT_TRUE(t);
  sleep_s(0.6);
  Study other = Study::load(url, "lab", as_worker("w"));
  EXPECT_EQ(other.fail_stale(), 1u);
  auto trials = other.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[1].state, TrialState::Waiting);  // the re-queued copy
  Study later = Study::load(url, "lab", as_worker("cli:ann@lab"));
  later.tell(t->number, 4.25);
  trials = later.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[1].state, TrialState::Complete);
  EXPECT_EQ(trials[1].value, 4.25);
  EXPECT_EQ(trials[1].requeued_from, 0u);
  EXPECT_EQ(later.budget_used(), 1u);
  // Told again (a script re-run): refused, not stored a second time.
  const std::string twice = message_of([&] { Study::load(url, "lab", as_worker("x")).tell(t->number, 4.25); });
  EXPECT_NE(twice.find("trial 0 is failed as stale, and its late value 4.25 was kept already (trial 1); told twice?"),
            std::string::npos) << twice;
  EXPECT_EQ(later.trials().size(), 2u);
}

TEST_P(StudyByHand, TellingManyIsAllOrNothing) {
  Study lab = Study::create(url, silent_config("lab", 60.0), as_worker("cli:ann@lab"));
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(lab.ask(kUntilTold));
  Study other = Study::load(url, "lab", as_worker("cli:bob@office"));
  std::string why = message_of([&] { other.tell({{0, 1.0, ""}, {1, std::nullopt, "spilled"}, {7, 2.0, ""}}); });
  EXPECT_NE(why.find("has no trial 7"), std::string::npos) << why;
  why = message_of([&] { other.tell({{0, 1.0, ""}, {0, 2.0, ""}}); });
  EXPECT_NE(why.find("trial 0 is told twice in one batch"), std::string::npos) << why;
  why = message_of([&] { other.tell({{0, 1.0, ""}, {1, std::nan(""), ""}}); });
  EXPECT_NE(why.find("trial 1: value nan is not finite"), std::string::npos) << why;
  for (const auto& t : other.trials()) EXPECT_EQ(t.state, TrialState::Running) << t.number;
  other.tell({{0, 1.0, ""}, {1, std::nullopt, "spilled"}, {2, -0.5, ""}});
  const auto trials = other.trials();
  EXPECT_EQ(trials[0].value, 1.0);
  EXPECT_EQ(trials[1].error, "spilled");
  EXPECT_EQ(trials[2].value, -0.5);
}

// The same history added twice (a file added again, a notebook cell run again) would count every
// experiment twice: Duplicates::Refuse (`study add`, Python's Study.add) refuses the whole batch,
// naming the evaluation and the trial. Another value at the same point, a failure, a value told
// for an asked trial, and Duplicates::Allow (the default) are added.
TEST_P(StudyByHand, AddingTheSameHistoryTwiceIsRefused) {
  Study lab = Study::create(url, silent_config("lab", 60.0, 20), as_worker("lab"));
  const Space& space = lab.space();
  const Vector a = space.to_user(Vector::Constant(2, 0.1)), b = space.to_user(Vector::Constant(2, 0.2));
  const std::vector<StudyEvaluation> past = {{a, 0.41, ""}, {b, std::nullopt, "tar"}};
  EXPECT_EQ(lab.add(past, Duplicates::Refuse), (std::vector<std::size_t>{0, 1}));
  const auto t = lab.ask();
  ASSERT_TRUE(t);
  lab.tell(*t, 0.7);  // an asked trial: never a duplicate of an added one
  try {
    lab.add({{b, 0.5, ""}, {b, std::nullopt, "tar"}, {a, 0.41, ""}}, Duplicates::Refuse);
    ADD_FAILURE() << "added twice";
  } catch (const AddedTwice& e) {
    EXPECT_EQ(e.index, 2u);
    EXPECT_EQ(e.trial, 0u);
    EXPECT_EQ(e.value, 0.41);
    EXPECT_NE(std::string(e.what()).find("evaluation 2: trial 0 was added with the same parameters and value 0.41; added "
                                         "twice? (none was added)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(lab.trials().size(), 3u);  // none of the three
  EXPECT_EQ(lab.add({{a, 0.45, ""}, {b, std::nullopt, "tar"}, {t->x, 0.7, ""}}, Duplicates::Refuse),
            (std::vector<std::size_t>{3, 4, 5}));
  // One evaluation is not numbered "evaluation 0" (Python's Study.add(x, value) adds one).
  const std::string one = message_of([&] { lab.add({{a, 0.41, ""}}, Duplicates::Refuse); });
  EXPECT_EQ(one, "study 'lab': trial 0 was added with the same parameters and value 0.41; added twice? (none was added)");
  EXPECT_EQ(lab.add({{a, 0.41, ""}}), (std::vector<std::size_t>{6}));  // allowed by default
  EXPECT_EQ(lab.add(a, 0.41), 7u);
}

// An objective's message may hold any bytes; PostgreSQL refused text that is not UTF-8, so the
// failure could not be stored. It is stored escaped, on both backends.
TEST_P(StudyByHand, AFailureMessageThatIsNotUtf8IsStoredEscaped) {
  Study lab = Study::create(url, silent_config("lab", 60.0, 5), as_worker("lab"));
  const auto t = lab.ask(kUntilTold);
  ASSERT_TRUE(t);
  lab.tell_failed(*t, "segfault in '\xff.so'\n\x1b[0m");
  const std::size_t added = lab.add_failed(lab.space().to_user(Vector::Constant(2, 0.5)), "bad \xc3 byte");
  const auto trials = lab.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].error, "segfault in '\\xff.so'\n\\x1b[0m");
  EXPECT_EQ(trials[added].error, "bad \\xc3 byte");
}

TEST_P(StudyByHand, AddingManyIsAllOrNothing) {
  Study lab = Study::create(url, silent_config("lab", 60.0, 5), as_worker("lab"));
  const Space& space = lab.space();
  std::vector<StudyEvaluation> batch = {{space.to_user(Vector::Constant(2, 0.1)), 1.0, ""},
                                        {space.to_user(Vector::Constant(2, 0.2)), std::nullopt, "contaminated"},
                                        {Vector::Constant(2, 1e6), 2.0, ""}};  // outside the bounds
  std::string why = message_of([&] { lab.add(batch); });
  EXPECT_NE(why.find("evaluation 2"), std::string::npos) << why;
  EXPECT_NE(why.find("none was added"), std::string::npos) << why;
  batch[2] = {space.to_user(Vector::Constant(2, 0.3)), std::nan(""), ""};
  why = message_of([&] { lab.add(batch); });
  EXPECT_NE(why.find("not finite"), std::string::npos) << why;
  EXPECT_TRUE(lab.trials().empty());
  why = message_of([&] { lab.add({batch[2]}); });
  EXPECT_NE(why.find("not finite"), std::string::npos) << why;
  EXPECT_EQ(why.find("evaluation 0"), std::string::npos) << why;
  batch[2].value = -3.5;
  EXPECT_EQ(lab.add(batch), (std::vector<std::size_t>{0, 1, 2}));
  const auto trials = lab.trials();
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[1].state, TrialState::Failed);
  EXPECT_EQ(trials[1].error, "contaminated");
  EXPECT_EQ(trials[2].value, -3.5);
  EXPECT_EQ(trials[2].origin, "told");
  EXPECT_EQ(lab.budget_used(), 3u);
  // The algorithm learns from them: the next asks see three finished trials and run to the budget.
  ASSERT_TRUE(lab.ask(kUntilTold));
  ASSERT_TRUE(lab.ask(kUntilTold));
  EXPECT_FALSE(lab.ask(kUntilTold));
}

// A database of schema version 2 (before leases) is refused by a reader with a message, upgraded
// by a writer, and keeps its trials; its old running trials keep the heartbeat rule.
TEST_P(StudyByHand, VersionTwoDatabaseIsUpgraded) {
  {
    Study s = Study::create(url, silent_config("old", 60.0, 10), as_worker("w"));
    s.tell(*s.ask(), 1.5);
    s.ask();  // running
  }
  {
    const auto db = study_detail::connect(url, 10.0);
    db->query("ALTER TABLE trials DROP COLUMN lease_until");
    db->query("UPDATE schema_version SET version = 2");
  }
  StudyOptions reading;
  reading.storage.read_only = true;
  const std::string refused = message_of([&] { Study::load(url, "old", reading); });
  EXPECT_NE(refused.find("schema version 2, this optimist reads version 3"), std::string::npos) << refused;
  EXPECT_NE(refused.find("upgrades it"), std::string::npos) << refused;

  Study again = Study::load(url, "old", as_worker("cli:ann@lab"));
  const auto rows = study_detail::connect(url, 10.0)->query("SELECT version FROM schema_version");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].integer(), 3);
  auto trials = again.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].value, 1.5);
  EXPECT_EQ(trials[1].state, TrialState::Running);
  EXPECT_FALSE(trials[1].lease_until);
  EXPECT_EQ(again.budget_used(), 2u);
  const auto t = again.ask(3600.0);
  ASSERT_TRUE(t);
  ASSERT_TRUE(t->lease_until);
  EXPECT_GT(*t->lease_until, again.storage().now() + 3500.0);
  again.tell(1, 2.0);  // the old running trial, told by number
  EXPECT_EQ(Study::load(url, "old", reading).trials()[1].value, 2.0);  // readable now
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyByHand, ::testing::ValuesIn(optimist::testing::study_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
