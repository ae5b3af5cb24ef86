#include "cli/config.hpp"

#include <toml++/toml.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "optimist/core/json_text.hpp"
#include "optimist/core/types.hpp"

namespace optimist::cli {

namespace {

nlohmann::json node_to_json(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : *t) out[std::string(key.str())] = node_to_json(value);
    return out;
  }
  if (const auto* a = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& value : *a) out.push_back(node_to_json(value));
    return out;
  }
  if (const auto* v = node.as_integer()) return v->get();
  if (const auto* v = node.as_floating_point()) return v->get();
  if (const auto* v = node.as_boolean()) return v->get();
  if (const auto* v = node.as_string()) return v->get();
  // Dates and times have no JSON form; their TOML spelling keeps them readable.
  std::ostringstream text;
  if (const auto* v = node.as_date()) text << *v;
  else if (const auto* v = node.as_time()) text << *v;
  else if (const auto* v = node.as_date_time()) text << *v;
  return text.str();
}

std::string extension_of(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the id means nothing here.
std::string json_error(const nlohmann::json::exception& e) {
  std::string what = e.what();
  const auto end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

}  // namespace

nlohmann::json toml_to_json(const std::string& text, const std::string& source) {
  try {
    return node_to_json(toml::parse(text, source));
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw InvalidArgument("line " + std::to_string(begin.line) + ", column " +
                          std::to_string(begin.column) + ": " + std::string(e.description()));
  }
}

nlohmann::json load_config(const std::string& path, const std::string& kind) {
  const std::string unreadable = "cannot read " + kind + " '" + path + "': ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InvalidArgument(unreadable + "is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument(unreadable + std::strerror(errno));
  // At most kMaxConfigBytes + 1 bytes: /dev/zero, a FIFO that never ends or a huge file named by
  // mistake is refused, not read until memory runs out.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxConfigBytes && in.read(chunk, sizeof chunk).gcount() > 0)
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InvalidArgument(unreadable + "read error");
  if (text.size() > kMaxConfigBytes)
    throw InvalidArgument("the " + kind + " '" + path + "' is larger than " + std::to_string(kMaxConfigBytes >> 20) +
                          " MiB, the most a " + kind + " may hold; is it the file you meant?");
  const std::string ext = extension_of(path);
  return parse_config(text, path, ext == "json" || ext == "toml" ? ext : "", kind);
}

nlohmann::json parse_config(const std::string& text, const std::string& path, const std::string& ext,
                            const std::string& kind) {
  const std::string bad = "malformed " + kind + " '" + path + "': ";
  nlohmann::json j;
  if (ext == "json") {
    try {
      j = parse_json_rejecting_duplicate_keys(text, bad);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
      throw InvalidArgument(bad + json_error(e));
    }
  } else if (ext == "toml") {
    try {
      j = toml_to_json(text, path);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(bad + e.what());
    }
  } else {
    try {
      j = parse_json_rejecting_duplicate_keys(text, bad);
    } catch (const nlohmann::json::exception& json_e) {
      try {
        j = toml_to_json(text, path);
      } catch (const InvalidArgument& toml_e) {
        throw InvalidArgument(bad + "neither JSON (" + json_error(json_e) + ") nor TOML (" +
                              toml_e.what() + ")");
      }
    }
  }
  if (!j.is_object())
    throw InvalidArgument(bad + "the top level must be an object/table of settings");
  return j;
}

}  // namespace optimist::cli
