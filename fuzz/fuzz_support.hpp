// What the fuzz targets share (docs/reliability.md, "Fuzzing"). A target refuses bad input only
// with the library's clear error for it (InvalidArgument, or ExternalProcessError for a child's
// answer); any other exception, a failed invariant, a sanitizer report, a hang or unbounded memory
// is a bug, and libFuzzer keeps the input that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "optimist/core/types.hpp"

namespace optimist::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Reports a bug and aborts (libFuzzer saves the input as crash-*).
[[noreturn]] inline void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz target bug: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

#define OPTIMIST_FUZZ_CHECK(condition, what)                                   \
  do {                                                                          \
    if (!(condition)) ::optimist::fuzz::bug(std::string(#condition) + ": " + (what)); \
  } while (0)

/// Runs `fn`; `Expected` (the clear error for bad input) ends it quietly, anything else is a bug.
template <class Expected = InvalidArgument, class F>
void refuse_only_with(F&& fn) {
  try {
    fn();
  } catch (const Expected& e) {
    // OPTIMIST_FUZZ_VERBOSE=1: say why an input was refused (to check what a corpus reaches).
    if (std::getenv("OPTIMIST_FUZZ_VERBOSE")) std::fprintf(stderr, "refused: %s\n", e.what());
  } catch (const std::exception& e) {
    bug(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    bug("unexpected non-standard exception");
  }
}

/// Splits the input: the first byte as a small selector, the rest as text.
struct Selected {
  unsigned selector = 0;
  std::string rest;
};
inline Selected select(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  return {data[0], text(data + 1, size - 1)};
}

}  // namespace optimist::fuzz
