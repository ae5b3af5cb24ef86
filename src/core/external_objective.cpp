// An objective that is a program: one process per evaluation or a JSON-lines worker, with
// timeouts, signals and process groups. Above 400 lines: the POSIX process handling (spawn, poll,
// kill of the group, reaping) is one piece whose failure paths must be read together.
#include "optimist/core/external_objective.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/child_processes.hpp"
#include "core/group_sockets.hpp"
#include "core/text.hpp"
#include "optimist/core/json_text.hpp"

extern char** environ;

namespace optimist {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kStderrTail = 2000;          // bytes of the child's stderr kept for messages
constexpr std::size_t kMaxLine = 64u << 20;        // an answer longer than this is garbage
constexpr std::size_t kShownLine = 200;            // characters of a bad line quoted in a message
constexpr auto kExitGrace = std::chrono::milliseconds(1000);
constexpr int kExitCheckMs = 200;  // the longest wait between two checks of the program's exit
// A line printed right after an answer (a program answering twice) arrives microseconds later:
// the next request waits this long after the last answer for such a line before it is sent.
constexpr auto kAnswerSettle = std::chrono::milliseconds(5);
// A longer timeout is no timeout (a deadline beyond it would overflow the clock's nanoseconds).
constexpr double kMaxTimeout = 1e9;

std::string errno_text(int err) { return std::strerror(err); }

/// At most about n bytes of printable(s), cut between characters.
std::string shorten(const std::string& s, std::size_t n = kShownLine) {
  const std::string p = printable(s);
  if (p.size() <= n) return p;
  std::size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(p[cut]) & 0xC0) == 0x80) --cut;
  return p.substr(0, cut) + "...";
}

/// Why `path` cannot be run, or "" if it can (the up-front check for a clear error).
std::string why_not_runnable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "not found";
  if (S_ISDIR(st.st_mode)) return "a directory, not a program";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return "not executable (chmod +x it, or name its interpreter first)";
  return "";
}

bool is_executable_file(const std::string& path) { return why_not_runnable(path).empty(); }

/// A script's #! interpreter that cannot run: spawning it fails with a bare "No such file or
/// directory", as if the script were missing. "" if fine or not a script.
std::string bad_interpreter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string first(256, '\0');
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(in.gcount()));
  if (first.rfind("#!", 0) != 0) return "";
  const std::size_t begin = first.find_first_not_of(" \t", 2);
  if (begin == std::string::npos) return "";
  const std::string interpreter = first.substr(begin, first.find_first_of(" \t\n", begin) - begin);
  if (interpreter.empty() || is_executable_file(interpreter)) return "";
  const bool crlf = interpreter.back() == '\r';
  return "'" + printable(path) + "' names the interpreter '" + printable(interpreter) + "' on its #! line, which is " +
         (crlf ? "not found (the file has Windows line ends: convert it with dos2unix)"
               : why_not_runnable(interpreter));
}

/// The program as posix_spawnp would find it, or "" (the up-front check for a clear error).
std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    begin = end + 1;
  }
  return "";
}

std::string display_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return shorten(s, 120);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                  strsignal(WTERMSIG(status)) + ")";
  return "stopped";
}

}  // namespace

/// One running child and the parent's ends of its channels.
struct JsonLineProcess::Child {
  pid_t pid = -1;
  int in = -1;        // socket: the child's stdin (a socket, so writes never raise SIGPIPE)
  int in_child = -1;  // the child's end of it, kept to see how much of a request it has read
  int out = -1;       // socket: the child's stdout
  int err = -1;       // pipe: the child's stderr
  bool out_closed = false;
  std::string out_buffer;
  std::string err_tail;
  std::optional<Clock::time_point> answered_at;  // when its last answer was read
  bool reaped = false;
  int status = 0;
  int stop_signal = 0;  // the signal that last stopped it

  ~Child() {
    if (pid > 0) child_processes::remove(pid);
    for (const int fd : {in, in_child, out, err})
      if (fd >= 0) ::close(fd);
  }

  /// Bytes sent to its stdin that no process has read yet.
  std::size_t unread_input() const {
    int n = 0;
    return ::ioctl(in_child, FIONREAD, &n) == 0 && n > 0 ? static_cast<std::size_t>(n) : 0;
  }

