// The driver's compact EvaluationLog (core/driver.hpp), made for tree searches of 10^6 cheap
// evaluations: every field of every record reads back as it was, failures keep their message,
// and diagnostics are computed only when asked for (docs/tree-search.md, "Measured").
#include <gtest/gtest.h>

#include <stdexcept>

#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"

using namespace optimist;

namespace {

// An optimizer whose diagnostics count the calls, to see when the driver asks for them.
class CountingOptimizer : public Optimizer {
 public:
  CountingOptimizer() : Optimizer("counting", Space::box(2, -1, 1), Direction::Minimize, RunContext{}) {}
  nlohmann::json diagnostics() const override {
    ++calls;
    if (history().size() % 2) return nlohmann::json::object();  // empty on odd counts
    return {{"told", history().size()}};
  }
  mutable int calls = 0;

 protected:
  std::vector<Vector> propose(std::size_t) override {
    Vector u(2);
    u << 0.25 * static_cast<double>(history().size() % 4), 0.5;
    return {u};
  }
};

Objective failing_sphere() {
  Objective o;
  int calls = 0;
  o.function = [calls](const Vector& x) mutable -> double {
    if (++calls % 3 == 0) throw std::runtime_error("call " + std::to_string(calls) + " failed");
    return x.squaredNorm();
  };
  o.direction = Direction::Minimize;
  o.optimum = 0.0;
  return o;
}

}  // namespace

TEST(TreeDriverLog, RecordsReadBackExactlyAndFailuresKeepTheirMessage) {
  auto opt = make_optimizer({{"name", "sequool"}}, Space::box(2, -1, 1), Direction::Minimize, RunContext{.horizon = 30});
  RunOptions ro;
  ro.budget = 30;
  ro.on_failure = FailurePolicy::MarkFailed;
  std::vector<EvaluationRecord> seen;  // what the progress callback saw, as it happened
  ro.on_progress = [&](const Progress& p) { seen.push_back(*p.last); };
  const RunSummary s = optimize(*opt, failing_sphere(), ro);
  ASSERT_EQ(s.evaluations.size(), 30u);
  ASSERT_EQ(seen.size(), 30u);
  EXPECT_EQ(s.n_failed, 10u);
  std::size_t k = 0;
  for (const EvaluationRecord& r : s.evaluations) {
    const EvaluationRecord& e = seen[k];
    EXPECT_EQ(r.i, k + 1);
    EXPECT_EQ(r.x, e.x);
    EXPECT_EQ(r.x, opt->history()[k].trial.x);
    EXPECT_EQ(r.y, e.y);
    EXPECT_EQ(r.f, e.f);
    EXPECT_EQ(r.regret, e.regret);
    EXPECT_EQ(r.cum_regret, e.cum_regret);
    EXPECT_EQ(r.best_f, e.best_f);
    EXPECT_EQ(r.suggest_s, e.suggest_s);
    EXPECT_EQ(r.eval_s, e.eval_s);
    EXPECT_EQ(r.failed, (k + 1) % 3 == 0);
    if (!r.failed) {
      EXPECT_TRUE(r.error.empty()) << r.error;
    }
    if (r.failed) {
      EXPECT_NE(r.error.find("call " + std::to_string(k + 1) + " failed"), std::string::npos) << r.error;
      EXPECT_FALSE(r.y);
    }
    EXPECT_TRUE(r.diagnostics.is_null());  // no trace, not asked for
    EXPECT_EQ(s.evaluations.failed(k), r.failed);
    EXPECT_EQ(s.evaluations.y(k), r.y);
    EXPECT_TRUE(s.evaluations.x_equals(k, r.x));
    ++k;
  }
  EXPECT_EQ(s.evaluations.back().i, 30u);
  EXPECT_THROW(s.evaluations[30], std::out_of_range);
}

TEST(TreeDriverLog, DiagnosticsOnlyWhenCollected) {
  Objective o;
  o.function = [](const Vector& x) { return x.squaredNorm(); };
  o.direction = Direction::Minimize;
  {
    CountingOptimizer opt;
    RunOptions ro;
    ro.budget = 6;
    const RunSummary s = optimize(opt, o, ro);
    EXPECT_EQ(opt.calls, 0);
    EXPECT_TRUE(s.evaluations[0].diagnostics.is_null());
  }
  CountingOptimizer opt;
  RunOptions ro;
  ro.budget = 6;
  ro.collect_diagnostics = true;
  const RunSummary s = optimize(opt, o, ro);
  EXPECT_EQ(opt.calls, 6);
  for (std::size_t k = 0; k < 6; ++k) {
    const nlohmann::json d = s.evaluations[k].diagnostics;
    ASSERT_TRUE(d.is_object()) << k;
    if ((k + 1) % 2) {
      EXPECT_TRUE(d.empty()) << d.dump();
    } else {
      EXPECT_EQ(d.at("told").get<std::size_t>(), k + 1);
    }
  }
}
