// `optimist run`: one optimization run of a benchmark problem.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "cli/settings.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/experiment/run_setup.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

/// Storage for the flags of `optimist run`; kept as text and validated in resolve_settings so
/// that every bad value gets the same kind of message, whether it came from a flag or a file.
struct RunCommand {
  CLI::App* app = nullptr;
  std::map<std::string, std::string> values;   ///< config key -> flag text
  std::map<std::string, CLI::Option*> given;   ///< config key -> its flag
  std::vector<std::string> set;
  std::vector<std::string> x0;  ///< --x0 POINT (repeatable), JSON texts
  std::string config;
  CLI::Option* config_flag = nullptr;
  std::string resume;  ///< trace of an interrupted run to continue
  CLI::Option* resume_flag = nullptr;
  bool quiet = false;
  bool trust_command = false;  ///< --trust-command: run the command written in the resumed trace
  bool noisy = false;  ///< --noisy
  CLI::Option* noisy_flag = nullptr;
  // --jobs K / --storage URL / --study NAME: the run as a study (cli/run_study.hpp).
  std::size_t jobs = 1;
  std::string storage;
  std::string study = "run";
  CLI::Option* jobs_flag = nullptr;
  CLI::Option* storage_flag = nullptr;
  CLI::Option* study_flag = nullptr;
};

void add_run_command(CLI::App& parent, RunCommand& cmd);

/// What `optimist run --resume TRACE` continues: the settings (the trace's, with `flags`), the
/// problem (a benchmark, or the space and direction of the user's program, without a function)
/// and the earlier evaluations, checked against it.
struct ResumedRun {
  RunSettings settings;
  Problem problem;
  std::vector<EvaluationRecord> earlier;
  bool command_from_trace = false;  ///< the objective command is the trace's, not a flag's
};
/// Throws InvalidArgument on a trace that cannot be continued, and when the trace's objective
/// command would run without the user naming it (--objective-command) or confirming it
/// (`trust_command`, the flag --trust-command): the message shows the command.
ResumedRun resume_run(const Trace& trace, const std::map<std::string, std::string>& flags, const std::string& path,
                      bool trust_command);
/// The run `s` describes (algorithm, options, seed, noise, noisy, budget, horizon), for prepare_run.
experiment::RunSpec run_spec(const RunSettings& s);
/// Returns the exit code: 0 done, 1 the objective failed (stop policy), 130 interrupted.
/// Throws InvalidArgument on bad input.
int run_command(const RunCommand& cmd);

}  // namespace optimist::cli
