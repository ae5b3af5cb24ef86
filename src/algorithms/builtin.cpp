#include "algorithms/builtin.hpp"

#include "optimist/algorithms/random/random_search.hpp"
#include "optimist/algorithms/random/sobol_search.hpp"

namespace optimist {

std::vector<AlgorithmInfo> builtin_algorithms() {
  return {
      random_search_info(),
      sobol_search_info(),
  };
}

}  // namespace optimist
