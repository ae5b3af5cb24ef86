#include "optimist/algorithms/option_table.hpp"

#include <cstdio>

namespace optimist {

namespace option_table_detail {

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
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
