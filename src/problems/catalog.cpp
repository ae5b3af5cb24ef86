// The problem catalog: lookup, instantiation and the (noisy) objective of a problem.
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <sstream>
#include <string>
#include <utility>

#include "core/text.hpp"
#include "optimist/core/rng.hpp"
#include "problems/builtin.hpp"

namespace optimist {

namespace detail {

ProblemInfo make_info(ProblemSpec spec) {
  ProblemInfo info;
  info.name = spec.name;
  info.summary = spec.summary;
  info.min_dim = spec.min_dim;
  info.max_dim = spec.max_dim;
  info.default_dim = spec.default_dim;
  info.domain = spec.domain;
  info.direction = spec.direction;
  info.make = [spec = std::move(spec)](std::size_t d) {
    Problem p;
    p.name = spec.name;
    p.dim = d;
    p.space = spec.space(d);
    p.direction = spec.direction;
    p.f_star = spec.f_star(d);
    p.argmax = spec.argmax(d);
    p.f = [f = spec.f, name = spec.name, d](const Vector& x) {
      if (static_cast<std::size_t>(x.size()) != d) {
        throw InvalidArgument("problem " + name + " expects a point of dimension " + std::to_string(d) +
                              ", got " + std::to_string(x.size()));
      }
      return f(x);
    };
    return p;
  };
  return info;
}

}  // namespace detail

namespace {

std::string allowed_dims(const ProblemInfo& info) {
  if (info.min_dim == info.max_dim) return "exactly " + std::to_string(info.min_dim);
  if (info.any_dim()) return std::to_string(info.min_dim) + " or more";
  return std::to_string(info.min_dim) + " to " + std::to_string(info.max_dim);
}

/// The noise stream of one objective; shared by its copies.
struct NoiseStream {
  explicit NoiseStream(std::uint64_t seed) : rng(seed) {}
  std::mutex mutex;
  Rng rng;
};

}  // namespace

const std::vector<ProblemInfo>& problems() {
  static const std::vector<ProblemInfo> all = [] {
    std::vector<ProblemInfo> v = detail::paper_problems();
    for (auto& info : detail::classic_problems()) v.push_back(std::move(info));
    for (auto& info : detail::discrete_problems()) v.push_back(std::move(info));
    for (auto& info : detail::hpo_problems()) v.push_back(std::move(info));
    for (auto& info : detail::robust_problems()) v.push_back(std::move(info));
    return v;
  }();
  return all;
}

const ProblemInfo& problem_info(const std::string& name) {
  const auto& all = problems();
  for (const auto& info : all) {
    if (info.name == name) return info;
  }
  std::string valid;
  std::vector<std::string> names;
  for (const auto& info : all) {
    valid += (valid.empty() ? "" : ", ") + info.name;
    names.push_back(info.name);
  }
  throw InvalidArgument("unknown problem '" + name + "'" + did_you_mean(name, names) + "; valid problems: " + valid);
}

Problem user_problem(const std::string& name, const Space& space, Direction direction, std::optional<double> f_star) {
  Problem p;
  p.name = name;
  p.space = space;
  p.dim = space.dim();
  p.direction = direction;
  p.f_star = f_star;
  p.user_objective = true;
  return p;
}

Problem make_problem(const std::string& name, std::size_t dim) {
  // Above this a dimension is a typo or an overflow, not a benchmark: refused before a space of
  // that size is built (fuzz_config: dim = 90071992547409930 built parameters for minutes).
  constexpr std::size_t kLargestDimension = 100000;
  const ProblemInfo& info = problem_info(name);
  const std::size_t d = dim == 0 ? info.default_dim : dim;
  if (d > kLargestDimension)
    throw InvalidArgument("problem '" + name + "': dimension " + std::to_string(d) +
                          " is above the largest a built-in problem takes, " + std::to_string(kLargestDimension));
  if (d < info.min_dim || d > info.max_dim) {
    throw InvalidArgument("problem '" + name + "' does not support dimension " + std::to_string(d) +
                          " (allowed: " + allowed_dims(info) + ")");
  }
  return info.make(d);
}

TraceMeta Problem::trace_meta(const std::string& algorithm, const nlohmann::json& resolved_options, std::uint64_t seed,
                              double noise_sd, std::size_t budget) const {
  TraceMeta meta;
  meta.algorithm = algorithm;
  meta.options = resolved_options;
  meta.problem = name;
  meta.dim = dim;
  meta.seed = seed;
  meta.noise = noise_sd;
  meta.noisy = noise_sd > 0.0;
  meta.direction = direction;
  meta.f_star = f_star;
  meta.budget = budget;
  meta.space = space.to_json();
  meta.user_objective = user_objective;
  return meta;
}

Objective Problem::objective(double noise_sd, std::uint64_t noise_seed, std::size_t first_draw) const {
  if (!std::isfinite(noise_sd) || noise_sd < 0.0) {
    throw InvalidArgument("noise (its standard deviation) must be finite and >= 0, got " + format_double(noise_sd));
  }
  if (!f) throw InvalidArgument("problem '" + name + "' has no function");
  Objective obj;
  obj.direction = direction;
  obj.optimum = f_star;
  obj.noise_free = f;
  obj.name = name;
  if (noise_sd == 0.0) {
    obj.function = f;
  } else {
    // The k-th evaluation gets the k-th N(0,1) draw of Rng(noise_seed).
    auto noise = std::make_shared<NoiseStream>(noise_seed);
    for (std::size_t k = 0; k < first_draw; ++k) noise->rng.normal();
    obj.function = [f = f, noise_sd, noise](const Vector& x) {
      const double value = f(x);
      double draw = 0.0;
      {
        std::lock_guard<std::mutex> lock(noise->mutex);
        draw = noise->rng.normal();
      }
      const double noisy = value + noise_sd * draw;
      // A finite f made infinite by the noise is the noise's doing, not the objective's: said so
      // (--noise 1e308 failed the run with "objective returned -inf").
      if (std::isfinite(value) && !std::isfinite(noisy))
        throw std::overflow_error("the added noise overflowed: f = " + format_double(value) + " plus noise sd " +
                                  format_double(noise_sd) + " x N(0,1) draw " + format_double(draw) +
                                  " is beyond the range of a double; lower the noise standard deviation (--noise)");
      return noisy;
    };
  }
  return obj;
}

}  // namespace optimist
