// Ctrl-C (or SIGTERM) during a run: the first one asks the driver to stop after the current
// evaluation (so the trace and summary are still written); a second one terminates as usual.
#pragma once

namespace optimist::cli {

class InterruptGuard {
 public:
  InterruptGuard();   ///< installs the SIGINT and SIGTERM handler
  ~InterruptGuard();  ///< restores the previous handler
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// True once SIGINT or SIGTERM arrived while a guard was installed.
  static bool interrupted();
};

}  // namespace optimist::cli
