// The list of built-in algorithms: adding an algorithm is one line in builtin.cpp.
#pragma once

#include <vector>

#include "optimist/algorithms/registry.hpp"

namespace optimist {
std::vector<AlgorithmInfo> builtin_algorithms();
}
