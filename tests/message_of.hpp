// What a call threw, for tests that check an error's words.
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace optimist::testing {

/// What `fn` threw (std::exception::what()), or "(no exception)".
inline std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace optimist::testing
