#include "unit/study_backends.hpp"

namespace optimist::testing {

std::vector<std::string> study_backends() { return {"sqlite"}; }

std::string fresh_storage_url(const std::string& backend) {
  if (backend == "sqlite") return "sqlite:///" + (study_test_dir() / "study.db").string();
  ADD_FAILURE() << "unknown test backend " << backend;
  return "";
}

}  // namespace optimist::testing
