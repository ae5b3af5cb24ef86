#pragma once
// Whether this test binary was built with AddressSanitizer (make asan): a few tests size their work
// by it (processes start several times slower under ASan), never what they assert.

#if defined(__SANITIZE_ADDRESS__)
#define OPTIMIST_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPTIMIST_TEST_ASAN 1
#endif
#endif
#ifndef OPTIMIST_TEST_ASAN
#define OPTIMIST_TEST_ASAN 0
#endif

#if OPTIMIST_TEST_ASAN
#include <sanitizer/lsan_interface.h>
#endif

namespace optimist::testing {

inline constexpr bool kAddressSanitizer = OPTIMIST_TEST_ASAN != 0;

/// While it lives, what is allocated is not reported as leaked (LeakSanitizer): for a library's own
/// leak a test must go through (libpqxx 6.4 keeps the PGresult of a statement that meets a broken
/// connection, 216 bytes per outage), never for optimist's. Nothing outside ASan builds.
class LeaksNotReported {
 public:
#if OPTIMIST_TEST_ASAN
  LeaksNotReported() { __lsan_disable(); }
  ~LeaksNotReported() { __lsan_enable(); }
#endif
  LeaksNotReported(const LeaksNotReported&) = delete;
  LeaksNotReported& operator=(const LeaksNotReported&) = delete;
#if !OPTIMIST_TEST_ASAN
  LeaksNotReported() {}   // user-provided: a scope guard, not an unused variable
  ~LeaksNotReported() {}  // NOLINT(modernize-use-equals-default)
#endif
};

}  // namespace optimist::testing
