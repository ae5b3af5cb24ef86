// `optimist list [algorithms|problems]`: what can be run, as text or JSON.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace optimist::cli {

struct ListCommand {
  CLI::App* app = nullptr;
  std::string what;  ///< "algorithms", "problems" or empty for both
  bool json = false;
};

void add_list_command(CLI::App& parent, ListCommand& cmd);
int list_command(const ListCommand& cmd);

}  // namespace optimist::cli
