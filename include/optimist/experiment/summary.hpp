// DIR/summary.json and DIR/summary.md from the traces of a sweep (docs/bench.md, "Statistics").
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "optimist/experiment/sweep.hpp"

namespace optimist::experiment {

/// Reads the finished traces of every run of spec under out_dir and returns, per problem and
/// algorithm: the sweep metric at the horizon, cumulative regret at the horizon, the simple
/// regret of recommend() (each as mean, sd, n and Wald half-width at spec.level), the median
/// suggest time, and curves against t (metric, cumulative regret, simple regret of the best
/// evaluated point: mean and half-width; suggest time: mean). Regret is recomputed from each
/// evaluation's noise-free f; a problem without a known f* uses the best f observed anywhere in
/// the sweep (GO-UCB paper, Sec. 6.2), marked "f_star_source": "best observed in sweep".
nlohmann::json summarize(const SweepSpec& spec, const std::string& out_dir);

/// The summary as Markdown tables (one per problem).
std::string summary_markdown(const nlohmann::json& summary);

/// summarize() written to out_dir/summary.json and out_dir/summary.md; returns it.
nlohmann::json write_summary(const SweepSpec& spec, const std::string& out_dir);

}  // namespace optimist::experiment
