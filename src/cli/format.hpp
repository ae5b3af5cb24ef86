// Compact human-readable formatting of numbers, durations and points for the CLI.
#pragma once

#include <optional>
#include <string>

#include "core/text.hpp"  // printable(): text from a file or a database fit for a terminal
#include "optimist/core/space.hpp"

namespace optimist::cli {

/// A number with `digits` significant digits ("512.3", "9.1e+03" -> "9.1e3"); "n/a" when absent.
std::string fmt_num(std::optional<double> v, int digits = 4);
/// A duration: "0.42s", "12.3s", "4m05s", "1h02m".
std::string fmt_duration(double seconds);
/// A user point as "[1.5, 'red', 3]", only the first few coordinates when the dimension is large.
std::string fmt_point(const Vector& x, const Space& space, std::size_t max_coords = 6);

/// The stderr line saying that the finished trace found at --out was kept under another name
/// (TraceWriter::kept_as); empty when nothing was kept.
std::string kept_trace_line(const std::string& out, const std::string& kept_as);

}  // namespace optimist::cli
