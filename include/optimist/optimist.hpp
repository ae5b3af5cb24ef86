// Umbrella header: the public API of the optimist library, by part (docs/architecture.md, "Parts").
// Not included: the studies (optimist/study/*.hpp, the separate library optimist::study, which
// needs SQLite and libpq) and the benchmark harness (optimist/experiment/{runner,sweep,summary,
// statistics,run_setup}.hpp, what `optimist bench` is made of).
#pragma once

// core: spaces, objectives, the ask/tell base class, the driver, traces, random streams
#include "optimist/core/driver.hpp"
#include "optimist/core/external_objective.hpp"
#include "optimist/core/objective.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/run_recorder.hpp"
#include "optimist/core/sobol.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/core/types.hpp"
#include "optimist/problems/problem.hpp"

// one call: minimize / maximize a function with any algorithm (budget, trace, resume)
#include "optimist/experiment/minimize.hpp"

// algorithms by name, with their options
#include "optimist/algorithms/option_table.hpp"
#include "optimist/algorithms/registry.hpp"

// the families (each class can also be constructed directly with its typed options)
#include "optimist/algorithms/auto/auto.hpp"
#include "optimist/algorithms/bandit/bbkb.hpp"
#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/algorithms/baseline/coordinate_search.hpp"
#include "optimist/algorithms/baseline/random_search.hpp"
#include "optimist/algorithms/baseline/sobol_search.hpp"
#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/bo/trust_region.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/algorithms/parametric/go_ucb_variants.hpp"
#include "optimist/algorithms/tree/hoo.hpp"
#include "optimist/algorithms/tree/poo.hpp"
#include "optimist/algorithms/tree/stosoo.hpp"
#include "optimist/algorithms/tree/tree_search.hpp"

// shared models and solvers
#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/models/outcome_transform.hpp"
#include "optimist/models/parametric/additive_mlp.hpp"
#include "optimist/models/parametric/autodiff_model.hpp"
#include "optimist/models/parametric/gradient_check.hpp"
#include "optimist/models/parametric/input_encodings.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/models/parametric/regression_oracle.hpp"
#include "optimist/solvers/box_maximizer.hpp"
#include "optimist/solvers/mixed_maximizer.hpp"
#include "optimist/solvers/space_filling.hpp"
