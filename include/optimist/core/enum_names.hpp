// Enums with a name table: the one place where a choice's values are spelled, for parsing user
// input, printing, and listing the valid values in errors and `optimist list`.
//
//   enum class Sampler { Rff, Exact };
//   inline constexpr EnumNames<Sampler, 2> kSamplerNames{{{Sampler::Rff, "rff"}, {Sampler::Exact, "exact"}}};
//   Sampler s = kSamplerNames.parse("exact", "turbo: option 'sampler'");
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist {

template <class Enum, std::size_t N>
struct EnumNames {
  std::array<std::pair<Enum, const char*>, N> entries;

  /// The value named `text`; throws InvalidArgument "<what> got '<text>'; valid values: a, b".
  Enum parse(const std::string& text, const std::string& what) const {
    for (const auto& [value, name] : entries)
      if (text == name) return value;
    throw InvalidArgument(what + " got '" + text + "'; valid values: " + joined());
  }
  /// The name of a value ("?" for a value outside the table, e.g. a cast integer).
  const char* name(Enum value) const {
    for (const auto& [v, name] : entries)
      if (v == value) return name;
    return "?";
  }
  bool contains(Enum value) const {
    for (const auto& e : entries)
      if (e.first == value) return true;
    return false;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.second);
    return out;
  }
  /// "a, b, c".
  std::string joined() const {
    std::string out;
    for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.second);
    return out;
  }
};

}  // namespace optimist
