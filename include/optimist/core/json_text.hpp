// JSON text as optimist reads it: how a value read from a config, sweep or space file is quoted in
// an error message, and a parser that refuses a key named twice.
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

/// nlohmann::json::parse(text), refusing an object that names a key twice: JSON allows it and
/// nlohmann keeps the last value, so a config file naming "budget" twice (an edited copy) or an
/// objective answering {"y": 1, "y": 2} would be resolved silently. Throws InvalidArgument
/// `bad` + "the key 'k' appears twice in one object"; a syntax error is nlohmann's exception.
nlohmann::json parse_json_rejecting_duplicate_keys(const std::string& text, const std::string& bad = "");

}  // namespace optimist
