// A CLI11 check for count flags (--jobs, --seeds, --budget): whole decimal numbers in a range.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>

namespace optimist::cli {

/// Accepts decimal text from `lo` to `hi`. CLI11 alone would wrap "-1" into a huge unsigned value
/// and hang or abort later (one thread per job), so the text is checked before it is converted.
/// The message names the value and the range: "must be a whole number from 1 to 1024, got '-1'".
inline CLI::Validator count_between(std::uint64_t lo, std::uint64_t hi, const std::string& why = "") {
  return CLI::Validator(
      [lo, hi, why](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
          return "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" +
                 text + "'" + (why.empty() ? "" : " (" + why + ")");
        return {};
      },
      "", "count");
}

/// Evaluations in flight in one process: one thread each (and one child with --objective-command).
inline constexpr std::uint64_t kMaxJobs = 1024;

}  // namespace optimist::cli
