#include "cli/interrupt.hpp"

#include <unistd.h>

#include <csignal>

namespace optimist::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void on_signal(int signal) {
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
  // SA_RESETHAND: the handler runs once, so a second Ctrl-C (or SIGTERM) kills the process as usual.
  sa.sa_flags = SA_RESETHAND;
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
