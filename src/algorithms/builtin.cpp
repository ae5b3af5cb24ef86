#include "algorithms/builtin.hpp"

#include "optimist/algorithms/auto/auto.hpp"
#include "optimist/algorithms/bandit/bbkb.hpp"
#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/algorithms/random/random_search.hpp"
#include "optimist/algorithms/random/sobol_search.hpp"
#include "optimist/algorithms/tree/hoo.hpp"
#include "optimist/algorithms/tree/stosoo.hpp"
#include "optimist/algorithms/tree/tree_search.hpp"

namespace optimist {

std::vector<AlgorithmInfo> builtin_algorithms() {
  return {
      auto_info(),
      random_search_info(),
      sobol_search_info(),
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
}

}  // namespace optimist
