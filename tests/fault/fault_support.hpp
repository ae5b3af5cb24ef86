// What the fault-injection tests share: the misbehaving objective (fault_objective.cpp), its log,
// and the comparison of what it paid for with what optimist stored.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace optimist::testing {

/// One line of the objective's log: the process, the point, the value it answered.
struct LoggedValue {
  int pid = 0;
  std::vector<double> x;
  double y = 0.0;
};

struct ObjectiveLog {
  std::vector<LoggedValue> values;  ///< in the order they were answered
  std::set<int> starts;             ///< processes that started
};

ObjectiveLog read_objective_log(const std::filesystem::path& file);

/// "env FAULT=... LOG=... FAULT_ONCE=LOG.fired '<fault_objective>'" for --objective-command: the
/// fault fires once in the whole run (a restarted child behaves), flood excepted.
std::string fault_command(const std::string& fault, const std::filesystem::path& log, const std::string& extra_env = "");

/// The space every fault test uses: two continuous parameters in [0, 1].
void write_fault_space(const std::filesystem::path& file);

/// The ok evaluations of a trace as (x..., y).
std::vector<std::pair<std::vector<double>, double>> ok_evaluations(const std::filesystem::path& trace);

/// Compares the values the objective answered with the ok evaluations stored in a trace: every
/// stored value was answered at that point (no invented value) and every answered value is
/// stored (no lost one), except `unstored_allowed` answered values (an evaluation in flight when
/// the writer died); returns a description of each mismatch (empty: they agree).
std::vector<std::string> compare_log_with_trace(const ObjectiveLog& log, const std::filesystem::path& trace,
                                                std::size_t unstored_allowed = 0);

}  // namespace optimist::testing
