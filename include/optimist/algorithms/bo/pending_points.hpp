// What a GP-based algorithm does with points asked but not yet told (other workers' evaluations,
// the earlier points of a batch): the Kriging believer of Ginsbourger et al. (2010). Shared by
// GP-BO and TuRBO. (GO-UCB, whose model is not a GP, only keeps its next point off the evaluated
// and pending ones.)
#pragma once

#include "optimist/core/types.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

/// Adds unit_point to gp with its posterior mean as value: the posterior sd there drops to the
/// noise level, so the next acquisition of the batch looks elsewhere, while the mean is unchanged.
inline void add_believed_point(GaussianProcess& gp, const Vector& unit_point) {
  gp.add_point(unit_point, gp.predict(unit_point).mean);
}

}  // namespace optimist
