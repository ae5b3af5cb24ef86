// `optimist plot DIR`: the figures of a sweep folder, drawn by scripts/plot_results.py (matplotlib).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace optimist::cli {

struct PlotCommand {
  CLI::App* app = nullptr;
  std::string dir;
};

void add_plot_command(CLI::App& parent, PlotCommand& cmd);
int plot_command(const PlotCommand& cmd);

/// Runs the plot script on a sweep folder holding summary.json; returns its exit code. Throws
/// InvalidArgument when the script or the Python interpreter cannot be found.
int run_plot_script(const std::string& dir);

}  // namespace optimist::cli