  void keep_stderr(const char* data, std::size_t n, bool forward) {
    if (forward) {
      const ssize_t ignored = ::write(STDERR_FILENO, data, n);
      (void)ignored;
    }
    err_tail.append(data, n);
    if (err_tail.size() > 2 * kStderrTail) err_tail.erase(0, err_tail.size() - kStderrTail);
  }

  /// Drains what stderr holds now (non-blocking).
  void drain_stderr(bool forward) {
    if (err < 0) return;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(err, buf, sizeof buf);
      if (n > 0) {
        keep_stderr(buf, static_cast<std::size_t>(n), forward);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {
        ::close(err);
        err = -1;
      }
      return;
    }
  }

  /// Appends what stdout holds now (non-blocking); stops at end of file.
  void read_available_stdout() {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(out, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        out_buffer.append(buf, static_cast<std::size_t>(n));
        if (out_buffer.size() > kMaxLine) return;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      out_closed = out_closed || n == 0;
      return;
    }
  }

  bool try_reap(bool block) {
    if (reaped) return true;
    for (;;) {
      int st = 0;
      const pid_t r = ::waitpid(pid, &st, block ? 0 : WNOHANG | WUNTRACED);
      if (r == pid && WIFSTOPPED(st)) {
        stop_signal = WSTOPSIG(st);
        return false;
      }
      if (r == pid) {
        status = st;
        return reaped = true;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return reaped = true;  // not our child any more (should not happen)
      return false;
    }
  }

  bool wait_exit(std::chrono::milliseconds grace) {
    const auto until = Clock::now() + grace;
    while (!try_reap(false)) {
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  std::string last_stderr() const {
    std::size_t begin = err_tail.size() > kStderrTail ? err_tail.size() - kStderrTail : 0;
    while (begin > 0 && begin < err_tail.size() && (static_cast<unsigned char>(err_tail[begin]) & 0xC0) == 0x80) ++begin;
    std::string tail = printable(std::string_view(err_tail).substr(begin), /*keep_lines=*/true);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ')) tail.pop_back();
    return tail;
  }
};

JsonLineProcess::JsonLineProcess(ExternalCommand command) : command_(std::move(command)) {
  if (command_.argv.empty() || command_.argv[0].empty())
    throw InvalidArgument("external objective: the command is empty; give a program and its arguments");
  display_ = display_command(command_.argv);
  // A NUL byte would silently cut the C string the program gets; '=' in a name would set another
  // variable ("A=B" with "x" sets A to "B=x").
  for (const auto& arg : command_.argv)
    if (arg.find('\0') != std::string::npos)
      throw InvalidArgument("external objective: argument '" + printable(arg) + "' contains a NUL byte");
  for (const auto& [name, value] : command_.env) {
    if (name.empty() || name.find_first_of(std::string("=\0", 2)) != std::string::npos)
      throw InvalidArgument("external objective: environment variable name '" + printable(name) +
                            "' is empty or contains '=' or a NUL byte");
    if (value.find('\0') != std::string::npos)
      throw InvalidArgument("external objective: environment variable " + printable(name) + " = '" + printable(value) +
                            "' contains a NUL byte");
  }
  const std::string& program = command_.argv[0];
  const std::string found = find_program(program);
  if (found.empty())
    throw InvalidArgument("external objective: program '" + printable(program) + "' " +
                          (program.find('/') == std::string::npos ? "not found on PATH" : "is " + why_not_runnable(program)));
  if (const std::string why = bad_interpreter(found); !why.empty())
    throw InvalidArgument("external objective: program " + why);
  if (command_.timeout_s && !(*command_.timeout_s > 0.0 && std::isfinite(*command_.timeout_s)))
    throw InvalidArgument("external objective: timeout must be a positive number of seconds, got " +
                          format_double(*command_.timeout_s));
}

JsonLineProcess::~JsonLineProcess() { stop_child(/*graceful=*/true); }

std::size_t JsonLineProcess::starts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return starts_;
}

void JsonLineProcess::start() {
  auto child = std::make_unique<Child>();  // closes what it holds if this throws
  // Its stdin apart from its stdout: the child's end of stdin stays open here, to see whether it
  // read a request before exiting (and sending to it never fails once it has exited).
  int in[2], out[2], ep[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
    throw ExternalProcessError("external objective '" + display_ + "': socketpair failed: " + errno_text(errno));
  child->in = in[0];
  child->in_child = in[1];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) != 0)
    throw ExternalProcessError("external objective '" + display_ + "': socketpair failed: " + errno_text(errno));
  child->out = out[0];
  if (::pipe2(ep, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(out[1]);
    throw ExternalProcessError("external objective '" + display_ + "': pipe failed: " + errno_text(e));
  }
  child->err = ep[0];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, ep[1], STDERR_FILENO);
  // Nothing else of ours reaches the program: the trace we write, a study's database, the other
  // objectives' sockets (open without close-on-exec, the trace's descriptor was writable there).
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGXFSZ);  // the CLI ignores it (its writes fail with a message instead)
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // own process group: timeouts kill it whole
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  // Environment: ours, with the command's entries replacing or added.
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (!command_.env.count(key)) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : command_.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command_.argv;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  ::close(ep[1]);
  if (rc != 0)
    throw ExternalProcessError("external objective '" + display_ + "': cannot start '" + printable(command_.argv[0]) +
                               "': " + errno_text(rc) +
                               (rc == ENOEXEC ? " (a script needs a first line '#!' naming its interpreter)" : ""));
  ::fcntl(child->err, F_SETFL, ::fcntl(child->err, F_GETFL) | O_NONBLOCK);
  // Non-blocking: a program that does not read its request must not block us past the timeout.
  // (Never in_child: it shares the file status flags of the child's stdin.)
  ::fcntl(child->in, F_SETFL, ::fcntl(child->in, F_GETFL) | O_NONBLOCK);
  ::fcntl(child->out, F_SETFL, ::fcntl(child->out, F_GETFL) | O_NONBLOCK);
  child->pid = pid;
  child_processes::add(pid);
  child_ = std::move(child);
  ++starts_;
}

