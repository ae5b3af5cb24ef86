#include "cli/format.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace optimist::cli {

std::string fmt_num(std::optional<double> v, int digits) {
  if (!v) return "n/a";
  if (!std::isfinite(*v)) return std::isnan(*v) ? "nan" : (*v > 0 ? "inf" : "-inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, *v);
  // "9.1e+03" -> "9.1e3": the sign and padding of the exponent only take room.
  std::string s = buf;
  const auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e);
    std::string exp = s.substr(e + 1);
    const bool neg = exp.front() == '-';
    if (exp.front() == '+' || exp.front() == '-') exp.erase(0, 1);
    while (exp.size() > 1 && exp.front() == '0') exp.erase(0, 1);
    s = mant + "e" + (neg ? "-" : "") + exp;
  }
  return s;
}

std::string fmt_duration(double seconds) {
  char buf[64];
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 10) std::snprintf(buf, sizeof buf, "%.2fs", seconds);
  else if (seconds < 60) std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  else if (seconds < 3600) {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60);
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", m / 60, m % 60);
  }
  return buf;
}

std::string fmt_point(const Vector& x, const Space& space, std::size_t max_coords) {
  const nlohmann::json j = space.point_to_json(x);
  // Show all coordinates when only one would be hidden; otherwise the first few and the count.
  const std::size_t n = j.size();
  const std::size_t shown = n <= max_coords + 1 ? n : max_coords;
  const std::vector<bool> active =
      static_cast<std::size_t>(x.size()) == space.dim() ? space.active(x) : std::vector<bool>(n, true);
  std::string s = "[";
  for (std::size_t i = 0; i < shown; ++i) {
    if (i) s += ", ";
    const auto& v = j[i];
    if (!active[i]) s += "-";  // a conditional parameter that does not matter here
    else if (v.is_string()) s += printable(v.get<std::string>());  // a choice from a file: no control sequences
    else if (v.is_number_integer()) s += v.dump();
    else if (v.is_number()) s += fmt_num(v.get<double>(), 6);
    else s += "null";
  }
  if (shown < n) s += ", ... (" + std::to_string(n) + " coordinates)";
  return s + "]";
}

std::string kept_trace_line(const std::string& out, const std::string& kept_as) {
  if (kept_as.empty()) return "";
  return "optimist: '" + printable(out) + "' held a finished run of your objective; it is kept as '" + printable(kept_as) + "'\n";
}

}  // namespace optimist::cli
