// `optimist dashboard --storage URL` or `optimist dashboard TRACE.jsonl|DIR ...`: a live web page
// over studies or runs (docs/dashboard.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace optimist::cli {

struct DashboardCommand {
  CLI::App* app = nullptr;
  std::vector<std::string> traces;
  std::string storage;
  std::string host = "127.0.0.1";
  int port = 8080;
  int poll_ms = 1000;
  bool log_requests = false;
};

void add_dashboard_command(CLI::App& parent, DashboardCommand& cmd);
int dashboard_command(const DashboardCommand& cmd);

}  // namespace optimist::cli
