// Basic vocabulary shared by every part of optimist.
#pragma once

#include <Eigen/Core>

#include <stdexcept>
#include <string>

// Eigen allocates with plain malloc, or with its own aligned allocator (under AddressSanitizer,
// with -march=native's wider vectors), and a block allocated one way and freed the other corrupts
// the heap. Vectors cross the library's boundary, so a program must be compiled as the library was:
// every file that includes this header references the mode it was compiled in, and the library
// defines only its own, so a mismatch is a link error naming the mode (undefined reference to
// `optimist::abi::library_allocates_eigen_with_...`) rather than a crash.
namespace optimist::abi {
#if EIGEN_MALLOC_ALREADY_ALIGNED || EIGEN_DEFAULT_ALIGN_BYTES == 0
extern const int library_allocates_eigen_with_plain_malloc;
[[gnu::used]] static const int* const eigen_allocator_check = &library_allocates_eigen_with_plain_malloc;
#else
extern const int library_allocates_eigen_with_eigen_aligned_malloc;
[[gnu::used]] static const int* const eigen_allocator_check = &library_allocates_eigen_with_eigen_aligned_malloc;
#endif
}  // namespace optimist::abi

namespace optimist {

/// A point: in the unit cube for algorithms, in parameter units for users.
using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;

/// Whether the objective is to be maximized or minimized.
enum class Direction { Maximize, Minimize };

/// +1 for maximization, -1 for minimization: algorithms always maximize sign * value.
inline double direction_sign(Direction d) { return d == Direction::Maximize ? 1.0 : -1.0; }

/// "maximize" / "minimize".
std::string to_string(Direction d);
/// Parses "maximize"/"max"/"minimize"/"min"; throws InvalidArgument otherwise.
Direction parse_direction(const std::string& text);

/// Every error optimist raises on bad input derives from this; the message names the bad value.
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Raised when a numerical routine cannot continue (e.g. a model returned NaN).
class NumericalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The shortest text that reads back as exactly this double ("0.1", "1e-300", "inf"), for messages.
std::string format_double(double v);

/// Library version, "MAJOR.MINOR.PATCH".
const char* version();
/// The git commit the library was built from (12 hex digits, "-dirty" with uncommitted changes;
/// "unknown" outside a git checkout). Traces and bench summaries record it.
const char* revision();

}  // namespace optimist
