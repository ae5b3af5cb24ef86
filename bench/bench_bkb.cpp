// BKB, BBKB and exact GP-UCB on the same arm set: hartmann6 (minimized), A generated Sobol arms,
// noise sd 0.05, one full run per benchmark (arguments A, T, seed). Settings:
//   Defaults  only arms = A (what a user runs)
//   Theorem4  beta = theorem4, every other option at its default
//   Paper     preset = paper (Fig. 1 and Thm. 4 as stated, qbar of Thm. 4 from T)
// Counters at checkpoints c in {100, 250, 500, 1000, 2000, 3000, 4000, 5000} (those <= T):
// cpu_ms_tc / step_ms_tc = thread CPU / wall time of one step (ask + tell) averaged over steps
// [c-50, c); m_tc = |S_t| (bkb, bbkb) or distinct pulled arms (gp-ucb-arms); regret_tc =
// cumulative noise-free regret over the first c steps; cpu_s = thread CPU of the whole run. Run:
//   build/bench/optimist_bench --benchmark_filter='Defaults.*/5000/1000/' --benchmark_min_time=0
// (exact GP-UCB under Theorem4 takes minutes per run: every pull is a new arm.)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

// CPU time of this thread: the machine is shared, so wall time per step is inflated by load.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void run_hartmann6(benchmark::State& state, const std::string& name, const nlohmann::json& settings) {
  const auto A = static_cast<std::size_t>(state.range(0));
  const auto T = static_cast<std::size_t>(state.range(1));
  const auto seed = static_cast<std::uint64_t>(state.range(2));
  const Problem p = make_problem("hartmann6");
  for (auto _ : state) {
    Objective obj = p.objective(0.05, derive_seed(seed, 0x6e6f697365ULL));
    nlohmann::json spec = settings;
    spec["name"] = name;
    spec["arms"] = A;
    auto opt = make_optimizer(spec, p.space, p.direction, RunContext{.seed = seed, .horizon = T, .noisy = true});
    std::vector<double> step_s(T), step_cpu(T);
    double cum_regret = 0.0;
    const double cpu_start = thread_cpu_s();
    for (std::size_t t = 0; t < T; ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = thread_cpu_s();
      Trial tr = opt->ask();
      const double y = obj.function(tr.x);
      opt->tell(tr, y);
      step_s[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      step_cpu[t] = thread_cpu_s() - c0;
      cum_regret += obj.regret(p.f(tr.x));
      const std::size_t c = t + 1;
      if (c == 100 || c == 250 || c == 500 || c % 1000 == 0) {
        double s = 0, cpu = 0;
        for (std::size_t i = c - 50; i < c; ++i) {
          s += step_s[i];
          cpu += step_cpu[i];
        }
        const auto d = opt->diagnostics();
        const std::string tag = "_t" + std::to_string(c);
        state.counters["step_ms" + tag] = 1e3 * s / 50.0;
        state.counters["cpu_ms" + tag] = 1e3 * cpu / 50.0;
        state.counters["regret" + tag] = cum_regret;
        state.counters["m" + tag] = d.contains("dictionary_size") ? d["dictionary_size"].get<double>()
                                                                 : d["distinct_pulled"].get<double>();
      }
    }
    state.counters["cpu_s"] = thread_cpu_s() - cpu_start;
    state.counters["distinct_pulled"] = opt->diagnostics()["distinct_pulled"].get<double>();
  }
}

