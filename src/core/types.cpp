#include "optimist/core/types.hpp"

#include <sstream>

#ifndef OPTIMIST_VERSION
#define OPTIMIST_VERSION "0.0.0"
#endif

namespace optimist {

std::string to_string(Direction d) { return d == Direction::Maximize ? "maximize" : "minimize"; }

Direction parse_direction(const std::string& text) {
  if (text == "maximize" || text == "max") return Direction::Maximize;
  if (text == "minimize" || text == "min") return Direction::Minimize;
  throw InvalidArgument("unknown direction '" + text + "'; valid: maximize (or max), minimize (or min)");
}

std::string format_double(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

const char* version() { return OPTIMIST_VERSION; }

}  // namespace optimist
