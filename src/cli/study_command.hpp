// `optimist study create|list|show|export|delete|set|ask|tell|add` and `optimist worker` (docs/studies.md).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace optimist::cli {

/// The objective flags the study commands share: --problem/--dim/--noise or
/// --objective-command/--objective-timeout (with --space/--direction where a study is created).
struct ObjectiveFlags {
  std::string problem, objective_command, space, direction;
  std::size_t dim = 0;
  double noise = 0.0;
  std::optional<double> objective_timeout;
  CLI::Option* noise_flag = nullptr;
  CLI::Option* dim_flag = nullptr;
  CLI::Option* command_flag = nullptr;
  bool noise_given() const { return noise_flag && noise_flag->count() > 0; }
  bool dim_given() const { return dim_flag && dim_flag->count() > 0; }
  /// --dim and --noise belong to --problem: refused with --objective-command (they would be
  /// dropped), and --noise must be finite and >= 0; --space, --direction and --objective-timeout
  /// belong to --objective-command, refused with --problem; a given command must not be blank.
  void check_problem_flags() const;
  void add_to(CLI::App& app, bool with_space);
};

struct StudyCommand {
  CLI::App* app = nullptr;
  CLI::App *create = nullptr, *list = nullptr, *show = nullptr, *export_ = nullptr, *remove = nullptr, *set_ = nullptr;
  CLI::App *ask = nullptr, *tell = nullptr, *add = nullptr;  // trials run by hand (study_by_hand.cpp)
  std::string storage, name, algorithm = "auto", out;
  std::vector<std::string> set;
  std::uint64_t seed = 0;
  std::optional<std::size_t> budget;
  double heartbeat = 10.0, grace = 60.0;
  bool no_requeue = false, all_trials = false, noisy = false, allow_duplicates = false, force = false;
  ObjectiveFlags objective;
  std::string new_budget;  // study set --budget: N or "unlimited"
  // ask, tell, add
  std::size_t count = 1;
  std::string format = "table", lease = "forever", worker_name, value, failed_why, from, give_back_why;
  std::vector<std::string> trial;  // study tell --trial: one number, several with --give-back
  std::vector<std::string> params, ignore_columns;
  CLI::Option *tell_value = nullptr, *tell_failed = nullptr, *add_value = nullptr, *add_failed = nullptr;
  CLI::Option* give_back = nullptr;  // study tell --give-back [WHY]
  CLI::Option *value_flag = nullptr, *failed_flag = nullptr;  // those of the parsed subcommand
};

/// `study ask|tell|add` (study_by_hand.cpp); `storage` adds the --storage option.
void add_by_hand_commands(CLI::App& study_app, StudyCommand& cmd, const std::function<void(CLI::App*)>& storage);
/// Exit codes: 0 done, 2 bad input, 3 (ask) fewer trials than --count were left.
int by_hand_command(const StudyCommand& cmd);

struct WorkerCommand {
  CLI::App* app = nullptr;
  std::string storage, name, worker_name, algorithm;
  std::optional<std::size_t> budget;
  std::size_t jobs = 1;
  bool quiet = false;
  bool trust_command = false;  ///< --trust-command: run the objective command stored in the study
  ObjectiveFlags objective;
};

void add_study_command(CLI::App& parent, StudyCommand& cmd);
int study_command(const StudyCommand& cmd);
void add_worker_command(CLI::App& parent, WorkerCommand& cmd);
/// Exit codes: 0 the study has no trial left (or --budget reached), 130 interrupted.
int worker_command(const WorkerCommand& cmd);

}  // namespace optimist::cli
