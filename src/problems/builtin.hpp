// Internal helpers shared by the problem catalog files (not installed).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "optimist/problems/problem.hpp"

namespace optimist::detail {

inline constexpr std::size_t kAnyDim = static_cast<std::size_t>(-1);

/// Everything needed to describe one benchmark; make_info turns it into a ProblemInfo.
struct ProblemSpec {
  std::string name;
  std::string summary;
  std::size_t min_dim = 1;
  std::size_t max_dim = 1;
  std::size_t default_dim = 1;
  std::string domain;
  Direction direction = Direction::Maximize;
  std::function<Space(std::size_t)> space;
  std::function<double(std::size_t)> f_star;
  std::function<std::vector<Vector>(std::size_t)> argmax;
  std::function<double(const Vector&)> f;  ///< called with a point of the right dimension
};

/// Wraps spec.f with the point-dimension check and fills the Problem.
ProblemInfo make_info(ProblemSpec spec);

/// [lo, hi]^d.
inline std::function<Space(std::size_t)> cube(double lo, double hi) {
  return [lo, hi](std::size_t d) { return Space::box(d, lo, hi); };
}
/// f* independent of the dimension.
inline std::function<double(std::size_t)> constant(double value) {
  return [value](std::size_t) { return value; };
}
/// The single optimizer (v, ..., v).
inline std::function<std::vector<Vector>(std::size_t)> diagonal(double v) {
  return [v](std::size_t d) {
    return std::vector<Vector>{Vector::Constant(static_cast<Eigen::Index>(d), v)};
  };
}
/// Fixed optimizers, for fixed-dimension problems.
inline std::function<std::vector<Vector>(std::size_t)> points(std::vector<std::vector<double>> pts) {
  return [pts](std::size_t) {
    std::vector<Vector> out;
    for (const auto& p : pts) {
      out.push_back(Eigen::Map<const Vector>(p.data(), static_cast<Eigen::Index>(p.size())));
    }
    return out;
  };
}

/// A deterministic objective computed by a persistent Python worker: `/usr/bin/python3` (or
/// $OPTIMIST_PYTHON) with script_args, fed {"params": params_of(x)} a line and answering {"y": v};
/// one process per Problem (shared by its copies), every answer memoized.
std::function<double(const Vector&)> python_worker_objective(std::vector<std::string> script_args,
                                                              std::function<nlohmann::json(const Vector&)> params_of);

std::vector<ProblemInfo> paper_problems();
std::vector<ProblemInfo> classic_problems();
/// GO-UCB sec. 6.2 hyperparameter tuning (hpo_problems.cpp): f* unknown, values from a Python worker.
std::vector<ProblemInfo> hpo_problems();
/// The `robust` suite (robust_problems.cpp): scikit-learn tuning tasks on native mixed spaces, and
/// synthetic tasks with plateaus, ridges, steps, ill-conditioning and conditional parameters.
std::vector<ProblemInfo> robust_problems();
/// Integer, categorical and mixed finite spaces (discrete_problems.cpp): f* by enumeration.
std::vector<ProblemInfo> discrete_problems();

}  // namespace optimist::detail