void JsonLineProcess::stop_child(bool graceful) {
  if (!child_) return;
  Child& c = *child_;
  if (!c.reaped) {
    if (graceful) {
      ::shutdown(c.in, SHUT_WR);  // EOF on its stdin: a well-behaved child exits
      if (!c.wait_exit(kExitGrace)) {
        ::kill(-c.pid, SIGTERM);
        if (!c.wait_exit(kExitGrace)) ::kill(-c.pid, SIGKILL);
      }
    } else {
      ::kill(-c.pid, SIGKILL);
    }
    c.try_reap(true);
  }
  // What it started and left behind in its group (a process holding its stdout) goes too.
  ::kill(-c.pid, SIGKILL);
  child_.reset();
}

void JsonLineProcess::fail(const std::string& what) {
  std::string msg = "external objective '" + display_ + "' " + what;
  if (child_) {
    // Collect what it said on stderr before dying (bounded: a grandchild may hold the pipe).
    const auto until = Clock::now() + std::chrono::milliseconds(200);
    while (child_->err >= 0 && Clock::now() < until) {
      pollfd p{child_->err, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) child_->drain_stderr(command_.forward_stderr);
    }
    const std::string tail = child_->last_stderr();
    stop_child(/*graceful=*/false);
    if (!tail.empty()) msg += "; its stderr ends with: " + tail;
  }
  throw ExternalProcessError(printable(msg, /*keep_lines=*/true));
}

