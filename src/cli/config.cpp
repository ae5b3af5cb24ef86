#include "cli/config.hpp"

#include <toml++/toml.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

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
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InvalidArgument(unreadable + "read error");
  const std::string ext = extension_of(path);
  return parse_config(buf.str(), path, ext == "json" || ext == "toml" ? ext : "", kind);
}

// JSON allows a key twice and nlohmann keeps the last value: a config file naming "budget" twice
// is a mistake (an edited copy) to name, not to resolve silently.
nlohmann::json parse_json_rejecting_duplicate_keys(const std::string& text, const std::string& bad) {
  std::vector<std::set<std::string>> keys;  // the keys seen in each open object
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    else if (event == Event::object_end && !keys.empty()) keys.pop_back();
    else if (event == Event::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      throw InvalidArgument(bad + "the key '" + parsed.get<std::string>() + "' appears twice in one object");
    return true;
  };
  return nlohmann::json::parse(text, check);
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
