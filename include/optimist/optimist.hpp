// Umbrella header: the whole public API of optimist.
#pragma once

#include "optimist/core/driver.hpp"
#include "optimist/core/objective.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/core/registry.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/sobol.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/core/types.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/algorithms/random/random_search.hpp"
#include "optimist/algorithms/random/sobol_search.hpp"
#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/models/parametric/autodiff_model.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/models/parametric/regression_oracle.hpp"
