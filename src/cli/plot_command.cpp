#include "cli/plot_command.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "cli/data_files.hpp"
#include "optimist/core/types.hpp"

extern char** environ;

namespace optimist::cli {

namespace fs = std::filesystem;

namespace {

// The script next to an installed binary (PREFIX/bin/optimist -> PREFIX/share/optimist), else the
// source tree this binary was built from; OPTIMIST_PLOT_SCRIPT overrides both.
fs::path find_script() {
  constexpr const char* kScript = "plot_results.py";
  return find_data_file(std::string("the plot script ") + kScript, kScript, fs::path(OPTIMIST_SOURCE_SCRIPTS) / kScript,
                        "OPTIMIST_PLOT_SCRIPT");
}

}  // namespace

int run_plot_script(const std::string& dir) {
  std::error_code ec;
  if (fs::is_regular_file(dir, ec))
    throw InvalidArgument("'" + dir + "' is a file; optimist plot draws a bench folder (optimist bench --out DIR); "
                          "to watch single traces: optimist dashboard " + dir);
  if (!fs::exists(fs::path(dir) / "summary.json"))
    throw InvalidArgument("'" + dir + "' holds no summary.json; run 'optimist bench --out " + dir + "' first");
  const std::string script = find_script().string();
  // Debian's interpreter, where python3-matplotlib lives (not whatever python3 is first on PATH).
  const char* env_python = std::getenv("OPTIMIST_PYTHON");
  const std::string python = env_python ? env_python : "/usr/bin/python3";
  if (!fs::exists(python)) throw InvalidArgument("Python interpreter '" + python + "' not found (set OPTIMIST_PYTHON)");
  std::vector<std::string> args = {python, script, dir};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start " + python);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waiting for the plot script failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

void add_plot_command(CLI::App& parent, PlotCommand& cmd) {
  cmd.app = parent.add_subcommand("plot", "Draw the figures of a sweep folder (PNG and SVG, matplotlib)");
  cmd.app->add_option("dir", cmd.dir, "folder written by 'optimist bench --out'")->required()->type_name("DIR");
  cmd.app->footer("Runs /usr/bin/python3 with scripts/plot_results.py; figures go to DIR/plots/.");
}

int plot_command(const PlotCommand& cmd) {
  const int rc = run_plot_script(cmd.dir);
  return rc == 0 || rc == 2 ? rc : 1;  // 2: the folder or its summary.json is not a sweep's (bad input)
}

}  // namespace optimist::cli
