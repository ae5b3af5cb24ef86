#include "algorithms/builtin.hpp"

#include "optimist/algorithms/auto/auto.hpp"
#include "optimist/algorithms/bandit/bbkb.hpp"
#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/algorithms/baseline/coordinate_search.hpp"
#include "optimist/algorithms/baseline/random_search.hpp"
#include "optimist/algorithms/baseline/sobol_search.hpp"
#include "optimist/algorithms/tree/hoo.hpp"
#include "optimist/algorithms/tree/poo.hpp"
#include "optimist/algorithms/tree/stosoo.hpp"
#include "optimist/algorithms/tree/tree_search.hpp"
#include "optimist/core/sobol.hpp"

namespace optimist {

namespace {

// The limits of the built-in algorithms, in one place (docs/reliability.md, "Limits"): measured
// with `optimist run --problem rastrigin --dim D --budget N` and /usr/bin/time (the table in the
// docs has the figures).
AlgorithmLimits limits_of(const std::string& name) {
  // Boost's Sobol direction numbers (core/sobol): the designs and candidate sets of the model-based
  // algorithms, and Sobol search itself.
  const std::size_t sobol_dims = SobolSequence::max_dimension();
  AlgorithmLimits l;
  if (name == "random" || name == "coordinate-search") {
    l.note = "no limit but memory: ~32 bytes per evaluation and parameter";
  } else if (name == "sobol") {
    l.max_dim = sobol_dims;
    l.max_points = 0xffffffffu;
    l.note = "Sobol direction numbers for 3667 dimensions, 2^32 - 1 points";
  } else if (name == "gp-ucb" || name == "gp-ei" || name == "gp-pi" || name == "turbo") {
    l.max_dim = sobol_dims;
    l.max_points = 20000;
    l.bytes_per_point_pair = 32.0;
    l.model_cap_option = "max_model_points";
    l.note = "a GP on at most 2 x max_model_points points; with max_model_points = 0 an exact GP over every evaluation: "
             "n x n matrices (20,000: ~13 GB) and O(n^3) refits; Sobol candidates for 3667 dimensions";
  } else if (name == "gp-ucb-arms") {
    l.max_dim = sobol_dims;
    l.max_points = 20000;
    l.bytes_per_point_pair = 32.0;
    l.note = "exact GP over every evaluation: n x n matrices (20,000: ~13 GB) and O(n^3) refits, which make a few "
             "thousand evaluations the practical limit; Sobol candidates for 3667 dimensions";
  } else if (name == "bkb" || name == "bbkb") {
    l.max_dim = sobol_dims;
    l.bytes_per_point_pair = 8.0;
    l.note = "a budgeted dictionary of at most n points; Sobol candidates for 3667 dimensions";
  } else if (name == "go-ucb" || name == "go-ucb-workshop" || name == "exploration-first") {
    l.max_dim = sobol_dims;
    l.note = "Sobol candidates of the acquisition for 3667 dimensions; each step fits the model on all data";
  } else if (name == "sequool" || name == "stroquool" || name == "soo" || name == "uniform-grid" || name == "stosoo" ||
             name == "hoo" || name == "poo") {
    l.bytes_per_point_dim = 48.0;
    l.note = "a cell per evaluation, ~48 bytes per evaluation and parameter";
  }
  return l;
}

}  // namespace

std::vector<AlgorithmInfo> builtin_algorithms() {
  std::vector<AlgorithmInfo> all = {
      auto_info(),
      random_search_info(),
      sobol_search_info(),
      coordinate_search_info(),
      go_ucb_info(),
      go_ucb_workshop_info(),
      exploration_first_info(),
      gp_ucb_info(),
      gp_ei_info(),
      gp_pi_info(),
      turbo_info(),
      sequool_info(),
      stroquool_info(),
      soo_info(),
      uniform_grid_info(),
      stosoo_info(),
      hoo_info(),
      poo_info(),
      bkb_info(),
      gp_ucb_arms_info(),
      bbkb_info(),
  };
  for (auto& info : all) info.limits = limits_of(info.name);
  return all;
}

}  // namespace optimist
