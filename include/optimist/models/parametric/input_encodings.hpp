// Wrappers that change what a parametric model sees of a unit-cube point: centred inputs, and
// categorical parameters one-hot encoded. Derivatives in x are mapped back to the unit cube.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// GO-UCB's deviation inputs=centered: inner sees 2u - 1 in [-1,1]^d; derivatives in x pick up the
/// factor 2 of the map, derivatives in w are unchanged.
std::shared_ptr<const ParametricModel> centered_inputs(std::shared_ptr<const ParametricModel> inner);

/// Categorical parameters as one-hot inputs (docs/discrete.md): per input i, categories[i] > 0
/// choices become that many inputs (1 for the choice, 0 otherwise), 0 keeps the unit coordinate.
/// inner takes one_hot_dim(categories) inputs. The derivative in x of a categorical coordinate is 0
/// (the encoding is piecewise constant: acquisitions change categories by discrete moves).
std::shared_ptr<const ParametricModel> one_hot_inputs(std::shared_ptr<const ParametricModel> inner,
                                                      std::vector<std::size_t> categories);
/// The number of inputs after one-hot encoding.
std::size_t one_hot_dim(const std::vector<std::size_t>& categories);

}  // namespace optimist
