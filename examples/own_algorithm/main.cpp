// A researcher's own algorithm, out of tree: a (1+1)-evolution strategy with the 1/5th success
// rule (Rechenberg 1973) and restarts, written against optimist's public headers, registered by
// name, then compared with random search (add gp-ei, turbo, auto, ... to the list) on built-in
// problems by the same sweep runner, statistics and trace format as `optimist bench`
// (docs/architecture.md, "Your own algorithm, out of tree"). Exit status 1 if a check fails (run by
// ctest as example_own_algorithm).
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <unistd.h>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/experiment/runner.hpp"
#include "optimist/experiment/summary.hpp"
#include "optimist/experiment/sweep.hpp"

namespace {

using optimist::Vector;

struct EsOptions {
  double sigma0 = 0.2;     // the first step size, in unit-cube coordinates
  double min_sigma = 1e-4; // below it: a restart from a uniform point
};

class OnePlusOneEs : public optimist::Optimizer {
 public:
  OnePlusOneEs(const optimist::Space& space, optimist::Direction direction, EsOptions options, const optimist::RunContext& context)
      : Optimizer("one-plus-one-es", space, direction, context), options_(options), sigma_(options.sigma0) {}

  // Per-evaluation diagnostics: columns of the trace, shown by the dashboard.
  nlohmann::json diagnostics() const override { return {{"sigma", sigma_}, {"restarts", restarts_}}; }

 protected:
  // Unit-cube points; randomness only from rng_for_ask(), so a run is a function of its seed and
  // of the told values (a resumed run asks what the uninterrupted one asked).
  std::vector<Vector> propose(std::size_t) override {
    optimist::Rng rng = rng_for_ask();
    const auto d = static_cast<Eigen::Index>(space().dim());
    if (!parent_) return {rng.uniform_vector(d)};
    Vector child = *parent_ + sigma_ * rng.normal_vector(d);
    for (Eigen::Index i = 0; i < d; ++i) {  // reflected into [0, 1]
      double& c = child[i];
      c = std::fmod(std::abs(c), 2.0);
      if (c > 1.0) c = 2.0 - c;
    }
    return {child};
  }

  // y is the value to maximize, whatever the run's direction.
  void observe(const optimist::Observation& obs, double y) override {
    if (!parent_ || y > parent_value_) {
      if (parent_) sigma_ *= 1.5;  // a success: wider steps
      parent_ = obs.trial.unit;
      parent_value_ = y;
    } else {
      sigma_ *= std::pow(1.5, -0.25);  // four failures undo one success: a 1/5 success rate holds sigma
    }
    if (sigma_ < options_.min_sigma) {
      parent_.reset();
      sigma_ = options_.sigma0;
      ++restarts_;
    }
  }

 private:
  EsOptions options_;
  std::optional<Vector> parent_;
  double parent_value_ = 0.0;
  double sigma_;
  int restarts_ = 0;
};

optimist::AlgorithmInfo one_plus_one_es_info() {
  optimist::AlgorithmInfo info;
  info.name = "one-plus-one-es";
  info.family = "baseline";
  info.summary = "(1+1)-evolution strategy, 1/5th success rule, restarts (an out-of-tree example)";
  info.options = {{"sigma0", 0.2, "the first step size, in unit-cube coordinates (0, 1]"},
                  {"min_sigma", 1e-4, "a step size below it restarts from a uniform point"}};
  info.create = [](const optimist::Space& space, optimist::Direction direction, const optimist::OptionValues& values,
                   const optimist::RunContext& context) -> std::unique_ptr<optimist::Optimizer> {
    EsOptions o{values.get<double>("sigma0"), values.get<double>("min_sigma")};
    // Bad values: InvalidArgument naming the option and the value, as every built-in does.
    if (!(o.sigma0 > 0.0 && o.sigma0 <= 1.0))
      throw optimist::InvalidArgument("one-plus-one-es: sigma0 must be in (0, 1], got " + std::to_string(o.sigma0));
    if (!(o.min_sigma > 0.0 && o.min_sigma < o.sigma0))
      throw optimist::InvalidArgument("one-plus-one-es: min_sigma must be in (0, sigma0), got " + std::to_string(o.min_sigma));
    return std::make_unique<OnePlusOneEs>(space, direction, o, context);
  };
  return info;
}

int failures = 0;
void check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok:     " : "FAILED: ") << what << "\n";
  if (!ok) ++failures;
}

}  // namespace

int main() {
  namespace fs = std::filesystem;
  namespace ex = optimist::experiment;
  optimist::register_algorithm(one_plus_one_es_info());

  // The sweep `optimist bench --config` would read: our algorithm next to the built-ins.
  const nlohmann::json config = {
      {"name", "es-vs-random"}, {"seeds", 5}, {"metric", "simple_regret"},
      {"algorithms", {"random", "one-plus-one-es", {{"name", "one-plus-one-es"}, {"label", "es-small-steps"}, {"options", {{"sigma0", 0.05}}}}}},
      {"problems", {{{"name", "branin"}, {"budget", 60}}, {{"name", "rosenbrock"}, {"dim", 4}, {"budget", 100}}}}};
  const ex::SweepSpec spec = ex::parse_sweep(config, "example");
  ex::check_available(spec);
  const fs::path out = fs::temp_directory_path() / ("optimist_example_own_algorithm_" + std::to_string(::getpid()));
  ex::RunnerOptions runner;
  runner.jobs = 1;
  const ex::SweepOutcome outcome = ex::run_sweep(spec, out.string(), runner);
  for (const std::string& e : outcome.errors) std::cerr << "error: " << e << "\n";
  check(outcome.errors.empty(), "every run of the sweep finished");
  const nlohmann::json summary = ex::write_summary(spec, out.string());  // summary.md, summary.json
  std::cout << ex::summary_markdown(summary) << "\n";

  // The summary's paired comparison: the ES ahead of random search on both problems.
  for (const nlohmann::json& problem : summary.at("problems")) {
    double random_mean = NAN, es_mean = NAN;
    for (const nlohmann::json& a : problem.at("algorithms")) {
      if (a.at("label") == "random") random_mean = a.at("metric").at("mean").get<double>();
      if (a.at("label") == "one-plus-one-es") es_mean = a.at("metric").at("mean").get<double>();
    }
    check(es_mean < random_mean, problem.at("label").get<std::string>() + ": mean simple regret " + std::to_string(es_mean) +
                                     " (one-plus-one-es) below random search's " + std::to_string(random_mean));
  }
  // Its traces are optimist traces: `optimist plot DIR` and `optimist dashboard DIR` read them.
  check(fs::exists(out / "traces/branin/one-plus-one-es/seed-0.jsonl"), "a trace per run under traces/<problem>/<label>/");
  fs::remove_all(out);
  return failures == 0 ? 0 : 1;
}
