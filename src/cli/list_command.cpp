#include "cli/list_command.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>
#include <vector>

#include "cli/format.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

namespace {

// The run's seed reaches every algorithm (RunContext, not an option); list it first so users see
// it exists.
std::vector<OptionSpec> all_options(const AlgorithmInfo& a) {
  std::vector<OptionSpec> out = {{"seed", 0, "random seed of the run (set with --seed, not --set)", {}}};
  out.insert(out.end(), a.options.begin(), a.options.end());
  return out;
}

const char* horizon_name(HorizonUse h) {
  switch (h) {
    case HorizonUse::Required: return "required";
    case HorizonUse::Optional: return "optional";
    case HorizonUse::Unused: break;
  }
  return "unused";
}

std::string dims_text(const ProblemInfo& p) {
  if (p.any_dim()) return "any (default " + std::to_string(p.default_dim) + ")";
  if (p.min_dim == p.max_dim) return std::to_string(p.min_dim);
  return std::to_string(p.min_dim) + "-" + std::to_string(p.max_dim) + " (default " +
         std::to_string(p.default_dim) + ")";
}

// f* depends on the dimension for some problems, so it is taken from the default instance.
std::optional<double> default_f_star(const ProblemInfo& p) {
  try {
    return make_problem(p.name, p.default_dim).f_star;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "at most 3667 parameters, 20000 evaluations; memory ~32 n d + 32 n^2 bytes: why".
std::string limits_text(const AlgorithmLimits& l) {
  std::string s = l.max_dim ? "at most " + std::to_string(l.max_dim) + " parameters" : "any dimension";
  const std::string& cap = l.model_cap_option;
  if (!cap.empty() && l.max_points)
    s += ", any number of evaluations (at most " + std::to_string(l.max_points) + " with " + cap + " = 0)";
  else
    s += l.max_points ? ", at most " + std::to_string(l.max_points) + " evaluations" : ", any number of evaluations";
  s += "; memory ~" + fmt_num(l.bytes_per_point_dim, 3) + " n d";
  if (l.bytes_per_point_pair > 0) s += " + " + fmt_num(l.bytes_per_point_pair, 3) + (cap.empty() ? " n^2" : " m^2");
  s += " bytes";
  if (l.bytes_per_point_pair > 0 && !cap.empty()) s += ", m = min(n, 2 " + cap + ")";
  if (!l.note.empty()) s += " (" + l.note + ")";
  return s;
}

nlohmann::json limits_json(const AlgorithmLimits& l) {
  return {{"max_dim", l.max_dim ? nlohmann::json(l.max_dim) : nlohmann::json(nullptr)},
          {"max_points", l.max_points ? nlohmann::json(l.max_points) : nlohmann::json(nullptr)},
          {"bytes_per_point_dim", l.bytes_per_point_dim},
          {"bytes_per_point_pair", l.bytes_per_point_pair},
          {"note", l.note},
          {"model_cap_option", l.model_cap_option.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.model_cap_option)}};
}

nlohmann::json algorithms_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : algorithms()) {
    nlohmann::json opts = nlohmann::json::array();
    for (const auto& o : all_options(a))
      opts.push_back({{"key", o.key}, {"default", o.default_value}, {"help", o.help}, {"allowed", o.allowed}});
    out.push_back({{"name", a.name}, {"family", a.family}, {"summary", a.summary}, {"batch", a.batch},
                   {"horizon", horizon_name(a.horizon)}, {"horizon_help", a.horizon_help}, {"options", opts},
                   {"limits", limits_json(a.limits)}});
  }
  return out;
}

nlohmann::json problems_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : problems()) {
    const auto f_star = default_f_star(p);
    out.push_back({{"name", p.name},
                   {"min_dim", p.min_dim},
                   {"max_dim", p.any_dim() ? nlohmann::json(nullptr) : nlohmann::json(p.max_dim)},
                   {"default_dim", p.default_dim},
                   {"dims", dims_text(p)},
                   {"domain", p.domain},
                   {"direction", to_string(p.direction)},
                   {"f_star", f_star ? nlohmann::json(*f_star) : nlohmann::json(nullptr)},
                   {"f_star_dim", p.default_dim},
                   {"summary", p.summary}});
  }
  return out;
}

