// Files installed with the program under PREFIX/share/optimist (scripts, the dashboard's page),
// found next to the running binary, else in the build or source tree.
#pragma once

#include <filesystem>
#include <string>

namespace optimist::cli {

/// The first existing of: the path in environment variable `env_var` (when set);
/// PREFIX/share/optimist/`relative` for a binary installed as PREFIX/bin/optimist; `fallback`.
/// Throws InvalidArgument naming `what`, the paths tried and `env_var`.
std::filesystem::path find_data_file(const std::string& what, const std::string& relative,
                                     const std::filesystem::path& fallback, const char* env_var);

}  // namespace optimist::cli
