#include "cli/interrupt.hpp"

#include <unistd.h>

#include <csignal>

namespace optimist::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
struct sigaction g_previous {};

extern "C" void on_sigint(int) {
  g_interrupted = 1;
  // Only async-signal-safe calls here: write(2), no stdio.
  constexpr char msg[] =
      "\noptimist: interrupted; stopping after the current evaluation (Ctrl-C again to abort)\n";
  [[maybe_unused]] const auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  // SA_RESETHAND: the handler runs once, so a second Ctrl-C kills the process as usual.
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, &g_previous);
}

InterruptGuard::~InterruptGuard() { sigaction(SIGINT, &g_previous, nullptr); }

bool InterruptGuard::interrupted() { return g_interrupted != 0; }

}  // namespace optimist::cli
