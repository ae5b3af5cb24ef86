// Benchmark problems with known optima.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/objective.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/trace.hpp"

namespace optimist {

/// A benchmark function instantiated in one dimension.
struct Problem {
  std::string name;
  std::size_t dim = 0;
  Space space;
  Direction direction = Direction::Maximize;
  std::optional<double> f_star;  ///< optimal value
  std::vector<Vector> argmax;    ///< known optimizers (user points), possibly several
  std::function<double(const Vector&)> f;  ///< noise-free value at a user point
  bool user_objective = false;  ///< made by user_problem: the user's function or program, not a benchmark

  /// The objective f + N(0, noise_sd^2), the noise drawn from a stream seeded by noise_seed
  /// (the k-th evaluation gets draw first_draw + k; first_draw > 0 continues a resumed run's
  /// stream). noise_sd must be finite and >= 0.
  Objective objective(double noise_sd = 0.0, std::uint64_t noise_seed = 0, std::size_t first_draw = 0) const;

  /// The trace's meta line for a run of `algorithm` (with its resolved options) on this problem:
  /// one construction for `optimist run` and `optimist bench`, so their traces agree.
  TraceMeta trace_meta(const std::string& algorithm, const nlohmann::json& resolved_options, std::uint64_t seed,
                       double noise_sd, std::size_t budget) const;
};

struct ProblemInfo {
  std::string name;
  std::string summary;    ///< one line, with the formula's source
  std::size_t min_dim = 1;
  std::size_t max_dim = 1;  ///< equal to min_dim for fixed-dimension problems
  std::size_t default_dim = 1;
  std::string domain;     ///< human readable, e.g. "[-5,5]^d"
  Direction direction = Direction::Maximize;
  std::function<Problem(std::size_t dim)> make;  ///< dim already checked

  bool any_dim() const { return max_dim == static_cast<std::size_t>(-1); }
};

/// Every built-in problem.
const std::vector<ProblemInfo>& problems();
/// Throws InvalidArgument listing the valid names.
const ProblemInfo& problem_info(const std::string& name);
/// Instantiates a problem; dim 0 means its default. Throws InvalidArgument naming the dimension
/// and the allowed range.
Problem make_problem(const std::string& name, std::size_t dim = 0);
/// A Problem describing a function of one's own (a program, a Python or C++ function) for a run's
/// books and trace meta: its name, space and direction, no f (the caller evaluates it).
Problem user_problem(const std::string& name, const Space& space, Direction direction,
                     std::optional<double> f_star = std::nullopt);

}  // namespace optimist
