#include "study/study_backends.hpp"

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
  std::string name = "t" + std::to_string(getpid()) + "_" + info->name();
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

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

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
