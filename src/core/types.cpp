#include "optimist/core/types.hpp"

#include <charconv>

#include "optimist_revision.hpp"

#ifndef OPTIMIST_VERSION
#define OPTIMIST_VERSION "0.0.0"
#endif

namespace optimist {

namespace abi {
// The allocation mode this library was compiled in (types.hpp): programs compiled in the other
// one find nothing to link to.
#if EIGEN_MALLOC_ALREADY_ALIGNED || EIGEN_DEFAULT_ALIGN_BYTES == 0
extern const int library_allocates_eigen_with_plain_malloc = 1;
#else
extern const int library_allocates_eigen_with_eigen_aligned_malloc = 1;
#endif
}  // namespace abi

std::string to_string(Direction d) { return d == Direction::Maximize ? "maximize" : "minimize"; }

Direction parse_direction(const std::string& text) {
  if (text == "maximize" || text == "max") return Direction::Maximize;
  if (text == "minimize" || text == "min") return Direction::Minimize;
  throw InvalidArgument("unknown direction '" + text + "'; valid: maximize (or max), minimize (or min)");
}

std::string format_double(double v) {
  char buf[64];
  // Without a precision, to_chars writes the shortest text that reads back as v: 0.1, not 0.10000000000000001.
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}

const char* version() { return OPTIMIST_VERSION; }

const char* revision() { return OPTIMIST_REVISION; }

}  // namespace optimist
