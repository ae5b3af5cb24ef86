// The final summary of `optimist run` on stdout.
#pragma once

#include <ostream>
#include <string>

#include "cli/settings.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

void print_summary(std::ostream& out, const RunSettings& settings, const Problem& problem,
                   const Objective& objective, const RunSummary& run);

}  // namespace optimist::cli
