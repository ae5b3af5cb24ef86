// Fuzz target: algorithm options as JSON (the CLI's --set and config 'options', a sweep's, a
// study's, a trace's meta) -> validated options -> an optimizer on a small mixed space, and a few
// ask/tell rounds with it. Bad options are refused with InvalidArgument at creation, never
// later, and never with a crash, a hang or unbounded memory.
#include <cmath>
#include <cstdint>
#include <utility>

#include "fuzz_support.hpp"
#include "optimist/algorithms/registry.hpp"

using namespace optimist;

namespace {

// The work of a valid run grows with a few options by design (restarts, iterations, candidates,
// layer sizes), and under ASan Eigen's code runs 10 to 40 times slower than in Release: 512
// oracle restarts took over 10 s here for 6 tells (0.26 s in Release), which libFuzzer calls a
// hang. So the options are validated as given, and the asks and tells then run with these capped
// to fuzz scale. Values above the library's own limits are still refused at creation.
nlohmann::json at_fuzz_scale(nlohmann::json spec) {
  static const std::pair<const char*, std::int64_t> kCaps[] = {
      {"restarts", 16},       {"raw_samples", 4096},    {"n_candidates", 4096},   {"continuous_starts", 16},
      {"oracle_restarts", 8}, {"oracle_iterations", 200}, {"sgd_iterations", 2000}, {"refit_restarts", 8},
      {"rff_features", 2048}, {"units_per_input", 16},  {"trust_regions", 8},     {"arms", 4096}};
  if (!spec.is_object()) return spec;
  for (const auto& [key, cap] : kCaps) {
    const auto it = spec.find(key);
    if (it != spec.end() && it->is_number_integer() && it->get<std::int64_t>() > cap) *it = cap;
  }
  const auto hidden = spec.find("hidden");
  if (hidden != spec.end() && hidden->is_array()) {
    if (hidden->size() > 3) hidden->erase(hidden->begin() + 3, hidden->end());
    for (auto& units : *hidden)
      if (units.is_number_integer() && units.get<std::int64_t>() > 64) units = 64;
  }
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static const std::vector<AlgorithmInfo> kAlgorithms = algorithms();
  const AlgorithmInfo& info = kAlgorithms[data[0] % kAlgorithms.size()];
  const std::size_t horizon = 1 + data[1] % 40;
  const std::string text = fuzz::text(data + 2, size - 2);
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return 0;
  nlohmann::json spec = parsed;
  if (spec.is_object() && !spec.contains("name")) spec["name"] = info.name;
  static const Space space = [] {
    Space s;
    s.add_continuous("a", -1.0, 2.0).add_continuous("b", 1e-3, 10.0, true).add_integer("n", 0, 4);
    return s;
  }();
  std::unique_ptr<Optimizer> optimizer;
  fuzz::refuse_only_with([&] {
    optimizer = make_optimizer(spec, space, Direction::Minimize, RunContext{.seed = 1, .horizon = horizon});
  });
  if (!optimizer) return 0;
  const nlohmann::json scaled = at_fuzz_scale(spec);
  if (scaled != spec) {
    optimizer.reset();
    fuzz::refuse_only_with([&] {
      optimizer = make_optimizer(scaled, space, Direction::Minimize, RunContext{.seed = 1, .horizon = horizon});
    });
    if (!optimizer) return 0;
  }
  // Past creation nothing may throw: the options were accepted.
  try {
    for (std::size_t t = 0; t < std::min<std::size_t>(horizon, 6); ++t) {
      const std::vector<Trial> trials = optimizer->ask(1);
      OPTIMIST_FUZZ_CHECK(trials.size() == 1, "ask(1) returned " + std::to_string(trials.size()) + " trials");
      const Vector& x = trials.front().x;
      space.validate(x);
      const double y = (x[0] - 0.5) * (x[0] - 0.5) + std::log(x[1]) + x[2];
      optimizer->tell(trials.front(), y);
    }
    (void)optimizer->recommend();
  } catch (const std::exception& e) {
    fuzz::bug(info.name + " accepted options " + spec.dump() + " and then threw: " + e.what());
  }
  return 0;
}
