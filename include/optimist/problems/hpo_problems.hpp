// The GO-UCB paper's hyperparameter-tuning problems (ICML 2023, section 6.2, appendix D.2):
// scikit-learn classifiers scored by 5-fold cross-validated accuracy, computed by a Python worker.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "optimist/core/types.hpp"

namespace optimist {

/// The sklearn hyperparameters {name: value} of a point of the paper's box [0,10]^d, for
/// classifier "rf" (d = 7), "mlp" (d = 8) or "gb" (d = 11). Appendix D.2's map: an integer or
/// categorical hyperparameter with k values gives each value an interval of length 10/k (in the
/// listed order); a real one is affine, with the paper's open ends held 0.1% of the range inside.
/// Throws InvalidArgument naming a wrong dimension or a coordinate outside [0,10].
nlohmann::json decode_hpo_point(const std::string& classifier, const Vector& x);

/// The folder holding the datasets: $OPTIMIST_DATASETS if set, else ../shared/datasets from the
/// current folder, else ../shared/datasets next to the source tree. Throws InvalidArgument listing
/// the folders tried when `file` is in none of them; returns the file's path.
std::filesystem::path hpo_dataset_path(const std::string& file);

/// A worker script of scripts/hpo/: $env_var if set, else scripts/hpo/<file> in the source tree,
/// else ../share/optimist/hpo/<file> from the running program's folder, else the same under the
/// configured install prefix. Throws InvalidArgument listing the paths tried.
std::filesystem::path hpo_script_path(const std::string& file, const char* env_var);

/// The Python worker: $OPTIMIST_HPO_WORKER if set, else scripts/hpo/hpo_worker.py in the source
/// tree, else ../share/optimist/hpo/hpo_worker.py from the running program's folder, else the
/// same under the configured install prefix. Throws InvalidArgument listing the paths tried.
std::filesystem::path hpo_worker_path();

}  // namespace optimist
