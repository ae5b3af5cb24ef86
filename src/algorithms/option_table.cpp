#include "optimist/algorithms/option_table.hpp"

#include <charconv>
#include <cstdio>

namespace optimist {

namespace option_table_detail {

// The shortest text that reads back as x, as a config wrote it: 0.3, not 0.29999999999999999; 1, not 1.0.
std::string number_text(double x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

void out_of_range(const std::string& algorithm, const std::string& key, const std::string& value,
                  const std::string& range) {
  throw InvalidArgument(algorithm + ": option '" + key + "' must be " + range + ", got " + value);
}

}  // namespace option_table_detail

std::string NumberRange::describe() const {
  using option_table_detail::number_text;
  const bool has_lower = std::isfinite(lower), has_upper = std::isfinite(upper);
  if (has_lower && has_upper)
    return "in " + std::string(lower_open ? "(" : "[") + number_text(lower) + ", " + number_text(upper) +
           (upper_open ? ")" : "]");
  if (has_lower) return std::string(lower_open ? "> " : ">= ") + number_text(lower);
  if (has_upper) return std::string(upper_open ? "< " : "<= ") + number_text(upper);
  return "a finite number";
}

}  // namespace optimist
