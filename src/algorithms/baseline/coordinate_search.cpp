#include "optimist/algorithms/baseline/coordinate_search.hpp"

#include <algorithm>

#include "optimist/algorithms/option_table.hpp"

namespace optimist {

CoordinateSearch::CoordinateSearch(const Space& space, Direction direction, const CoordinateSearchOptions& options,
                                   const RunContext& context)
    : Optimizer("coordinate-search", space, direction, context), options_(options), step_(options.initial_step) {
  if (!(options.initial_step > 0.0 && options.initial_step <= 1.0))
    throw InvalidArgument("coordinate-search: option initial_step must be in (0, 1], got " +
                          std::to_string(options.initial_step));
  if (!(options.min_step > 0.0 && options.min_step <= options.initial_step))
    throw InvalidArgument("coordinate-search: option min_step must be in (0, initial_step], got " +
                          std::to_string(options.min_step));
}

Vector CoordinateSearch::poll_point(std::size_t k, double step) const {
  Vector u = *center_;
  const auto i = static_cast<Eigen::Index>(k / 2);
  u[i] = std::clamp(u[i] + (k % 2 == 0 ? step : -step), 0.0, 1.0);
  return u;
}

std::vector<Vector> CoordinateSearch::propose(std::size_t) {
  if (center_) {
    // Algorithm 3.2's poll: the untold directions at this step, then (all taken: pending, or a
    // discrete cell too small to leave) the same at half the step, as the tells will decide.
    const std::size_t directions = 2 * space().dim();
    for (double step = step_; step >= options_.min_step; step /= 2.0) {
      for (std::size_t k = step == step_ ? failures_ : 0; k < directions; ++k) {
        Vector u = poll_point(k, step);
        if (!avoids_repeats() || !is_taken(u)) return {u};
      }
    }
  }
  // The first point, and restarts: the cube's center first, then uniform random free points.
  if (history().empty() && pending().empty()) return {Vector::Constant(static_cast<Eigen::Index>(space().dim()), 0.5)};
  Rng rng = rng_for_ask();
  return {free_uniform_point(rng)};
}

void CoordinateSearch::observe(const Observation& obs, double y) {
  if (!center_ || y > center_value_) {  // a first value, a restart's point, or a successful poll
    center_ = obs.trial.unit;
    center_value_ = y;
    failures_ = 0;
    return;
  }
  unsuccessful_poll();
}

void CoordinateSearch::observe_failure(const Observation&) {
  if (center_) unsuccessful_poll();  // a poll whose evaluation failed does not improve either
}

void CoordinateSearch::unsuccessful_poll() {
  if (++failures_ < 2 * space().dim()) return;
  failures_ = 0;  // an unsuccessful poll step: contract
  step_ /= 2.0;
  if (step_ < options_.min_step) {
    center_.reset();
    step_ = options_.initial_step;
  }
}

nlohmann::json CoordinateSearch::diagnostics() const { return {{"step", center_ ? step_ : 0.0}}; }

namespace {

const OptionTable<CoordinateSearchOptions>& coordinate_search_options() {
  static const auto table =
      OptionTable<CoordinateSearchOptions>()
          .real("initial_step", &CoordinateSearchOptions::initial_step, NumberRange{0.0, 1.0, true, false},
                "the first poll step, in unit-cube coordinates (0, 1]")
          .real("min_step", &CoordinateSearchOptions::min_step, NumberRange::above(0.0),
                "a step below it ends the local search: a restart from a uniform random point");
  return table;
}

}  // namespace

AlgorithmInfo coordinate_search_info() {
  AlgorithmInfo info;
  info.name = "coordinate-search";
  info.family = "baseline";
  info.summary = "compass search (Kolda, Lewis & Torczon 2003, Alg. 3.2): poll +-step along each axis, halve the step "
                 "when no poll improves, restart at random below min_step";
  info.options = coordinate_search_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<CoordinateSearch>(space, direction, coordinate_search_options().read(v), context);
  };
  return info;
}

}  // namespace optimist
