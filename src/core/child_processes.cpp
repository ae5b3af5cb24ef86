#include "core/child_processes.hpp"

#include <signal.h>

#include <atomic>

namespace optimist::child_processes {

namespace {

std::atomic<pid_t> g_groups[kCapacity];  // 0: a free slot
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler reads these");

}  // namespace

void add(pid_t group) noexcept {
  for (auto& slot : g_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
}

void remove(pid_t group) noexcept {
  for (auto& slot : g_groups) {
    pid_t mine = group;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

void kill_all() noexcept {
  for (auto& slot : g_groups)
    if (const pid_t g = slot.load(); g > 0) ::kill(-g, SIGKILL);
}

}  // namespace optimist::child_processes
