#include "optimist/core/json_text.hpp"

#include <set>
#include <vector>

#include "core/text.hpp"

namespace optimist {

nlohmann::json parse_json_rejecting_duplicate_keys(const std::string& text, const std::string& bad) {
  std::vector<std::set<std::string>> keys;  // the keys seen in each open object
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    else if (event == Event::object_end && !keys.empty()) keys.pop_back();
    else if (event == Event::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      throw InvalidArgument(bad + "the key '" + printable(parsed.get<std::string>()) + "' appears twice in one object");
    return true;
  };
  return nlohmann::json::parse(text, check);
}

}  // namespace optimist