nlohmann::json JsonLineProcess::request(const nlohmann::json& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (child_) {
    // A line printed after the last answer (a program answering twice) would be taken as this
    // request's answer and shift every value onto the wrong point: refuse it instead. A request
    // sent right after an answer first gives such a line time to arrive (the probe of stop 60: an
    // objective printing a second line right after each answer had 19 of 20 values shifted).
    if (child_->answered_at) {
      for (auto now = Clock::now(); now < *child_->answered_at + kAnswerSettle; now = Clock::now()) {
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(*child_->answered_at + kAnswerSettle - now);
        pollfd p{child_->out, POLLIN, 0};
        const timespec wait{0, static_cast<long>(left.count()) * 1000};
        if (::ppoll(&p, 1, &wait, nullptr) != 0) break;  // output (or an error): looked at below
      }
    }
    child_->read_available_stdout();
    if (child_->out_buffer.find_first_not_of(" \t\r\n") != std::string::npos)
      fail("printed more than one line for one request (the extra output: '" + shorten(child_->out_buffer) +
           "'); answer each request with exactly one line");
    child_->out_buffer.clear();
  }
  bool may_retry = true;
  if (child_ && (child_->out_closed || child_->try_reap(false))) {
    // It exited after its last answer (one evaluation per process, or killed while idle): it
    // never saw this request, which a fresh process gets. That is this request's one retry.
    retire_child();
    may_retry = false;
  }
  const std::string line = message.dump() + "\n";
  for (bool retried = false;; retried = true) {
    if (!child_) start();
    if (auto answer = exchange(line, may_retry, retried)) return std::move(*answer);
    may_retry = false;  // the child read none of the request and is gone: once more, on a fresh one
  }
}

void JsonLineProcess::retire_child() {
  if (child_) child_->drain_stderr(command_.forward_stderr);
  stop_child(/*graceful=*/false);
}

std::optional<nlohmann::json> JsonLineProcess::exchange(const std::string& line, bool may_retry, bool retried) {
  Child& c = *child_;
  const auto exited = [&c]() {
    c.wait_exit(kExitGrace);
    return c.reaped ? describe_status(c.status) : std::string("closed its stdout");
  };
  const auto partial = [&c]() {
    return c.out_buffer.empty() ? std::string() : " (after printing '" + shorten(c.out_buffer) + "')";
  };

  // The timeout covers sending too: a program that never reads a large request blocked the send.
  const bool timed = command_.timeout_s.has_value();
  const Clock::time_point deadline =
      timed ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(std::min(*command_.timeout_s, kMaxTimeout)))
            : Clock::time_point::max();
  std::size_t sent = 0;
  bool scan = false;  // whether the buffer may hold a complete line (a long line is scanned once)
  Clock::time_point next_input_check = Clock::now() + std::chrono::milliseconds(500);
  // It ended without answering. If it read none of the request (a program exiting after each
  // answer, still exiting when the request was sent) it evaluated nothing: true, to send the
  // request to a fresh process, once. Having read any of it, it failed the evaluation.
  const auto ended = [&](const std::string& how) -> bool {
    bool read_none = false;
    if (c.out_buffer.empty()) {
      ::kill(-c.pid, SIGKILL);  // its whole group: nothing reads the request after the check
      c.try_reap(true);
      read_none = c.unread_input() >= sent;  // FIFO: bytes left of an older request come first
    }
    if (read_none && may_retry) {
      retire_child();
      return true;
    }
    fail(how + (sent < line.size() || read_none ? " before reading the request" : " without answering") +
         (read_none && retried ? ", also when started afresh for it" : "") + partial());
  };
  for (;;) {
    if (sent < line.size()) {
      const ssize_t n = ::send(c.in, line.data() + sent, line.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        scan = sent == line.size();
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        fail(errno == EPIPE || errno == ECONNRESET ? exited() + " before reading the request"
                                                   : "could not be sent a request: " + errno_text(errno));
    }
    const bool sending = sent < line.size();
    // Answer lines once the whole request is out (what it printed before is looked at then).
    if (scan && !sending) {
      std::optional<nlohmann::json> answer;
      try {
        answer = take_answer_line(c.out_buffer);
      } catch (const ExternalProcessError& e) {
        fail(e.what());
      }
      if (answer) {
        c.answered_at = Clock::now();
        return answer;
      }
      scan = false;
    } else if (c.out_buffer.size() > kMaxLine) {
      fail("printed a line longer than " + std::to_string(kMaxLine) + " bytes");
    }

    // Its exit, checked every round: a process it started may hold its stdout open (no end of
    // file), and one that keeps printing to stderr kept every poll from timing out.
    if (c.try_reap(false)) {
      c.read_available_stdout();
      if (!sending && c.out_buffer.find('\n') != std::string::npos) {
        scan = true;
        continue;
      }
      if (ended(describe_status(c.status))) return std::nullopt;
    }
    // Alive but with its stdin closed (closed after its last answer, say) and no process of its
    // holding it: nothing will ever read the request. Looked at while none of it has been read,
    // after half a second and then every second (the program may be slow to start), so the request
    // goes to a fresh process once, as after an exit, instead of waiting for the timeout (forever
    // without one): this process's own end of the stdin kept the kernel from saying so (EPIPE).
    if (sent > 0 && c.out_buffer.empty() && Clock::now() >= next_input_check) {
      next_input_check = Clock::now() + std::chrono::seconds(1);
      struct stat st {};
      if (c.unread_input() >= sent && ::fstat(c.in_child, &st) == 0 && !group_holds_socket(c.pid, st.st_ino)) {
        if (ended("closed its stdin")) return std::nullopt;
      }
    }
    // Stopped for touching the terminal (it runs in a background process group): nobody would
    // ever continue it. A plain SIGSTOP is someone's pause and is waited out.
    if (c.stop_signal == SIGTTIN || c.stop_signal == SIGTTOU)
      fail(std::string("was stopped by ") +
           (c.stop_signal == SIGTTIN ? "SIGTTIN: it tried to read" : "SIGTTOU: it tried to write to") +
           " the terminal, which an objective program does not have (it reads its requests on stdin)");

    int wait_ms = kExitCheckMs;
    if (timed) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0)
        fail((sending ? "did not read its request within " : "did not answer within ") +
             format_double(*command_.timeout_s) + " s (timeout); it was killed" + partial());
      wait_ms = static_cast<int>(std::min<long long>(left + 1, kExitCheckMs));
    }
    // While sending, what it prints is read too: neither side may block the other on a full buffer.
    pollfd fds[3] = {{c.out, POLLIN, 0}, {c.err, POLLIN, 0}, {sending ? c.in : -1, POLLOUT, 0}};
    const int ready = ::poll(fds, 3, wait_ms);  // a closed stderr (-1) is skipped
    if (ready < 0 && errno != EINTR) fail("could not be waited for: " + errno_text(errno));
    if (ready <= 0) continue;
    if (c.err >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) c.drain_stderr(command_.forward_stderr);
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[65536];
      const ssize_t n = ::read(c.out, buf, sizeof buf);
      if (n > 0) {
        c.out_buffer.append(buf, static_cast<std::size_t>(n));
        scan = scan || std::memchr(buf, '\n', static_cast<std::size_t>(n)) != nullptr;
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        if (ended(exited())) return std::nullopt;
      }
    }
  }
}

