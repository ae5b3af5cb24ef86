// The final summary of `optimist run` on stdout.
#pragma once

#include <ostream>
#include <string>

#include "cli/settings.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

/// `decisions`: what the algorithm decided for the run (Optimizer::decisions(); `auto`'s choice).
void print_summary(std::ostream& out, const RunSettings& settings, const Problem& problem,
                   const Objective& objective, const RunSummary& run,
                   const nlohmann::json& decisions = nlohmann::json::object());

}  // namespace optimist::cli
