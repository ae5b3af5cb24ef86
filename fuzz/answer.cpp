// Fuzz target: what an objective command prints, cut into the chunks a pipe delivers -> the
// answers the parent takes from it (take_answer_line) and their values (value_from_answer). A
// child's bad output is refused only with ExternalProcessError.
#include <cmath>

#include "fuzz_support.hpp"
#include "optimist/core/external_objective.hpp"

using namespace optimist;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Selected input = fuzz::select(data, size);
  const unsigned chunk = input.selector;
  const std::string& output = input.rest;
  const std::size_t step = 1 + chunk % 64;
  std::string buffer;
  fuzz::refuse_only_with<ExternalProcessError>([&] {
    for (std::size_t at = 0; at < output.size(); at += step) {
      buffer.append(output, at, step);
      while (auto answer = take_answer_line(buffer)) {
        try {
          const double y = value_from_answer(*answer);
          OPTIMIST_FUZZ_CHECK(std::isfinite(y), "a non-finite value was accepted");
        } catch (const ExternalProcessError&) {
          // A bad answer fails that evaluation only; the next line is the next answer.
        }
      }
    }
    OPTIMIST_FUZZ_CHECK(buffer.find('\n') == std::string::npos, "a complete line was left in the buffer");
  });
  return 0;
}
