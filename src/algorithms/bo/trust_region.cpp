#include "optimist/algorithms/bo/trust_region.hpp"

#include <algorithm>
#include <cmath>

namespace optimist {

TrustRegion TrustRegion::counters(double length_init, double length_min, double length_max,
                                  std::size_t success_tolerance, std::size_t failure_tolerance) {
  TrustRegion tr;
  tr.rule = Rule::Counters;
  tr.length_init = tr.length = length_init;
  tr.length_min = length_min;
  tr.length_max = length_max;
  tr.success_tolerance = success_tolerance;
  tr.failure_tolerance = failure_tolerance;
  return tr;
}

TrustRegion TrustRegion::steps(double length_init, double length_max) {
  TrustRegion tr;
  tr.rule = Rule::Steps;
  tr.length_init = tr.length = length_init;
  tr.length_min = 0.25 * length_init;
  tr.length_max = length_max;
  return tr;
}

std::size_t TrustRegion::default_failure_tolerance(std::size_t dim, std::size_t batch_size) {
  const double q = static_cast<double>(std::max<std::size_t>(batch_size, 1));
  return static_cast<std::size_t>(std::ceil(std::max(4.0 / q, static_cast<double>(dim) / q)));
}

TrustRegion::Event TrustRegion::update(bool success, double ratio) {
  if (rule == Rule::Steps) {
    if (success && ratio >= min_ratio) {
      length = std::min(length_max, grow * length);
      return Event::Expanded;
    }
    if (success) return Event::None;
    length = std::max(length_min, shrink * length);
    return Event::Shrunk;
  }
  // Counters: turbo_1.py, _adjust_length.
  if (success) {
    ++successes;
    failures = 0;
  } else {
    ++failures;
    successes = 0;
  }
  if (successes >= success_tolerance) {
    length = std::min(2.0 * length, length_max);
    successes = 0;
    return Event::Expanded;
  }
  if (failures >= failure_tolerance) {
    length /= 2.0;
    failures = 0;
    return length < length_min ? Event::Collapsed : Event::Shrunk;
  }
  return Event::None;
}

void TrustRegion::restart() {
  length = length_init;
  successes = 0;
  failures = 0;
  ++restarts;
}

}  // namespace optimist
