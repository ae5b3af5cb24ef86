#include "core/child_processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>

namespace optimist::child_processes {

namespace {

std::atomic<pid_t> g_groups[kCapacity];  // 0: a free slot
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler reads these");

// The guard: a process of its own that kills the registered groups once this process is gone.
std::mutex g_guard_mutex;
int g_guard_fd = -1;      // this process's end of the socket to the guard (close-on-exec)
pid_t g_guard_owner = 0;  // the process that started it (a fork of this process needs its own)

void close_from(int first) noexcept {
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0) == 0) return;
  const long max = ::sysconf(_SC_OPEN_MAX);
  for (long fd = first; fd < (max > 0 ? max : 1024); ++fd) ::close(static_cast<int>(fd));
}

// The guard's life, in a child of a fork of a possibly multithreaded process: async-signal-safe
// calls only. It reads group ids (positive: started, negative: ended) until every copy of the
// other end is closed, which happens when this process ends in any way, SIGKILL included.
[[noreturn]] void guard(int fd) noexcept {
  // Its own process group, deaf to the terminal's and a supervisor's signals: `timeout -k` and a
  // Ctrl-C signal optimist's whole group, and the guard must outlive optimist to do its work.
  ::setpgid(0, 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2})
    ::sigaction(s, &ignore, nullptr);
  ::prctl(PR_SET_NAME, "optimist-guard", 0, 0, 0);
  // Hold nothing of optimist's: an objective's pipes must see their EOFs, a pipe optimist writes
  // to (`optimist run | tee log`) must close with it.
  if (fd != 3) {
    ::dup2(fd, 3);
    fd = 3;
  }
  close_from(4);
  const int null = ::open("/dev/null", O_RDWR);
  for (int k = 0; k < 3; ++k)
    if (null >= 0 && null != k) ::dup2(null, k);
  if (null > 2) ::close(null);

  pid_t groups[kCapacity] = {};
  for (;;) {
    std::int32_t message = 0;
    const ssize_t n = ::recv(fd, &message, sizeof message, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof message)) break;  // EOF: optimist has ended
    if (message > 0) {
      for (pid_t& g : groups)
        if (g == 0) {
          g = message;
          break;
        }
    } else if (message < 0) {
      for (pid_t& g : groups)
        if (g == -message) {
          g = 0;
          break;
        }
    }
  }
  for (const pid_t g : groups)
    if (g > 0) ::kill(-g, SIGKILL);
  ::_exit(0);
}

// Starts the guard unless this process has one; -1 if it cannot (then there is no guard: the
// groups are still killed by a normal end, a first Ctrl-C's and a second's abort).
int guard_fd() {
  std::lock_guard<std::mutex> lock(g_guard_mutex);
  const pid_t self = ::getpid();
  if (g_guard_owner == self) return g_guard_fd;
  if (g_guard_fd >= 0) ::close(g_guard_fd);  // a fork's copy of its parent's end
  g_guard_fd = -1;
  g_guard_owner = self;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) guard(sv[1]);
  ::close(sv[1]);
  if (pid < 0) {
    ::close(sv[0]);
    return -1;
  }
  // The guard is not waited for (it ends after this process): let init reap it, not a zombie here.
  g_guard_fd = sv[0];
  return g_guard_fd;
}

void tell_guard(std::int32_t message) noexcept {
  try {
    const int fd = guard_fd();
    if (fd >= 0) ::send(fd, &message, sizeof message, MSG_NOSIGNAL);
  } catch (...) {  // std::mutex::lock's system_error: no guard
  }
}

}  // namespace

void add(pid_t group) noexcept {
  tell_guard(static_cast<std::int32_t>(group));
  for (auto& slot : g_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
}

void remove(pid_t group) noexcept {
  tell_guard(-static_cast<std::int32_t>(group));
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