// Per-step pairing: bkb and gp-ucb-arms with the same options, each on its own copy of the task,
// advanced one step each in turn in the same thread (each first every other step), so that both
// see the same machine load at every t. Counters: the ratio bkb / gp-ucb-arms of the thread CPU time of step t (ask + tell):
// its maximum over all t (max_ratio, at t = worst_t, with both times), its 99th and 90th
// percentiles, the steps above 1.2 (over_1_2) and the total CPU of each. With OPTIMIST_BKB_STEPS
// set to a folder, the per-step times go to STEPS/steps-<label>-<seed>.csv (t, bkb_ms, exact_ms, bkb_ask_ms,
// exact_ask_ms: ask alone).
void run_paired(benchmark::State& state, const std::string& label, const nlohmann::json& settings) {
  const auto A = static_cast<std::size_t>(state.range(0));
  const auto T = static_cast<std::size_t>(state.range(1));
  const auto seed = static_cast<std::uint64_t>(state.range(2));
  const Problem p = make_problem("hartmann6");
  {  // warm-up: the process's first calls (page faults, lazy initialization) are neither algorithm's
    for (const char* name : {"bkb", "gp-ucb-arms"}) {
      auto opt = make_optimizer({{"name", name}, {"arms", A}}, p.space, p.direction, RunContext{.seed = seed + 1000, .noisy = true});
      for (int t = 0; t < 3; ++t) {
        Trial tr = opt->ask();
        opt->tell(tr, p.f(tr.x));
      }
    }
  }
  for (auto _ : state) {
    struct Side {
      std::unique_ptr<Optimizer> opt;
      Objective obj;
      std::vector<double> cpu, ask_cpu;
      double regret = 0.0;
    };
    struct Totals {
      std::vector<double> cpu, ask_cpu;
      double regret = 0.0;
    };
    std::vector<Totals> sides(2, Totals{std::vector<double>(T), std::vector<double>(T)});
    const char* names[2] = {"bkb", "gp-ucb-arms"};
    // The whole run twice, once with each going first at odd steps; a step's time is the mean of
    // the two: at the first steps (0.01-0.1 ms) the second to step is slower by up to 1.5x (its
    // data evicted by the other's construction and step), whichever it is.
    for (std::size_t order = 0; order < 2; ++order) {
      std::vector<Side> run;
      for (std::size_t i = 0; i < 2; ++i)
        run.push_back({nullptr, p.objective(0.05, derive_seed(seed, 0x6e6f697365ULL)), std::vector<double>(T), std::vector<double>(T)});
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t k = 0; k < 2; ++k) {
          const std::size_t side = (t + k + order) % 2;
          Side& s = run[side];
          if (!s.opt) {  // each is built just before its first step, as a user's construct-then-ask (else
                         // the first to step pays for its data gone cold while the other was built)
            nlohmann::json spec = settings;
            spec["name"] = names[side];
            spec["arms"] = A;
            s.opt = make_optimizer(spec, p.space, p.direction, RunContext{.seed = seed, .horizon = T, .noisy = true});
          }
          const double c0 = thread_cpu_s();
          Trial tr = s.opt->ask();
          const double y = s.obj.function(tr.x);
          const double c1 = thread_cpu_s();
          s.opt->tell(tr, y);
          s.cpu[t] = thread_cpu_s() - c0;  // the objective's time is negligible (hartmann6)
          s.ask_cpu[t] = c1 - c0;
          s.regret += s.obj.regret(p.f(tr.x));
        }
      for (std::size_t i = 0; i < 2; ++i) {
        for (std::size_t t = 0; t < T; ++t) {
          sides[i].cpu[t] += 0.5 * run[i].cpu[t];
          sides[i].ask_cpu[t] += 0.5 * run[i].ask_cpu[t];
        }
        sides[i].regret = run[i].regret;  // the same choices in both runs (deterministic)
      }
    }
    std::vector<double> ratio(T);
    std::size_t worst = 0, over = 0;
    for (std::size_t t = 0; t < T; ++t) {
      ratio[t] = sides[0].cpu[t] / std::max(sides[1].cpu[t], 1e-9);
      if (ratio[t] > ratio[worst]) worst = t;
      over += ratio[t] > 1.2 ? 1 : 0;
    }
    std::vector<double> sorted = ratio;
    std::sort(sorted.begin(), sorted.end());
    const auto quantile = [&](double q) { return sorted[static_cast<std::size_t>(q * static_cast<double>(T - 1))]; };
    state.counters["max_ratio"] = ratio[worst];
    state.counters["worst_t"] = static_cast<double>(worst + 1);
    state.counters["worst_bkb_ms"] = 1e3 * sides[0].cpu[worst];
    state.counters["worst_exact_ms"] = 1e3 * sides[1].cpu[worst];
    state.counters["p99_ratio"] = quantile(0.99);
    state.counters["p90_ratio"] = quantile(0.90);
    state.counters["over_1_2"] = static_cast<double>(over);
    double tb = 0, te = 0;
    for (std::size_t t = 0; t < T; ++t) {
      tb += sides[0].cpu[t];
      te += sides[1].cpu[t];
    }
    state.counters["bkb_cpu_s"] = tb;
    state.counters["exact_cpu_s"] = te;
    state.counters["bkb_regret"] = sides[0].regret;
    state.counters["exact_regret"] = sides[1].regret;
    if (const char* dir = std::getenv("OPTIMIST_BKB_STEPS")) {
      std::ofstream out(std::string(dir) + "/steps-" + label + "-" + std::to_string(seed) + ".csv");
      out << "t,bkb_ms,exact_ms,bkb_ask_ms,exact_ask_ms\n";
      for (std::size_t t = 0; t < T; ++t)
        out << t + 1 << ',' << 1e3 * sides[0].cpu[t] << ',' << 1e3 * sides[1].cpu[t] << ',' << 1e3 * sides[0].ask_cpu[t] << ','
            << 1e3 * sides[1].ask_cpu[t] << '\n';
    }
  }
}

const nlohmann::json kDefaults = nlohmann::json::object();
const nlohmann::json kTheorem4 = {{"beta", "theorem4"}};
const nlohmann::json kPaper = {{"preset", "paper"}};

void Args5000(benchmark::internal::Benchmark* b) {
  for (int seed = 0; seed < 5; ++seed) b->Args({5000, 1000, seed});
}
void ArgsLarge(benchmark::internal::Benchmark* b) { b->Args({10000, 5000, 0}); }
// Thm. 4's beta: exact GP-UCB's step grows like t^3 (every pull a new arm), so T = 300.
void ArgsPairedTheorem4(benchmark::internal::Benchmark* b) {
  for (int seed = 0; seed < 5; ++seed) b->Args({5000, 300, seed});
}

}  // namespace

BENCHMARK_CAPTURE(run_hartmann6, BkbDefaults, std::string("bkb"), kDefaults)->Apply(Args5000)->Apply(ArgsLarge)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_hartmann6, BbkbDefaults, std::string("bbkb"), kDefaults)->Apply(Args5000)->Apply(ArgsLarge)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_hartmann6, GpUcbArmsDefaults, std::string("gp-ucb-arms"), kDefaults)->Apply(Args5000)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_hartmann6, BkbTheorem4, std::string("bkb"), kTheorem4)->Apply(Args5000)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_hartmann6, GpUcbArmsTheorem4, std::string("gp-ucb-arms"), kTheorem4)->Apply(Args5000)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_hartmann6, BkbPaper, std::string("bkb"), kPaper)->Apply(Args5000)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_hartmann6, GpUcbArmsPaper, std::string("gp-ucb-arms"), kPaper)->Apply(Args5000)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_paired, StepRatioDefaults, std::string("defaults"), kDefaults)->Apply(Args5000)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(run_paired, StepRatioTheorem4, std::string("theorem4"), kTheorem4)->Apply(ArgsPairedTheorem4)->Iterations(1)->Unit(benchmark::kSecond);