namespace {

/// Whether a line names a non-finite number as C, Python or JavaScript print it (nan, inf, NaN,
/// Infinity), as a whole word.
bool names_non_finite(const std::string& line) {
  std::string word;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    const char ch = i < line.size() ? line[i] : ' ';
    if (std::isalpha(static_cast<unsigned char>(ch))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      continue;
    }
    if (word == "nan" || word == "inf" || word == "infinity") return true;
    word.clear();
  }
  return false;
}

}  // namespace

std::optional<nlohmann::json> take_answer_line(std::string& buffer) {
  std::size_t eol;
  while ((eol = buffer.find('\n')) != std::string::npos) {
    std::string answer = buffer.substr(0, eol);
    buffer.erase(0, eol + 1);
    if (!answer.empty() && answer.back() == '\r') answer.pop_back();
    // A blank answer is a protocol error, not noise to skip: the program would wait for the next
    // request while optimist waited for an answer.
    if (answer.find_first_not_of(" \t") == std::string::npos)
      throw ExternalProcessError("printed an empty line instead of an answer");
    // nlohmann's parser stops at a NUL byte: "3.5\0garbage" was read as 3.5.
    if (answer.find('\0') != std::string::npos)
      throw ExternalProcessError("printed a NUL byte in its answer: '" + shorten(answer) + "'");
    nlohmann::json j;
    try {
      // {"y": 1, "y": 2} is refused, as config files refuse it: which value was meant is not known.
      j = parse_json_rejecting_duplicate_keys(answer);
    } catch (const InvalidArgument& e) {
      throw ExternalProcessError("printed an answer in which " + std::string(e.what()) + ": '" + shorten(answer) + "'");
    } catch (const nlohmann::json::exception& e) {  // a parse_error, or out_of_range for 1e400
      const std::string hint = std::strstr(e.what(), "number overflow") != nullptr
                                   ? " (a number beyond the range of a double)"
                               : names_non_finite(answer) ? " (NaN and Infinity are not JSON numbers; report a failure as {\"error\": ...})"
                                                          : "";
      throw ExternalProcessError("printed a line that is not JSON" + hint + ": '" + shorten(answer) + "'");
    }
    return j;
  }
  if (buffer.size() > kMaxLine) throw ExternalProcessError("printed a line longer than " + std::to_string(kMaxLine) + " bytes");
  return std::nullopt;
}

