#include "optimist/experiment/summary.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "optimist/core/trace.hpp"
#include "optimist/experiment/runner.hpp"
#include "optimist/experiment/statistics.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::experiment {

namespace {

using json = nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::optional<double> get_number(const json& line, const char* key) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

/// One finished run, as per-t series (NaN where undefined).
struct RunData {
  Trace trace;
  std::size_t seed_index = 0;     ///< k of seed first_seed + k: pairs runs across algorithms
  std::vector<double> f;          ///< noise-free value of evaluation t (NaN when failed)
  std::vector<double> suggest_s;
};

/// Regret of a noise-free value in the improving direction, clamped at 0 (Objective::regret).
double regret_of(double f, double f_star, Direction dir) {
  const double r = dir == Direction::Maximize ? f_star - f : f - f_star;
  return std::max(0.0, r);
}

struct Series {
  std::vector<double> metric, cum, simple;
};

Series series_of(const RunData& run, double f_star, Direction dir, const SweepSpec& spec) {
  Series s;
  double cum = 0.0, best_regret = kNaN;
  std::vector<double> cums;
  for (std::size_t t = 0; t < run.f.size(); ++t) {
    if (std::isfinite(run.f[t])) {  // failed evaluations add no regret
      const double r = regret_of(run.f[t], f_star, dir);
      cum += r;
      best_regret = std::isfinite(best_regret) ? std::min(best_regret, r) : r;
    }
    s.cum.push_back(cum);
    s.simple.push_back(best_regret);
  }
  switch (spec.metric) {
    case Metric::CumulativeRegret: s.metric = s.cum; break;
    case Metric::SimpleRegret: s.metric = s.simple; break;
    case Metric::AveragePhase2Regret:
      // Workshop paper Sec. 4: the average regret over Phase II rounds n+1..t; undefined before.
      for (std::size_t t = 0; t < s.cum.size(); ++t) {
        const std::size_t rounds = t + 1 > spec.phase1 ? t + 1 - spec.phase1 : 0;
        s.metric.push_back(rounds > 0 ? (s.cum[t] - s.cum[spec.phase1 - 1]) / static_cast<double>(rounds) : kNaN);
      }
      break;
  }
  return s;
}

json interval_json(const std::vector<double>& values, double level, IntervalKind kind) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) return {{"n", 0}, {"mean", nullptr}, {"sd", nullptr}, {"half_width", nullptr}};
  const MeanInterval w = mean_interval(finite, level, kind);
  return {{"n", w.n}, {"mean", w.mean}, {"sd", w.n > 1 ? json(w.sd) : json(nullptr)},
          {"half_width", w.half_width ? json(*w.half_width) : json(nullptr)}};
}

/// Mean and half-width at each t over the runs that reached t.
void add_curve(json& curves, const std::string& key, const std::vector<std::vector<double>>& per_run,
               std::size_t length, double level, IntervalKind kind) {
  json mean = json::array(), half = json::array();
  for (std::size_t t = 0; t < length; ++t) {
    std::vector<double> at;
    for (const auto& r : per_run)
      if (t < r.size() && std::isfinite(r[t])) at.push_back(r[t]);
    if (at.empty()) {
      mean.push_back(nullptr);
      half.push_back(nullptr);
      continue;
    }
    const MeanInterval w = mean_interval(at, level, kind);
    mean.push_back(w.mean);
    half.push_back(w.half_width ? json(*w.half_width) : json(nullptr));
  }
  curves[key] = {{"mean", mean}, {"half_width", half}};
}

std::string fmt(const json& v, int digits = 4) {
  if (!v.is_number()) return "n/a";
  std::ostringstream os;
  os.precision(digits);
  os << v.get<double>();
  return os.str();
}

std::string fmt_interval(const json& iv) {
  if (!iv.at("mean").is_number()) return "n/a";
  std::string s = fmt(iv.at("mean"));
  if (iv.at("half_width").is_number()) s += " ± " + fmt(iv.at("half_width"), 3);
  return s;
}

