// Ctrl-C (or SIGTERM) during a run: the first one asks the driver to stop after the current
// evaluation (so the trace and summary are still written); a second one kills the objective
// programs and terminates, or, for a study's worker (Abort::Gracefully), kills them, gives their
// trials back, prints what could not be stored and then ends; a third one terminates at once.
#pragma once

namespace optimist::cli {

class InterruptGuard {
 public:
  enum class Abort { AtOnce, Gracefully };
  explicit InterruptGuard(Abort abort = Abort::AtOnce);  ///< installs the SIGINT and SIGTERM handler
  ~InterruptGuard();  ///< restores the previous handler
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// True once SIGINT or SIGTERM arrived while a guard was installed.
  static bool interrupted();
  /// True once a second signal arrived under Abort::Gracefully.
  static bool aborted();
};

}  // namespace optimist::cli
