// A throwaway PostgreSQL server for tests: initdb into a temporary folder, `postgres` on a free
// port of 127.0.0.1 run as an unprivileged user (the `postgres` system user when we are root:
// the server refuses to run as root), stopped and removed by stop() or the destructor.
#pragma once

#include <filesystem>
#include <string>

namespace optimist::testing {

class PostgresServer {
 public:
  /// Starts a server; throws std::runtime_error with the reason (and the server's log) if it
  /// cannot.
  PostgresServer();
  /// Adopts a server started by another process (the ctest fixture) from its folder.
  explicit PostgresServer(const std::filesystem::path& folder);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  /// postgresql://optimist@127.0.0.1:PORT/NAME after creating database NAME.
  std::string create_database(const std::string& name);
  int port() const { return port_; }
  const std::filesystem::path& folder() const { return folder_; }

  /// Stops the server (fast shutdown: connections are cut) and starts it again on the same port.
  void stop();
  void start();
  /// Stops the server and removes its folder (the destructor does it for a server it started).
  void destroy();
  /// The destructor leaves the server running (another process will destroy() it).
  void release() { owned_ = false; }

 private:
  void run_as_owner(const std::string& command) const;
  std::filesystem::path folder_;
  std::string bin_;
  int port_ = 0;
  bool owned_ = false;
};

/// The server the tests of this process share: the ctest fixture's (OPTIMIST_TEST_POSTGRES names
/// the file holding its folder) or else one started on first use and removed at exit.
PostgresServer& shared_postgres();

}  // namespace optimist::testing
