// How a value read from a config, sweep or space file is quoted in an error message.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "optimist/core/types.hpp"

namespace optimist {

/// 'text' for a string, the number for a number (a TOML nan or inf as "nan"/"inf": JSON would
/// write them as null), JSON otherwise.
inline std::string quoted_value(const nlohmann::json& v) {
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return format_double(v.get<double>());
  return v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace optimist