double value_from_answer(const nlohmann::json& answer) {
  if (answer.is_number()) {
    const double v = answer.get<double>();
    if (std::isfinite(v)) return v;
  } else if (answer.is_object()) {
    // "error": null (or false, or "") is a result dict's way of saying there was none.
    if (const auto e = answer.find("error"); e != answer.end() && !e->is_null() && *e != false && *e != "")
      throw ExternalProcessError("the objective reported an error: " +
                                 printable(e->is_string() ? e->get<std::string>() : e->dump(), /*keep_lines=*/true));
    if (const auto y = answer.find("y"); y != answer.end()) {
      if (y->is_number() && std::isfinite(y->get<double>())) return y->get<double>();
      throw ExternalProcessError("the objective answered a 'y' that is not a finite number: " + shorten(answer.dump()));
    }
  }
  throw ExternalProcessError("the objective answered " + shorten(answer.dump()) +
                             "; expected {\"y\": number} or {\"error\": \"text\"}");
}

Objective external_objective(ExternalCommand command, const Space& space, Direction direction, std::string name) {
  if (space.empty()) throw InvalidArgument("external objective: the space has no parameters");
  auto process = std::make_shared<JsonLineProcess>(std::move(command));
  Objective obj;
  obj.direction = direction;
  obj.name = std::move(name);
  obj.function = [process, space](const Vector& x) {
    space.validate(x);
    const nlohmann::json values = space.point_to_json(x);
    nlohmann::json params = nlohmann::json::object();  // inactive conditional parameters left out
    const std::vector<bool> active = space.active(x);
    for (std::size_t i = 0; i < space.dim(); ++i)
      if (active[i]) params[space[i].name] = values[i];
    // "x": numbers only, for programs that want a vector; an integer parameter's value and a
    // categorical one's choice index are written as integers, so they can index a list.
    nlohmann::json raw = nlohmann::json::array();
    for (std::size_t i = 0; i < space.dim(); ++i) {
      if (space[i].kind == ParameterKind::Continuous) raw.push_back(x[static_cast<Eigen::Index>(i)]);
      else raw.push_back(static_cast<std::int64_t>(x[static_cast<Eigen::Index>(i)]));
    }
    return value_from_answer(process->request({{"x", raw}, {"params", params}}));
  };
  return obj;
}

std::vector<std::string> split_command_line(const std::string& text) {
  if (text.find_first_not_of(" \t\n") == std::string::npos)
    throw InvalidArgument("the objective command is empty");
  wordexp_t words;
  const int rc = ::wordexp(text.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF);
  if (rc != 0) {
    if (rc == WRDE_NOSPACE) ::wordfree(&words);
    const char* why = rc == WRDE_BADCHAR  ? "an unquoted |, &, ;, <, >, (, ), { or } (no shell runs it; quote it, "
                                            "or use sh -c '...')"
                      : rc == WRDE_CMDSUB ? "command substitution, which is not allowed"
                      : rc == WRDE_BADVAL ? "an undefined variable"
                      : rc == WRDE_SYNTAX ? "a syntax error (unbalanced quotes?)"
                                          : "an error";
    throw InvalidArgument("cannot split the objective command '" + text + "': it has " + why);
  }
  std::vector<std::string> argv(words.we_wordv, words.we_wordv + words.we_wordc);
  ::wordfree(&words);
  if (argv.empty()) throw InvalidArgument("the objective command '" + text + "' has no program");
  return argv;
}

}  // namespace optimist
