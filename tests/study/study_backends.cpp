#include "study/study_backends.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "study/postgres_server.hpp"

namespace optimist::testing {

std::vector<std::string> study_backends() { return {"sqlite", "postgresql"}; }

std::string fresh_storage_url(const std::string& backend) {
  if (backend == "sqlite") return "sqlite:///" + (study_test_dir() / "study.db").string();
  if (backend != "postgresql") {
    ADD_FAILURE() << "unknown test backend " << backend;
    return "";
  }
  // One database per test, named after it (PostgreSQL names: lower case, at most 63 bytes).
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "t";  // appended: "t" + std::to_string(...) trips GCC 12's -Wrestrict false positive
  name += std::to_string(getpid()) + "_" + info->name();
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  name = name.substr(0, 63);
  try {
    return shared_postgres().create_database(name);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the PostgreSQL test server is not available: " << e.what();
    throw;
  }
}

}  // namespace optimist::testing

namespace optimist::testing {

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}
}  // namespace

CliRun run_optimist(const std::string& args, const std::filesystem::path& cwd) {
  static int calls = 0;
  const auto out = cwd / ("stdout." + std::to_string(++calls)), err = cwd / ("stderr." + std::to_string(calls));
  const std::string cmd = "cd '" + cwd.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' " + args + " > '" +
                          out.string() + "' 2> '" + err.string() + "' < /dev/null";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace optimist::testing

namespace optimist::testing {

Process::Process(const std::string& command, const std::filesystem::path& cwd, const std::string& log_name)
    : out_(cwd / (log_name + ".out")), err_(cwd / (log_name + ".err")) {
  pid_ = fork();
  if (pid_ == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(127);
    if (!freopen(out_.c_str(), "w", stdout) || !freopen(err_.c_str(), "w", stderr) || !freopen("/dev/null", "r", stdin)) _exit(127);
    const std::string exec = "exec " + command;
    execl("/bin/sh", "sh", "-c", exec.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid_ < 0) throw std::runtime_error("fork failed");
}

Process::~Process() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    wait();
  }
}

void Process::kill9() {
  if (!status_) ::kill(pid_, SIGKILL);
}

int Process::wait() {
  if (!status_) {
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
  }
  return *status_;
}

bool Process::running() {
  if (status_) return false;
  int st = 0;
  const int r = waitpid(pid_, &st, WNOHANG);
  if (r == 0) return true;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
  return false;
}

std::string Process::err() const { return slurp(err_); }
std::string Process::out() const { return slurp(out_); }

std::size_t env_size(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<std::size_t>(std::stoull(v)) : fallback;
}

bool full_size_reliability() { return env_size("OPTIMIST_STUDY_FULL", 0) != 0; }

}  // namespace optimist::testing
