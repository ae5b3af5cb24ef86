#include "optimist/core/objective.hpp"

#include <algorithm>

namespace optimist {

double Objective::regret(double f) const {
  if (!optimum) throw InvalidArgument("objective '" + name + "' has no known optimum; regret is undefined");
  return std::max(0.0, direction_sign(direction) * (*optimum - f));
}

}  // namespace optimist
