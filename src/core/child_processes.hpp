// The process groups of the objective programs this process has started, for an abort from a
// signal handler: a second Ctrl-C must not leave them running, orphaned.
#pragma once

#include <sys/types.h>

namespace optimist::child_processes {

/// Registers a process group (the child's pid: it leads its own group). Up to kCapacity at once;
/// beyond that a group is simply not registered (its normal stop still kills it).
void add(pid_t group) noexcept;
void remove(pid_t group) noexcept;
/// SIGKILL to every registered group. Async-signal-safe: lock-free reads and kill(2) only.
void kill_all() noexcept;

inline constexpr int kCapacity = 4096;

}  // namespace optimist::child_processes
