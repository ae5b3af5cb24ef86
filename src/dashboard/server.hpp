// `optimist dashboard`'s HTTP server (cpp-httplib): the JSON API under /api/ and the page's
// static files, read-only, on 127.0.0.1 unless told otherwise.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "dashboard/api.hpp"
#include "dashboard/study_source.hpp"

namespace optimist::dashboard {

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< another address only when the user says so (--host)
  int port = 8080;                 ///< 0: any free port
  std::filesystem::path static_dir;
  bool log_requests = false;  ///< one line per request on stderr, with its server time
  ApiOptions api;
};

class Server {
 public:
  Server(StudySource& source, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds host:port and returns the port (the one chosen when port is 0). Throws InvalidArgument
  /// naming the address when it cannot be bound.
  int bind();
  /// Answers requests until stop() is called (from any thread).
  void serve();
  void stop();
  /// Answers one HTTP request given as its raw bytes exactly as a connection would (the same
  /// screening and handlers, without a socket) and returns the raw response; tests and the fuzz
  /// target use it. Needs no bind().
  std::string answer_raw(const std::string& request);

  /// Whether `host` is a loopback address or name (127.0.0.0/8, ::1, localhost).
  static bool is_loopback(const std::string& host);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace optimist::dashboard