void print_algorithms(std::ostream& out) {
  out << "Algorithms (" << algorithms().size() << ")\n";
  for (const auto& a : algorithms()) {
    out << "\n  " << a.name << "  [" << a.family << (a.batch ? ", batch" : "") << "]  " << a.summary << '\n';
    if (a.horizon != HorizonUse::Unused)
      out << "      plans with the horizon --budget (" << horizon_name(a.horizon) << "): " << a.horizon_help << '\n';
    out << "      limits: " << limits_text(a.limits) << '\n';
    const auto options = all_options(a);
    // One help column per algorithm, past its longest "key = default" (long defaults ran into the help).
    std::size_t width = 0;
    for (const auto& o : options) width = std::max(width, o.key.size() + 3 + o.default_value.dump().size());
    for (const auto& o : options) {
      out << "      " << std::left << std::setw(static_cast<int>(width + 2)) << (o.key + " = " + o.default_value.dump())
          << o.help;
      if (!o.allowed.empty()) {
        std::string allowed;
        for (const auto& v : o.allowed) allowed += (allowed.empty() ? "" : ", ") + v;
        out << " (one of: " << allowed << ")";
      }
      out << '\n';
    }
  }
}

void print_problems(std::ostream& out) {
  struct Row { std::string name, dims, domain, direction, f_star, summary; };
  std::vector<Row> rows = {{"NAME", "DIMS", "DOMAIN", "DIRECTION", "F*", "SUMMARY"}};
  for (const auto& p : problems()) {
    std::string f = fmt_num(default_f_star(p), 8);
    if (p.min_dim != p.max_dim) f += " (d=" + std::to_string(p.default_dim) + ")";
    rows.push_back({p.name, dims_text(p), p.domain, to_string(p.direction), f, p.summary});
  }
  std::size_t w[5] = {0, 0, 0, 0, 0};
  for (const auto& r : rows) {
    w[0] = std::max(w[0], r.name.size());
    w[1] = std::max(w[1], r.dims.size());
    w[2] = std::max(w[2], r.domain.size());
    w[3] = std::max(w[3], r.direction.size());
    w[4] = std::max(w[4], r.f_star.size());
  }
  out << "Problems (" << problems().size() << "; F* at the default dimension)\n\n";
  for (const auto& r : rows) {
    out << "  " << std::left << std::setw(static_cast<int>(w[0] + 2)) << r.name
        << std::setw(static_cast<int>(w[1] + 2)) << r.dims << std::setw(static_cast<int>(w[2] + 2)) << r.domain
        << std::setw(static_cast<int>(w[3] + 2)) << r.direction << std::setw(static_cast<int>(w[4] + 2))
        << r.f_star << r.summary << '\n';
  }
}

}  // namespace

void add_list_command(CLI::App& parent, ListCommand& cmd) {
  cmd.app = parent.add_subcommand("list", "List the available algorithms and problems");
  cmd.app->add_option("what", cmd.what, "only this list")
      ->check(CLI::IsMember({"algorithms", "problems"}));
  cmd.app->add_flag("--json", cmd.json, "machine-readable output");
}

int list_command(const ListCommand& cmd) {
  const bool algs = cmd.what.empty() || cmd.what == "algorithms";
  const bool probs = cmd.what.empty() || cmd.what == "problems";
  if (cmd.json) {
    nlohmann::json out = nlohmann::json::object();
    if (algs) out["algorithms"] = algorithms_json();
    if (probs) out["problems"] = problems_json();
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  if (algs) print_algorithms(std::cout);
  if (algs && probs) std::cout << '\n';
  if (probs) print_problems(std::cout);
  return 0;
}

}  // namespace optimist::cli
