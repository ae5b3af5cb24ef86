// Objectives computed by an external program: a persistent child process that answers one JSON
// line per evaluation.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "optimist/core/objective.hpp"
#include "optimist/core/space.hpp"

namespace optimist {

/// The child misbehaved: it could not start, exited, printed a line that is not the expected
/// JSON, reported an error, or did not answer in time. The message says which, with the tail of
/// its stderr. The driver records it as a failed evaluation.
class ExternalProcessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExternalCommand {
  /// Program and arguments, run directly (no shell); the program is looked up on PATH when it
  /// has no '/'. split_command_line turns a typed command into this.
  std::vector<std::string> argv;
  /// Added to (or replacing in) the child's environment.
  std::map<std::string, std::string> env;
  /// Seconds to wait for one answer (the first includes the child's start-up); none: wait.
  std::optional<double> timeout_s;
  /// Copy the child's stderr to ours as it arrives. Either way its last lines go into errors.
  bool forward_stderr = false;
};

/// A child process started on the first request and kept for the next ones: each request is one
/// JSON line on its stdin, each answer one JSON line on its stdout. The child runs in its own
/// process group (a terminal's Ctrl-C reaches only the optimizer, which finishes the evaluation
/// in progress). After a failure (exit, garbage, timeout) the child is killed and the next
/// request starts a fresh one. A child that exits after an answer (one request per process) is
/// no failure: a request it read no byte of goes to a fresh child, once per request (a fresh
/// child that also exits before reading it fails the request). Thread-safe: requests are
/// serialized.
class JsonLineProcess {
 public:
  /// Throws InvalidArgument if argv is empty, the program is not found, is a directory or not
  /// executable, its #! interpreter is missing, an argument or an environment entry holds a NUL
  /// byte, an environment name is empty or holds '=', or timeout_s is not a finite number > 0.
  explicit JsonLineProcess(ExternalCommand command);
  /// Closes the child's stdin, gives it a moment to exit, then kills its process group.
  ~JsonLineProcess();
  JsonLineProcess(const JsonLineProcess&) = delete;
  JsonLineProcess& operator=(const JsonLineProcess&) = delete;

  /// Sends `message` (one line) and returns the answer line parsed as JSON. Throws
  /// ExternalProcessError, also for an empty answer line and for output left over from the
  /// previous request (a program answering twice); its message is valid UTF-8 (the program's raw
  /// bytes are escaped). The timeout covers sending the request, and starts again for a fresh
  /// child.
  nlohmann::json request(const nlohmann::json& message);

  /// How many times a child was started (1 in a healthy run of a program that loops over its
  /// requests, one per request for a program that exits after each answer).
  std::size_t starts() const;
  const ExternalCommand& command() const { return command_; }

 private:
  struct Child;
  void start();
  void stop_child(bool graceful);
  /// Stops a child that read none of the request (its stderr forwarded first, if asked).
  void retire_child();
  /// One attempt at `line` on the current child: the answer, or nullopt when it ended having
  /// read none of the request and may_retry (the child is then gone). `retried`: a second attempt.
  std::optional<nlohmann::json> exchange(const std::string& line, bool may_retry, bool retried);
  [[noreturn]] void fail(const std::string& what);

  ExternalCommand command_;
  std::string display_;  ///< the command as shown in messages
  mutable std::mutex mutex_;
  std::unique_ptr<Child> child_;
  std::size_t starts_ = 0;
};

/// Takes the next answer out of `buffer` (what the child printed so far): the first complete line,
/// parsed as JSON; nullopt while there is none. Throws ExternalProcessError for an empty line and
/// quoting a line that is not JSON, or when the buffer holds an unfinished line longer than 64 MiB.
std::optional<nlohmann::json> take_answer_line(std::string& buffer);

/// The value in an answer: {"y": number} or a bare number. {"error": "text"} and anything else
/// (missing or non-finite "y") throw ExternalProcessError quoting the answer.
double value_from_answer(const nlohmann::json& answer);

/// An Objective whose value at a user point x is asked of a persistent child: the request is
/// {"x": [...], "params": {name: value, ...}} (categorical parameters by choice name; see
/// Space::point_to_json) and the answer {"y": value} or {"error": "why"}. The child is started on
/// the first evaluation and shared by the Objective's copies.
Objective external_objective(ExternalCommand command, const Space& space, Direction direction,
                             std::string name = "external");

/// Splits a command typed as in a POSIX shell into argv (libc wordexp: quotes, backslashes,
/// $VARIABLES, ~ and globs; no command substitution, pipes or redirections). Throws
/// InvalidArgument naming the text.
std::vector<std::string> split_command_line(const std::string& text);

}  // namespace optimist
