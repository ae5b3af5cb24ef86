// optimist: command-line front end (subcommands `run`, `list`, `bench`, `plot`, `study`, `worker`
// and `dashboard`).
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/bench_command.hpp"
#include "cli/dashboard_command.hpp"
#include "cli/format.hpp"
#include "cli/list_command.hpp"
#include "cli/plot_command.hpp"
#include "cli/run_command.hpp"
#include "cli/study_command.hpp"
#include "core/text.hpp"
#include "optimist/core/types.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define OPTIMIST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPTIMIST_ASAN 1
#endif
#endif
#ifdef OPTIMIST_ASAN
// LeakSanitizer, in the sanitizer build only: when the PostgreSQL server goes away in the middle of
// a query, libpqxx 6.4 never frees the result libpq made for it (its exception path), a few
// hundred bytes per lost connection; not ours to free (ReliabilityPostgres.ServerRestart...).
extern "C" const char* __lsan_default_suppressions() { return "leak:libpq.so\n"; }
#endif

namespace {

void error_line(const std::string& what) {
  // One line, so scripts and users see a single, complete message; names from files and
  // databases in it cannot send control sequences to the terminal.
  std::string msg = what;
  for (char& c : msg)
    if (c == '\n') c = ' ';
  std::fprintf(stderr, "optimist: error: %s\n", optimist::printable(msg).c_str());
}

// The subcommand a failed command line was aimed at, for the help hint.
std::string help_hint(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "run") == 0 || std::strcmp(argv[i], "list") == 0 ||
        std::strcmp(argv[i], "bench") == 0 || std::strcmp(argv[i], "plot") == 0 ||
        std::strcmp(argv[i], "study") == 0 || std::strcmp(argv[i], "worker") == 0 ||
        std::strcmp(argv[i], "dashboard") == 0)
      return std::string("run 'optimist ") + argv[i] + " --help'";
    if (argv[i][0] != '-') break;
  }
  return "run 'optimist --help'";
}

// Our models free and allocate matrices of a new, larger size at every step of a growing history.
// glibc maps a block above its mmap threshold afresh each time (and raises the threshold only to
// the size last freed), so those matrices arrived as fresh pages: about a quarter of a whole run's
// time went to page faults on a 2-core VM (docs/architecture.md, "Memory"). A
// fixed threshold of 32 MiB (glibc's largest) and a high trim threshold keep freed memory for
// reuse. A program-wide choice, so the program makes it; the library does not touch the allocator.
void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory_for_reuse();
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, and the trace or study names
  // the evaluation it could not keep, as on a full disk; by default SIGXFSZ killed the program
  // silently with the trace cut mid-line. Objective programs get the default back (posix_spawn).
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"Global optimization of expensive, noisy black-box functions.", "optimist"};
  app.set_version_flag("--version", std::string("optimist ") + optimist::version() + " (revision " + optimist::revision() + ")");
  app.require_subcommand(1);
  optimist::cli::RunCommand run;
  optimist::cli::add_run_command(app, run);
  optimist::cli::ListCommand list;
  optimist::cli::add_list_command(app, list);
  optimist::cli::BenchCommand bench;
  optimist::cli::add_bench_command(app, bench);
  optimist::cli::PlotCommand plot;
  optimist::cli::add_plot_command(app, plot);
  optimist::cli::StudyCommand study;
  optimist::cli::add_study_command(app, study);
  optimist::cli::WorkerCommand worker;
  optimist::cli::add_worker_command(app, worker);
  optimist::cli::DashboardCommand dashboard;
  optimist::cli::add_dashboard_command(app, dashboard);

  // A first word that is no command is named (CLI11 would say only "A subcommand is required"),
  // and so is a flag before the command that optimist does not have (`optimist --versoin`).
  std::string valid;
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    valid += (valid.empty() ? "" : ", ") + sub->get_name();
    commands.push_back(sub->get_name());
  }
  std::vector<std::string> flags;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& name : opt->get_lnames()) flags.push_back("--" + name);
    for (const std::string& name : opt->get_snames()) flags.push_back("-" + name);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] != '-') {
      if (std::find(commands.begin(), commands.end(), word) == commands.end()) {
        error_line("unknown command '" + word + "'" + optimist::did_you_mean(word, commands) + "; valid commands: " + valid);
        std::fprintf(stderr, "run 'optimist --help'\n");
        return 2;
      }
      break;
    }
    const std::string flag = word.substr(0, word.find('='));
    if (std::find(flags.begin(), flags.end(), flag) == flags.end()) {
      std::string known;
      for (const auto& f : flags) known += (known.empty() ? "" : ", ") + f;
      error_line("unknown option '" + flag + "'" + optimist::did_you_mean(flag, flags) + "; before a command optimist takes " +
                 known + "; valid commands: " + valid);
      std::fprintf(stderr, "run 'optimist --help'\n");
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    error_line(e.what());
    std::fprintf(stderr, "%s\n", help_hint(argc, argv).c_str());
    return 2;
  }

  try {
    if (run.app->parsed()) return optimist::cli::run_command(run);
    if (bench.app->parsed()) return optimist::cli::bench_command(bench);
    if (plot.app->parsed()) return optimist::cli::plot_command(plot);
    if (study.app->parsed()) return optimist::cli::study_command(study);
    if (worker.app->parsed()) return optimist::cli::worker_command(worker);
    if (dashboard.app->parsed()) return optimist::cli::dashboard_command(dashboard);
    return optimist::cli::list_command(list);
  } catch (const optimist::InvalidArgument& e) {
    error_line(e.what());
    return 2;
  } catch (const std::exception& e) {
    error_line(e.what());
    return 1;
  }
}
