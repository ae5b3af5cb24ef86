// `optimist run`: one optimization run of a benchmark problem.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace optimist::cli {

/// Storage for the flags of `optimist run`; kept as text and validated in resolve_settings so
/// that every bad value gets the same kind of message, whether it came from a flag or a file.
struct RunCommand {
  CLI::App* app = nullptr;
  std::map<std::string, std::string> values;   ///< config key -> flag text
  std::map<std::string, CLI::Option*> given;   ///< config key -> its flag
  std::vector<std::string> set;
  std::string config;
  CLI::Option* config_flag = nullptr;
  std::string resume;  ///< trace of an interrupted run to continue
  CLI::Option* resume_flag = nullptr;
  bool quiet = false;
  bool noisy = false;  ///< --noisy
  CLI::Option* noisy_flag = nullptr;
  // --jobs K / --storage URL / --study NAME: the run as a study (cli/run_study.hpp).
  std::size_t jobs = 1;
  std::string storage;
  std::string study = "run";
  CLI::Option* jobs_flag = nullptr;
  CLI::Option* storage_flag = nullptr;
};

void add_run_command(CLI::App& parent, RunCommand& cmd);
/// Returns the exit code: 0 done, 1 the objective failed (stop policy), 130 interrupted.
/// Throws InvalidArgument on bad input.
int run_command(const RunCommand& cmd);

}  // namespace optimist::cli
