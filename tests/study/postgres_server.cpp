#include "study/postgres_server.hpp"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pqxx/pqxx>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace optimist::testing {

namespace fs = std::filesystem;

namespace {

std::string postgres_bin() {
  std::string best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec))
    if (fs::exists(e.path() / "bin" / "initdb") && e.path().string() > best) best = e.path().string();
  if (best.empty())
    throw std::runtime_error("PostgreSQL server programs not found under /usr/lib/postgresql/*/bin "
                             "(install postgresql with scripts/install-deps.sh)");
  return best + "/bin";
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot find a free port on 127.0.0.1");
  const int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

PostgresServer::PostgresServer() : bin_(postgres_bin()), owned_(true) {
  std::string pattern = (fs::temp_directory_path() / "optimist-pg-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder " + pattern);
  folder_ = pattern;
  if (geteuid() == 0) {
    const passwd* pw = getpwnam("postgres");
    if (!pw) throw std::runtime_error("running as root and there is no 'postgres' user to run the server as");
    if (chown(folder_.c_str(), pw->pw_uid, pw->pw_gid) != 0) throw std::runtime_error("cannot chown " + folder_.string());
  }
  port_ = free_port();
  std::ofstream(folder_ / "port") << port_;
  try {
    run_as_owner("'" + bin_ + "/initdb' -D '" + (folder_ / "data").string() +
                 "' -A trust -U optimist -E UTF8 --no-sync > '" + (folder_ / "initdb.log").string() + "' 2>&1");
  } catch (const std::exception& e) {
    const std::string log = slurp(folder_ / "initdb.log");
    destroy();
    throw std::runtime_error(std::string(e.what()) + "\n" + log);
  }
  start();
}

PostgresServer::PostgresServer(const fs::path& folder) : folder_(folder), bin_(postgres_bin()) {
  std::ifstream in(folder_ / "port");
  if (!(in >> port_)) throw std::runtime_error("no PostgreSQL test server in " + folder_.string() + " (missing port file)");
}

PostgresServer::~PostgresServer() {
  if (owned_) destroy();
}

void PostgresServer::run_as_owner(const std::string& command) const {
  const std::string full = geteuid() == 0 ? "runuser -u postgres -- sh -c \"" + command + "\"" : command;
  const int status = std::system(full.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("command failed: " + full);
}

void PostgresServer::start() {
  // fsync off: a test server holds nothing worth a disk flush (a killed *client* loses nothing
  // either way); the socket lives in our folder, the server listens on 127.0.0.1 only.
  const std::string log = (folder_ / "server.log").string();
  try {
    run_as_owner("'" + bin_ + "/pg_ctl' -D '" + (folder_ / "data").string() + "' -l '" + log + "' -w -t 60 -o '-p " +
                 std::to_string(port_) + " -k " + folder_.string() +
                 " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200' start > /dev/null");
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("the PostgreSQL test server did not start: ") + e.what() + "\n" + slurp(log));
  }
}

void PostgresServer::stop() {
  run_as_owner("'" + bin_ + "/pg_ctl' -D '" + (folder_ / "data").string() + "' -m fast -w -t 60 stop > /dev/null");
}

void PostgresServer::destroy() {
  if (folder_.empty()) return;
  if (fs::exists(folder_ / "data" / "postmaster.pid")) {
    try {
      stop();
    } catch (const std::exception&) {
    }
  }
  std::error_code ec;
  fs::remove_all(folder_, ec);
  folder_.clear();
}

std::string PostgresServer::create_database(const std::string& name) {
  const std::string base = "postgresql://optimist@127.0.0.1:" + std::to_string(port_) + "/";
  pqxx::connection c(base + "postgres");
  pqxx::nontransaction tx(c);
  tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name));
  tx.exec("CREATE DATABASE " + tx.quote_name(name));
  return base + name;
}

PostgresServer& shared_postgres() {
  static std::unique_ptr<PostgresServer> server = [] {
    if (const char* file = std::getenv("OPTIMIST_TEST_POSTGRES"); file && *file) {
      std::ifstream in(file);
      std::string folder;
      if (!std::getline(in, folder) || folder.empty())
        throw std::runtime_error(std::string("the ctest fixture recorded no PostgreSQL server in ") + file +
                                 " (did postgres_server_start fail?)");
      return std::make_unique<PostgresServer>(fs::path(folder));
    }
    return std::make_unique<PostgresServer>();
  }();
  return *server;
}

}  // namespace optimist::testing
