#include "cli/data_files.hpp"

#include <cstdlib>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist::cli {

namespace fs = std::filesystem;

fs::path find_data_file(const std::string& what, const std::string& relative, const fs::path& fallback,
                        const char* env_var) {
  if (const char* env = std::getenv(env_var)) return env;
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path datadir = OPTIMIST_INSTALL_DATADIR;
    candidates.push_back((datadir.is_absolute() ? datadir : exe.parent_path().parent_path() / datadir) / "optimist" /
                         relative);
  }
  candidates.push_back(fallback);
  for (const auto& c : candidates)
    if (fs::exists(c, ec)) return c;
  std::string tried;
  for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c.string();
  throw InvalidArgument("cannot find " + what + " (tried " + tried + "); set " + env_var + " to its path");
}

}  // namespace optimist::cli
