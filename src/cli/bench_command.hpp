// `optimist bench`: run a sweep (preset or config file) in parallel, summarize, plot.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace optimist::cli {

struct BenchCommand {
  CLI::App* app = nullptr;
  std::string preset;
  std::string config;
  std::string out;
  std::size_t seeds = 0;  ///< 0: the sweep's own
  std::string interval;   ///< "t" or "wald"; empty: the sweep's own
  std::size_t jobs = 0;   ///< 0: all cores
  bool list_presets = false;
  bool no_plot = false;
  bool quiet = false;
};

void add_bench_command(CLI::App& parent, BenchCommand& cmd);
int bench_command(const BenchCommand& cmd);

}  // namespace optimist::cli
