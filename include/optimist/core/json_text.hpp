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
  if (!v.is_string()) return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Appended piece by piece: GCC 12's -Wrestrict misreads "'" + string + "'" here (Release, -Werror).
  std::string text(1, '\'');
  text += v.get_ref<const std::string&>();
  text += '\'';
  return text;
}

}  // namespace optimist
