#include "fault/fault_support.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "optimist/core/trace.hpp"

namespace optimist::testing {

ObjectiveLog read_objective_log(const std::filesystem::path& file) {
  ObjectiveLog log;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    int pid = 0;
    ls >> pid;
    std::string first;
    ls >> first;
    if (first == "start") {
      log.starts.insert(pid);
      continue;
    }
    std::vector<double> numbers{std::stod(first)};
    for (double v; ls >> v;) numbers.push_back(v);
    LoggedValue value;
    value.pid = pid;
    value.y = numbers.back();
    numbers.pop_back();
    value.x = numbers;
    log.values.push_back(value);
  }
  return log;
}

std::string fault_command(const std::string& fault, const std::filesystem::path& log, const std::string& extra_env) {
  return "env FAULT=" + fault + " LOG='" + log.string() + "' FAULT_ONCE='" + log.string() + ".fired' " + extra_env + " '" +
         OPTIMIST_FAULT_OBJECTIVE + "'";
}

void write_fault_space(const std::filesystem::path& file) {
  std::ofstream(file) << R"({"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1},
                                           {"name": "b", "type": "continuous", "lower": 0, "upper": 1}]})";
}

std::vector<std::pair<std::vector<double>, double>> ok_evaluations(const std::filesystem::path& trace) {
  std::vector<std::pair<std::vector<double>, double>> out;
  for (const auto& e : read_trace(trace.string()).evaluations) {
    if (e.at("status") != "ok") continue;
    out.emplace_back(e.at("x").get<std::vector<double>>(), e.at("y").get<double>());
  }
  return out;
}

std::vector<std::string> compare_log_with_trace(const ObjectiveLog& log, const std::filesystem::path& trace,
                                                std::size_t unstored_allowed) {
  std::vector<std::string> problems;
  std::multiset<std::pair<std::vector<double>, double>> answered;
  for (const auto& v : log.values) answered.insert({v.x, v.y});
  const auto stored = ok_evaluations(trace);
  auto remaining = answered;
  for (const auto& s : stored) {
    const auto it = remaining.find(s);
    if (it == remaining.end()) {
      std::ostringstream os;
      os << "stored value " << s.second << " at x[0] = " << s.first.at(0) << " was never answered by the objective";
      problems.push_back(os.str());
    } else {
      remaining.erase(it);
    }
  }
  if (remaining.size() > unstored_allowed) {
    std::ostringstream os;
    os << remaining.size() << " answered value(s) missing from the trace (at most " << unstored_allowed
       << " allowed), the first: y = " << remaining.begin()->second;
    problems.push_back(os.str());
  }
  return problems;
}

}  // namespace optimist::testing
