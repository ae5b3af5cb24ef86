// Loading a run configuration file (JSON or TOML) into a JSON object.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace optimist::cli {

/// The most a config, space or sweep file may hold: 16 MiB (a space of 100,000 categorical
/// choices is about 1 MiB).
inline constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;

/// Reads `path` as JSON (".json"), TOML (".toml") or, for any other extension, JSON and then
/// TOML. The top level must be an object/table. Throws InvalidArgument naming the path when the
/// file cannot be read or holds more than kMaxConfigBytes, and the path plus the parser's line and column when it is malformed;
/// `kind` says what the file is in those messages ("config file", "space file").
nlohmann::json load_config(const std::string& path, const std::string& kind = "config file");

/// The text of a config file -> JSON object: `format` "json", "toml" or "" (JSON, then TOML).
/// `source` names the input in messages (its path). Throws InvalidArgument as load_config.
nlohmann::json parse_config(const std::string& text, const std::string& source, const std::string& format,
                            const std::string& kind = "config file");

/// TOML document text -> JSON (tables become objects, dates and times strings). Throws
/// InvalidArgument with "line L, column C: what" on a syntax error; `source` names the input.
nlohmann::json toml_to_json(const std::string& text, const std::string& source);

}  // namespace optimist::cli
