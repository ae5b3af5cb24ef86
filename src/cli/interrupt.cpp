#include "cli/interrupt.hpp"

#include <unistd.h>

#include <csignal>

#include "core/child_processes.hpp"

namespace optimist::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void on_signal(int signal) {
  if (g_interrupted) {
    // The second one aborts: the objective programs' process groups are killed (they would
    // outlive us, orphaned), then exit with the interrupted status.
    child_processes::kill_all();
    constexpr char aborted[] = "\noptimist: aborted; the evaluations under way were killed and are not recorded\n";
    [[maybe_unused]] const auto n = write(STDERR_FILENO, aborted, sizeof aborted - 1);
    _exit(130);
  }
  g_interrupted = 1;
  // Only async-signal-safe calls here: write(2), no stdio.
  constexpr char interrupted[] =
      "\noptimist: interrupted; stopping after the current evaluation (Ctrl-C again to abort)\n";
  constexpr char terminated[] =
      "\noptimist: terminated (SIGTERM); stopping after the current evaluation (SIGTERM again to abort)\n";
  [[maybe_unused]] const auto n = signal == SIGTERM ? write(STDERR_FILENO, terminated, sizeof terminated - 1)
                                                    : write(STDERR_FILENO, interrupted, sizeof interrupted - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // The handler stays: the second Ctrl-C (or SIGTERM) aborts through it (on_signal).
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, &g_previous_int);
  // A batch scheduler's or a service manager's stop: the same clean end (trace, summary, the
  // temporary study of --jobs removed) before the SIGKILL that usually follows.
  sigaction(SIGTERM, &sa, &g_previous_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool InterruptGuard::interrupted() { return g_interrupted != 0; }

}  // namespace optimist::cli
