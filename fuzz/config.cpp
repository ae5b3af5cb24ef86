// Fuzz target: a run's config file (JSON or TOML) -> settings, as `optimist run --config FILE`
// reads it: the parse, the keys and types, the problem it names and the algorithm's options.
#include "cli/config.hpp"
#include "cli/settings.hpp"
#include "fuzz_support.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Selected input = fuzz::select(data, size);  // not a structured binding: clang 14 cannot capture one
  const unsigned selector = input.selector;
  const std::string& text = input.rest;
  static const char* const kFormats[] = {"json", "toml", ""};
  const std::string format = kFormats[selector % 3];
  fuzz::refuse_only_with([&] {
    const nlohmann::json config = cli::parse_config(text, "fuzz." + (format.empty() ? "conf" : format), format);
    OPTIMIST_FUZZ_CHECK(config.is_object(), "parse_config returned a non-object");
    const cli::RunSettings s = cli::resolve_settings({}, {}, config, std::string("fuzz.conf"));
    OPTIMIST_FUZZ_CHECK(s.budget > 0, "a zero budget was accepted");
    OPTIMIST_FUZZ_CHECK(!s.algorithm.empty(), "an empty algorithm was accepted");
    OPTIMIST_FUZZ_CHECK(s.out.empty() || s.out.front() != '/', "a config file named an absolute output path: " + s.out);
    if (!s.problem.empty()) {
      const Problem problem = make_problem(s.problem, s.dim);
      OPTIMIST_FUZZ_CHECK(problem.space.dim() == problem.dim, "the problem's space has another dimension");
    }
    nlohmann::json spec = s.options;
    spec["name"] = s.algorithm;
    (void)resolve_options(spec);
  });
  return 0;
}
