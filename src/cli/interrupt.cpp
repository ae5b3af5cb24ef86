#include "cli/interrupt.hpp"

#include <unistd.h>

#include <csignal>

#include "core/child_processes.hpp"
#include "optimist/study/storage.hpp"

namespace optimist::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
volatile std::sig_atomic_t g_aborted = 0;
volatile std::sig_atomic_t g_graceful = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void on_signal(int signal) {
  if (g_interrupted && g_graceful && !g_aborted) {
    // A study's worker: its objective programs are killed and their trials given back, an
    // evaluation that finished is still stored, or printed when the storage does not answer (it
    // was lost: a worker retrying a store through an outage exited with nothing said).
    g_aborted = 1;
    child_processes::kill_all();
    give_up_storage_retries();
    constexpr char aborting[] =
        "\noptimist: aborting; the evaluations under way are killed and given back, a result the storage does not take "
        "is printed as JSON (again to exit at once)\n";
    [[maybe_unused]] const auto n = write(STDERR_FILENO, aborting, sizeof aborting - 1);
    return;
  }
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

InterruptGuard::InterruptGuard(Abort abort) {
  g_graceful = abort == Abort::Gracefully;
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

bool InterruptGuard::aborted() { return g_aborted != 0; }

}  // namespace optimist::cli
