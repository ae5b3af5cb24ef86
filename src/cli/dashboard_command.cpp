#include "cli/dashboard_command.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>

#include "cli/data_files.hpp"
#include "dashboard/server.hpp"
#include "dashboard/storage_source.hpp"
#include "dashboard/trace_source.hpp"
#include "optimist/core/types.hpp"

namespace optimist::cli {

namespace fs = std::filesystem;

namespace {

// The page's folder: installed under PREFIX/share/optimist/dashboard, else the one the build
// assembled (web/dashboard plus the chart library installed by scripts/install-deps.sh).
fs::path find_static_dir() {
  const fs::path index = find_data_file("the dashboard's web page", "dashboard/index.html",
                                        fs::path(OPTIMIST_BUILD_DASHBOARD_DIR) / "index.html", "OPTIMIST_DASHBOARD_DIR");
  // The variable names the folder; the other candidates name its index.html.
  return fs::is_directory(index) ? index : index.parent_path();
}

// Ctrl-C or SIGTERM stops the server: the signals are blocked in every thread and taken here.
class StopOnSignal {
 public:
  explicit StopOnSignal(dashboard::Server& server) {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);  // before the server starts its threads
    waiter_ = std::thread([this, &server] {
      const timespec tick{0, 200'000'000};
      while (!done_) {
        if (sigtimedwait(&signals_, nullptr, &tick) > 0) {
          std::fprintf(stderr, "\noptimist dashboard: stopping\n");
          server.stop();
          return;
        }
      }
    });
  }
  ~StopOnSignal() {
    done_ = true;
    waiter_.join();
    pthread_sigmask(SIG_UNBLOCK, &signals_, nullptr);
  }

 private:
  sigset_t signals_{};
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

// The studies of --storage, or the traces named.
std::unique_ptr<dashboard::StudySource> open_source(const DashboardCommand& cmd) {
  if (cmd.storage.empty() == cmd.traces.empty())
    throw InvalidArgument(cmd.storage.empty() ? "give trace files or folders, or --storage URL"
                                              : "give either --storage or trace files, not both");
  if (!cmd.storage.empty()) return std::make_unique<dashboard::StorageSource>(cmd.storage);
  // A trace's writer is looked for once per poll of the page (a run killed shows as stopped).
  return std::make_unique<dashboard::TraceSource>(cmd.traces, std::chrono::milliseconds(1000),
                                                  std::chrono::milliseconds(cmd.poll_ms));
}

}  // namespace

void add_dashboard_command(CLI::App& parent, DashboardCommand& cmd) {
  cmd.app = parent.add_subcommand("dashboard", "Serve a live web page over studies or runs (trace files, bench folders)");
  cmd.app->add_option("traces", cmd.traces, "trace files (.jsonl) or folders of them (an 'optimist bench --out' folder)")
      ->type_name("TRACE|DIR");
  cmd.app->add_option("--storage", cmd.storage, "the studies of this database (sqlite:///path/study.db, postgresql://...)")
      ->type_name("URL");
  cmd.app->add_option("--host", cmd.host, "address to listen on; anything but a loopback address exposes the runs")
      ->capture_default_str();
  cmd.app->add_option("--port", cmd.port, "port to listen on (0: any free port)")->capture_default_str();
  cmd.app->add_option("--poll-ms", cmd.poll_ms, "how often the page asks for new trials, in milliseconds")
      ->capture_default_str()
      ->check(CLI::Range(100, 600000));
  cmd.app->add_flag("--log", cmd.log_requests, "print one line per request with its server time");
  cmd.app->footer("Read-only: the page and its JSON API change nothing. Open the printed address in a browser.");
}

int dashboard_command(const DashboardCommand& cmd) {
  if (cmd.host.find_first_not_of(" \t") == std::string::npos)
    throw InvalidArgument("--host is empty; give an address such as 127.0.0.1 (the default) or ::1");
  const auto owned = open_source(cmd);
  dashboard::StudySource& source = *owned;
  dashboard::ServerOptions options;
  options.host = cmd.host;
  options.port = cmd.port;
  options.static_dir = find_static_dir();
  options.log_requests = cmd.log_requests;
  options.api.poll_ms = cmd.poll_ms;
  options.api.description = source.describe();
  if (!fs::exists(options.static_dir / "vendor" / "echarts.min.js"))
    std::fprintf(stderr,
                 "optimist dashboard: warning: the chart library is missing from %s/vendor (run "
                 "scripts/install-deps.sh, then rebuild); the page will show no plots\n",
                 options.static_dir.c_str());

  dashboard::Server server(source, options);
  const int port = server.bind();
  if (!dashboard::Server::is_loopback(cmd.host))
    std::fprintf(stderr, "optimist dashboard: warning: listening on %s: anyone who can reach this address can read these runs\n",
                 cmd.host.c_str());
  const std::string shown_host = cmd.host.find(':') != std::string::npos ? "[" + cmd.host + "]" : cmd.host;
  std::printf("optimist dashboard: serving %s at http://%s:%d/ (read-only; Ctrl-C to stop)\n",
              options.api.description.c_str(), shown_host.c_str(), port);
  std::fflush(stdout);
  StopOnSignal stop(server);
  server.serve();
  return 0;
}

}  // namespace optimist::cli
