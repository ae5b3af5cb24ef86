#pragma once
// Whether this test binary was built with AddressSanitizer (make asan): a few tests size their work
// by it (processes start several times slower under ASan), never what they assert.

namespace optimist::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace optimist::testing