/// Two metric values that differ only by round-off (a sum taken in another order): 18.3 and
/// 18.299999999999997 are one value, a tie, not a win.
bool same_value(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

/// Ranks of the algorithms by their mean metric at T on each problem where every algorithm
/// finished every seed (means over the same seeds; 1 = best; ties share their mean rank), averaged
/// over those problems; and on how many problems each is significantly better or worse than the
/// first algorithm (paired interval).
json across_problems(const json& problems, const SweepSpec& spec) {
  const std::size_t n_alg = spec.algorithms.size();
  std::vector<double> rank_sum(n_alg, 0.0);
  std::vector<std::size_t> better(n_alg, 0), worse(n_alg, 0);
  std::size_t ranked = 0;
  for (const auto& p : problems) {
    const json& algs = p.at("algorithms");
    if (algs.size() != n_alg) continue;
    std::vector<double> mean(n_alg, kNaN);
    for (std::size_t a = 0; a < n_alg; ++a) {
      const json& m = algs[a].at("metric").at("mean");
      if (m.is_number()) mean[a] = m.get<double>();
      if (a == 0 || !algs[a].contains("paired")) continue;
      const json& d = algs[a].at("paired").at("difference");
      if (!d.at("mean").is_number() || !d.at("half_width").is_number()) continue;
      const double lo = d.at("mean").get<double>() - d.at("half_width").get<double>();
      const double hi = d.at("mean").get<double>() + d.at("half_width").get<double>();
      better[a] += hi < 0.0;  // the metric is a regret: lower is better
      worse[a] += lo > 0.0;
    }
    if (std::any_of(mean.begin(), mean.end(), [](double v) { return !std::isfinite(v); })) continue;
    if (std::any_of(algs.begin(), algs.end(), [](const json& a) { return a.at("finished") != a.at("runs"); })) continue;
    ++ranked;
    for (std::size_t a = 0; a < n_alg; ++a) {
      double below = 0.0, equal = 0.0;
      for (std::size_t b = 0; b < n_alg; ++b) {
        const bool tie = same_value(mean[b], mean[a]);
        below += !tie && mean[b] < mean[a];
        equal += tie;
      }
      rank_sum[a] += below + (equal + 1.0) / 2.0;  // equal counts a itself: ties share the mean rank
    }
  }
  json rows = json::array();
  for (std::size_t a = 0; a < n_alg; ++a)
    rows.push_back({{"label", spec.algorithms[a].label},
                    {"mean_rank", ranked ? json(rank_sum[a] / static_cast<double>(ranked)) : json(nullptr)},
                    {"significantly_better", better[a]},
                    {"significantly_worse", worse[a]}});
  return {{"ranked_problems", ranked}, {"reference", spec.algorithms[0].label}, {"algorithms", rows}};
}

/// What a trace's meta would say of a problem: its dimension, direction and f* (nullopt when this
/// build does not have the problem).
std::optional<TraceMeta> meta_of_problem(const SweepProblem& p) {
  try {
    const Problem problem = make_problem(p.name, p.dim);
    TraceMeta m;
    m.problem = p.name;
    m.dim = problem.space.dim();
    m.direction = problem.direction;
    m.f_star = problem.f_star;
    return m;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

json summarize(const SweepSpec& spec, const std::string& out_dir) {
  const std::vector<SweepRun> runs = plan_runs(spec, out_dir);
  json out = {{"sweep", spec.to_json()},
              {"level", spec.level},
              {"metric", to_string(spec.metric)},
              {"interval", to_string(spec.interval)},
              {"interval_formula", spec.interval == IntervalKind::Wald
                                       ? "Wald: mean ± z sd / sqrt(K), z the normal quantile, sd the sample standard deviation (K - 1)"
                                       : "Student's t: mean ± t_{K-1} sd / sqrt(K), sd the sample standard deviation (K - 1)"}};
  if (spec.interval == IntervalKind::Wald) out["z"] = normal_quantile(0.5 + spec.level / 2);
  if (spec.metric == Metric::AveragePhase2Regret) out["phase1"] = spec.phase1;
  json problems_json = json::array();
  // Every finished run first: an unknown f* is the best value seen for the task (its name, dim and
  // noise) across the whole sweep, so the instances of one task at several budgets share it.
  std::vector<std::vector<std::vector<RunData>>> data_of(spec.problems.size());
  std::vector<std::optional<TraceMeta>> meta_of(spec.problems.size());
  std::map<std::string, double> best_seen;
  std::map<std::string, std::size_t> revisions;  // of the finished runs' traces: a folder mixing builds shows it
  const auto task_key = [](const SweepProblem& p) {
    return p.name + "|" + std::to_string(p.dim) + "|" + format_double(p.noise);
  };
  std::size_t r = 0;
  for (std::size_t i = 0; i < spec.problems.size(); ++i) {
    // Runs are planned problem-major, algorithm next: runs[r .. r + |A| K) belong to problem i.
    auto& by_algorithm = data_of[i];
    by_algorithm.resize(spec.algorithms.size());
    for (std::size_t a = 0; a < spec.algorithms.size(); ++a)
      for (std::size_t k = 0; k < spec.seeds; ++k, ++r) {
        const SweepRun& run = runs[r];
        if (!is_finished(run)) continue;
        RunData d{read_trace(run.trace_path), k, {}, {}};
        for (const auto& e : d.trace.evaluations) {
          d.f.push_back(get_number(e, "f").value_or(kNaN));
          // Optimizer time per step: ask plus tell (refits and updates happen in tell for some
          // algorithms); traces written before tell_s existed count ask only.
          d.suggest_s.push_back(get_number(e, "suggest_s").value_or(kNaN) + get_number(e, "tell_s").value_or(0.0));
        }
        if (!meta_of[i]) meta_of[i] = d.trace.meta;
        ++revisions[d.trace.meta.revision.empty() ? "unrecorded (a trace written before stop 68 or by another program)" : d.trace.meta.revision];
        const bool maximize = d.trace.meta.direction == Direction::Maximize;
        auto [it, fresh] = best_seen.try_emplace(task_key(spec.problems[i]), kNaN);
        (void)fresh;
        for (double f : d.f)
          if (std::isfinite(f) && (!std::isfinite(it->second) || (maximize ? f > it->second : f < it->second)))
            it->second = f;
        by_algorithm[a].push_back(std::move(d));
      }
  }
  for (std::size_t i = 0; i < spec.problems.size(); ++i) {
    const SweepProblem& p = spec.problems[i];
    const auto& by_algorithm = data_of[i];
    // No finished run yet: the problem's own dimension, direction and f* (the runs show 0 of K).
    const std::optional<TraceMeta> meta = meta_of[i] ? meta_of[i] : meta_of_problem(p);
    json pj = {{"label", p.label}, {"name", p.name}, {"noise", p.noise}, {"budget", p.budget}};
    if (!meta) {  // a problem this build does not have
      pj["dim"] = p.dim;
      pj["f_star"] = nullptr;
      pj["f_star_source"] = "no finished run";
      pj["algorithms"] = json::array();
      problems_json.push_back(pj);
      continue;
    }
    const Direction dir = meta->direction;
    double f_star = kNaN;
    if (meta->f_star) {
      f_star = *meta->f_star;
      pj["f_star_source"] = "known";
    } else if (const auto seen = best_seen.find(task_key(p)); seen != best_seen.end()) {
      // GO-UCB paper Sec. 6.2: f* unknown, "the best empirical accuracy of each task".
      f_star = seen->second;
      pj["f_star_source"] = "best observed in sweep";
    } else {
      pj["f_star_source"] = "no finished run";
    }
    pj["dim"] = meta->dim;
    pj["direction"] = to_string(dir);
    pj["f_star"] = number(f_star);
    json algs = json::array();
    std::vector<std::vector<double>> metric_at_seed(spec.algorithms.size(), std::vector<double>(spec.seeds, kNaN));
    for (std::size_t a = 0; a < spec.algorithms.size(); ++a) {
      const auto& data = by_algorithm[a];
      json aj = {{"label", spec.algorithms[a].label}, {"name", spec.algorithms[a].name},
                 {"runs", spec.seeds}, {"finished", data.size()}};
      std::vector<std::vector<double>> metric, cum, simple, suggest;
      std::vector<double> metric_T, cum_T, recommend_regret, all_suggest;
      std::size_t length = 0, short_runs = 0;
      std::set<std::string> short_reasons;
      for (const auto& d : data) {
        // A finished run shorter than T stopped early (a finite space used up): its sums are over fewer steps.
        if (d.f.size() < p.budget) {
          ++short_runs;
          short_reasons.insert(d.trace.recommend->value("stop_reason", std::string("?")));
        }
        Series s = series_of(d, f_star, dir, spec);
        length = std::max(length, s.cum.size());
        metric_T.push_back(s.metric.empty() ? kNaN : s.metric.back());
        metric_at_seed[a][d.seed_index] = metric_T.back();
        cum_T.push_back(s.cum.empty() ? kNaN : s.cum.back());
        const auto rf = get_number(*d.trace.recommend, "f");
        recommend_regret.push_back(rf && std::isfinite(f_star) ? regret_of(*rf, f_star, dir) : kNaN);
        for (double v : d.suggest_s)
          if (std::isfinite(v)) all_suggest.push_back(v);
        metric.push_back(std::move(s.metric));
        cum.push_back(std::move(s.cum));
        simple.push_back(std::move(s.simple));
        suggest.push_back(d.suggest_s);
      }
      aj["stopped_early"] = short_runs;
      aj["stopped_early_reasons"] = short_reasons;
      aj["metric"] = interval_json(metric_T, spec.level, spec.interval);
      aj["cum_regret"] = interval_json(cum_T, spec.level, spec.interval);
      aj["recommend_simple_regret"] = interval_json(recommend_regret, spec.level, spec.interval);
      aj["median_suggest_s"] = all_suggest.empty() ? json(nullptr) : json(median(all_suggest));
      json curves = json::object();
      json ts = json::array();
      for (std::size_t t = 1; t <= length; ++t) ts.push_back(t);
      curves["t"] = ts;
      add_curve(curves, "metric", metric, length, spec.level, spec.interval);
      add_curve(curves, "cum_regret", cum, length, spec.level, spec.interval);
      add_curve(curves, "simple_regret", simple, length, spec.level, spec.interval);
      add_curve(curves, "suggest_s", suggest, length, spec.level, spec.interval);
      aj["curves"] = curves;
      algs.push_back(aj);
    }
    // Paired comparison with the first algorithm: the same seed gives the same noise stream (and,
    // for designs drawn from it, often the same start), so differences are less noisy than means.
    for (std::size_t a = 1; a < spec.algorithms.size(); ++a) {
      std::vector<double> diff;
      std::size_t lower = 0;
      for (std::size_t k = 0; k < spec.seeds; ++k)
        if (std::isfinite(metric_at_seed[a][k]) && std::isfinite(metric_at_seed[0][k])) {
          const double va = metric_at_seed[a][k], v0 = metric_at_seed[0][k];
          diff.push_back(same_value(va, v0) ? 0.0 : va - v0);
          lower += diff.back() < 0;
        }
      algs[a]["paired"] = {{"reference", spec.algorithms[0].label}, {"difference", interval_json(diff, spec.level, spec.interval)}, {"lower", lower}};
    }
    pj["algorithms"] = algs;
    problems_json.push_back(pj);
  }
  out["problems"] = problems_json;
  out["across_problems"] = across_problems(problems_json, spec);
  // What wrote this summary and its traces: results tied to the code that made them.
  out["optimist"] = {{"version", version()}, {"revision", revision()}};
  out["trace_revisions"] = revisions;
  return out;
}

std::string summary_markdown(const json& s) {
  std::ostringstream md;
  const json& sweep = s.at("sweep");
  const std::string metric = s.at("metric").get<std::string>();
  const double level = s.at("level").get<double>();
  md << "# Sweep `" << sweep.at("name").get<std::string>() << "`\n\n";
  if (sweep.contains("description")) md << sweep.at("description").get<std::string>() << "\n\n";
  if (s.contains("optimist")) {
    md << "Summarized by optimist " << s.at("optimist").value("version", "?") << " (revision "
       << s.at("optimist").value("revision", "?") << ")";
    if (s.contains("trace_revisions") && s.at("trace_revisions").is_object() && !s.at("trace_revisions").empty()) {
      const json& revs = s.at("trace_revisions");
      md << "; its runs were made by " << (revs.size() == 1 ? "revision " : "revisions ");
      bool first = true;
      for (const auto& [rev, count] : revs.items()) {
        md << (first ? "" : ", ") << rev << " (" << count.get<std::size_t>() << (count == 1 ? " run)" : " runs)");
        first = false;
      }
      if (revs.size() > 1) md << " **(mixed: delete the traces of the others to redo them with one build)**";
    }
    md << ".\n\n";
  }
  md << sweep.at("seeds").get<std::size_t>() << (sweep.at("seeds") == 1 ? " seed" : " seeds") << " per (problem, algorithm), from seed "
     << sweep.at("first_seed").get<std::uint64_t>() << ". ";
  const std::size_t k = sweep.at("seeds").get<std::size_t>();
  const bool wald = s.at("interval") == "wald";
  if (!wald)
    md << "Intervals: mean ± t sd / sqrt(K) (Student's t with K - 1 degrees of freedom, " << fmt(json(100 * level), 3) << "%"
       << (k >= 2 ? "; t = " + fmt(json(t_quantile(k, level)), 4) + " at K = " + std::to_string(k) : std::string())
       << "; fewer finished runs use their own K). ";
  else
    md << "Intervals: mean ± " << fmt(json(normal_quantile(0.5 + level / 2)), 4) << " sd / sqrt(K) (Wald, "
       << fmt(json(100 * level), 3) << "%). ";
  md << "Metric: `" << metric << "`";
  if (metric == "average_phase2_regret")
    md << " = (1/(T-n)) sum of regrets over Phase II rounds n+1..T, n = " << s.at("phase1").get<std::size_t>();
  if (metric == "simple_regret") md << " = f* - best noise-free f evaluated up to T";
  md << ". Cumulative regret and simple regret use the noise-free f.\n";
  // The papers' Wald interval is too narrow with few seeds: say by how much, next to the numbers.
  if (wald && k >= 2 && wald_coverage(k, level) < level - 0.01)
    md << "\nWith K = " << k << " seeds a " << fmt(json(100 * level), 3) << "% Wald interval covers the mean of normal values only "
       << fmt(json(100 * wald_coverage(k, level)), 3) << "% of the time (Student's t would multiply sd / sqrt(K) by "
       << fmt(json(t_quantile(k, level)), 4) << ", not " << fmt(json(normal_quantile(0.5 + level / 2)), 4)
       << "; `\"interval\": \"t\"`, the default): read the paired intervals and the better / worse counts as indications, "
          "or run more seeds.\n";
  for (const auto& p : s.at("problems")) {
    md << "\n## " << p.at("label").get<std::string>() << "\n\n";
    md << "`" << p.at("name").get<std::string>() << "`, d = " << p.at("dim") << ", noise sd "
       << fmt(p.at("noise")) << ", budget T = " << p.at("budget") << ", f* = " << fmt(p.at("f_star"), 8);
    const std::string src = p.at("f_star_source").get<std::string>();
    if (src == "best observed in sweep")
      md << " (**unknown: the best value observed for this problem across the whole sweep**, as in the GO-UCB paper, "
            "Sec. 6.2)";
    else if (src != "known")
      md << " (" << src << ")";
    const bool cum_is_metric = metric == "cumulative_regret";  // no second identical column
    md << ".\n\n| algorithm | runs | " << metric << " at T | " << (cum_is_metric ? "" : "cumulative regret at T | ")
       << "simple regret of recommend() | median optimizer time per step, ask + tell (s) |\n| --- | --- | --- | --- | --- |"
       << (cum_is_metric ? "" : " --- |") << "\n";
    for (const auto& a : p.at("algorithms")) {
      std::string stopped_early;  // runs shorter than T: their sums are over fewer steps
      if (a.value("stopped_early", std::size_t{0}) > 0) {
        std::vector<std::string> reasons;
        for (const auto& why : a.at("stopped_early_reasons")) reasons.push_back(why.get<std::string>());
        std::ostringstream note;
        note << " (" << a.at("stopped_early").get<std::size_t>() << " stopped before T: ";
        for (std::size_t k = 0; k < reasons.size(); ++k) note << (k ? ", " : "") << reasons[k];
        note << ")";
        stopped_early = note.str();
      }
      md << "| " << a.at("label").get<std::string>() << " | " << a.at("finished") << "/" << a.at("runs") << stopped_early << " | "
         << fmt_interval(a.at("metric")) << " | " << (cum_is_metric ? "" : fmt_interval(a.at("cum_regret")) + " | ")
         << fmt_interval(a.at("recommend_simple_regret")) << " | " << fmt(a.at("median_suggest_s"), 3) << " |\n";
    }
    const json& algs = p.at("algorithms");
    if (algs.size() > 1) {
      const std::string ref = algs[0].at("label").get<std::string>();
      md << "\nPaired by seed, " << metric << " at T minus " << ref << "'s:\n\n| algorithm | seeds | difference | lower than "
         << ref << " on |\n| --- | --- | --- | --- |\n";
      for (std::size_t a = 1; a < algs.size(); ++a) {
        const json& pr = algs[a].at("paired");
        md << "| " << algs[a].at("label").get<std::string>() << " | " << pr.at("difference").at("n") << " | "
           << fmt_interval(pr.at("difference")) << " | " << pr.at("lower") << " |\n";
      }
    }
  }
  if (s.contains("across_problems") && s.at("problems").size() > 1) {
    const json& across = s.at("across_problems");
    const std::string ref = across.at("reference").get<std::string>();
    md << "\n## Across problems\n\nMean rank of the mean " << metric << " at T over the "
       << across.at("ranked_problems") << " problems where every algorithm finished every seed (1 = best), and the number of problems "
       << "where the paired interval against " << ref << " lies wholly below (better) or above (worse) zero:\n\n"
       << "| algorithm | mean rank | better than " << ref << " on | worse than " << ref << " on |\n| --- | --- | --- | --- |\n";
    for (const auto& a : across.at("algorithms")) {
      const bool is_ref = a.at("label").get<std::string>() == ref;
      md << "| " << a.at("label").get<std::string>() << " | " << fmt(a.at("mean_rank"), 3) << " | "
         << (is_ref ? "" : std::to_string(a.at("significantly_better").get<std::size_t>())) << " | "
         << (is_ref ? "" : std::to_string(a.at("significantly_worse").get<std::size_t>())) << " |\n";
    }
  }
  return md.str();
}

json write_summary(const SweepSpec& spec, const std::string& out_dir) {
  const json s = summarize(spec, out_dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = out_dir + "/" + name;
    const std::string partial = path + ".partial";
    {
      std::ofstream f(partial, std::ios::trunc);
      f << text;
      if (!f) throw InvalidArgument("cannot write '" + partial + "'");
    }
    std::filesystem::rename(partial, path);
  };
  write("summary.json", s.dump(1) + "\n");
  write("summary.md", summary_markdown(s));
  return s;
}

}  // namespace optimist::experiment
