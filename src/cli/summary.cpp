#include "cli/summary.hpp"

#include <algorithm>
#include <iomanip>
#include <vector>

#include "cli/format.hpp"

namespace optimist::cli {

namespace {

void row(std::ostream& out, const std::string& label, const std::string& value) {
  out << std::left << std::setw(18) << label << value << '\n';
}

std::string num(std::optional<double> v) { return fmt_num(v, 6); }

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

}  // namespace

void print_summary(std::ostream& out, const RunSettings& s, const Problem& problem,
                   const Objective& objective, const RunSummary& run, const nlohmann::json& decisions) {
  row(out, "algorithm", s.algorithm + " (seed " + std::to_string(s.seed) + ")");
  if (decisions.contains("algorithm") && decisions.at("algorithm").is_string()) {
    std::string chose = decisions.at("algorithm").get<std::string>();
    if (decisions.contains("reason") && decisions.at("reason").is_string()) chose += ": " + decisions.at("reason").get<std::string>();
    row(out, "chose", chose);
  }
  // Options left at "auto" and what they became for this run (gp-ei's prior, go-ucb's model, ...).
  if (decisions.contains("resolved") && decisions.at("resolved").is_object() && !decisions.at("resolved").empty()) {
    std::string resolved;
    for (const auto& [key, value] : decisions.at("resolved").items())
      resolved += (resolved.empty() ? "" : ", ") + key + " = " + (value.is_string() ? value.get<std::string>() : value.dump());
    row(out, "auto options", resolved);
  }
  std::string prob = printable(problem.name) + " (dim " + std::to_string(problem.dim) + ", " +
                     to_string(problem.direction);
  if (problem.f_star) prob += ", f* = " + num(problem.f_star);
  if (s.noise > 0) prob += ", noise sd " + num(s.noise);
  row(out, "problem", prob + ")");
  row(out, "evaluations", std::to_string(run.evaluations.size()) + " of " + std::to_string(s.budget) +
                              " (" + std::to_string(run.n_failed) + " failed" +
                              // A run continuing its study (--storage; never with --resume) took them from the study.
                              (run.n_resumed > 0 ? ", the first " + std::to_string(run.n_resumed) +
                                                       (s.storage.empty() ? " resumed from the trace" : " done before, read from the study")
                                                 : "") +
                              ")");

  // The noise-free value where the best observation was made (with noise it need not be best_f).
  std::optional<double> f_at_best;
  const EvaluationLog& log = run.evaluations;
  for (std::size_t k = 0; k < log.size(); ++k)
    if (run.best_y && run.best_x && log.y(k) == run.best_y && log.x_equals(k, *run.best_x)) f_at_best = log.f(k);
  // The noise-free value only where there is one that can differ (a problem with noise): an
  // objective program's f is its y.
  std::string best = "y = " + num(run.best_y);
  if (objective.noise_free && f_at_best && run.best_y && *f_at_best != *run.best_y) best += " (noise-free f = " + num(f_at_best) + ")";
  if (run.best_x) best += "  at " + fmt_point(*run.best_x, problem.space);
  row(out, "best observed", best);
  if (objective.optimum && run.best_f)
    row(out, "regret of best", num(objective.regret(*run.best_f)) + " (best noise-free f = " + num(run.best_f) + ")");
  if (run.cum_regret) row(out, "cumulative regret", num(run.cum_regret));

  std::string rec = "f = " + num(run.recommended_f);
  if (run.simple_regret) rec += "  simple regret " + num(run.simple_regret);
  if (run.recommended_x) rec += "  at " + fmt_point(*run.recommended_x, problem.space);
  row(out, "recommended", rec);

  std::vector<double> suggest(log.size());
  for (std::size_t k = 0; k < log.size(); ++k) suggest[k] = log.suggest_s(k) + log.tell_s(k);
  row(out, "total time", fmt_duration(run.total_s));
  row(out, "optimizer time", fmt_duration(run.suggest_s + run.tell_s) + " (median " + fmt_num(median(suggest), 3) +
                                 " s per point, ask + tell)");
  row(out, "trace", s.out.empty() ? "none (use --out FILE)" : printable(s.out));
  std::string reason = to_string(run.reason);
  if (!run.message.empty() && run.message != reason) reason += " (" + printable(run.message) + ")";
  row(out, "stop reason", reason);
  for (const std::string& note : run.notes) row(out, "note", printable(note));
  out.flush();
}

}  // namespace optimist::cli
