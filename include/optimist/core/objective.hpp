// The function being optimized.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "optimist/core/types.hpp"

namespace optimist {

/// A black-box objective over user points of a Space.
struct Objective {
  /// Required. User point -> observed value (possibly noisy). May throw; the driver records it.
  std::function<double(const Vector&)> function{};
  Direction direction = Direction::Maximize;
  /// Known optimal value f*, used for regret.
  std::optional<double> optimum{};
  /// Optional noise-free value, used for regret and the trace's "f". When absent the observed
  /// value is taken as f.
  std::function<double(const Vector&)> noise_free{};
  std::string name = "objective";

  /// Regret of a noise-free value: f* - f in the improving direction, clamped at 0.
  /// Requires optimum.
  double regret(double f) const;
};

}  // namespace optimist
