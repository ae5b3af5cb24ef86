#include "cli/study_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "cli/format.hpp"
#include "optimist/core/json_text.hpp"

namespace optimist::cli {

namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string quoted(const std::string& s) { return "'" + printable(s) + "'"; }

// Quoted: a choice may hold a comma ('DMF, dry').
std::string choices_text(const Parameter& p) {
  std::string out;
  for (const auto& c : p.choices) out += (out.empty() ? "" : ", ") + quoted(c);
  return out;
}

}  // namespace

std::vector<CsvRow> read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument("cannot read CSV file '" + printable(path) + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // the byte-order mark spreadsheets write
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string cell;
  bool quoted_cell = false, in_quotes = false;
  std::size_t line = 1;
  row.line = 1;
  auto end_cell = [&] {
    row.cells.push_back(quoted_cell ? cell : trimmed(cell));
    cell.clear();
    quoted_cell = false;
  };
  // A row of empty cells (",,,": a row cleared in a spreadsheet, not deleted) is a blank line.
  auto end_row = [&] {
    end_cell();
    if (std::any_of(row.cells.begin(), row.cells.end(), [](const std::string& c) { return !trimmed(c).empty(); }))
      rows.push_back(std::move(row));
    row = CsvRow{};
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') in_quotes = false;
      else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && trimmed(cell).empty()) {
      in_quotes = quoted_cell = true;
      cell.clear();
    } else if (c == ',') {
      end_cell();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_row();
      row.line = ++line;
    } else {
      cell += c;
    }
  }
  if (in_quotes) throw InvalidArgument("CSV file '" + printable(path) + "': a quoted cell opened on or before line " +
                                       std::to_string(line) + " is never closed");
  end_row();
  return rows;
}

namespace {

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos && trimmed(s) == s) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string parameter_text(const Parameter& p, double v) {
  if (p.kind == ParameterKind::Categorical) return p.choices.at(static_cast<std::size_t>(v));
  if (p.kind == ParameterKind::Integer) return std::to_string(static_cast<long long>(std::llround(v)));
  return format_double(v);
}

std::string csv_parameter_header(const std::string& name) {
  return name == "trial" || name == "value" || name == "error" ? "params_" + name : name;
}

namespace {
std::string lower_trimmed(const std::string& text) {
  std::string lower = trimmed(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}
}  // namespace

bool is_failed_word(const std::string& text) { return lower_trimmed(text) == "failed"; }

bool is_given_back_word(const std::string& text) {
  const std::string lower = lower_trimmed(text);
  return lower == "given back" || lower == "give back";
}

namespace {

nlohmann::ordered_json value_json(const Parameter& p, double v) {
  if (p.kind == ParameterKind::Categorical) return p.choices.at(static_cast<std::size_t>(v));
  if (p.kind == ParameterKind::Integer) return static_cast<long long>(std::llround(v));
  return v;
}

}  // namespace

std::optional<double> parse_number(const std::string& text) {
  std::string t = trimmed(text);
  if (!t.empty() && t[0] == '+') t.erase(0, 1);
  if (t.empty()) return std::nullopt;
  double v = 0.0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ptr != t.data() + t.size()) return std::nullopt;
  // Out of range: 1e-400 is read as the nearest double (0, as an objective printing it is read),
  // 1e400 as infinite (refused as not finite, not as not a number).
  if (r.ec == std::errc::result_out_of_range) return std::strtod(t.c_str(), nullptr);
  if (r.ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<double> parse_lease(const std::string& text) {
  if (text == "forever") return std::nullopt;
  static const std::map<char, double> kUnits = {{'s', 1.0}, {'m', 60.0}, {'h', 3600.0}, {'d', 86400.0}, {'w', 604800.0}};
  std::string number = text;
  double unit = 1.0;
  if (!number.empty() && kUnits.count(number.back())) {
    unit = kUnits.at(number.back());
    number.pop_back();
  }
  const std::optional<double> v = parse_number(number);
  if (!v || !std::isfinite(*v) || !(*v > 0.0))
    throw InvalidArgument("--lease must be a duration > 0 such as 90m, 36h, 14d, 2w or 600 (seconds), or forever; got '" +
                          printable(text) + "'");
  return *v * unit;
}

std::string cell_count_text(std::size_t cells, std::size_t header) {
  return std::to_string(cells) + " cells, the header has " + std::to_string(header) +
         (cells > header ? " (a comma in a number or a text, \"1,5\"? write 1.5, or quote the text)" : "");
}

std::string not_a_number(const std::string& text) {
  std::string out = quoted(text) + " is not a number";
  // "1,5": a spreadsheet in a language with decimal commas.
  if (std::string dotted = trimmed(text); std::count(dotted.begin(), dotted.end(), ',') == 1) {
    std::replace(dotted.begin(), dotted.end(), ',', '.');
    if (parse_number(dotted)) out += " (a decimal comma? write " + printable(dotted) + ")";
  }
  return out;
}

double parse_parameter(const Parameter& p, const std::string& text) {
  const std::string t = trimmed(text);
  if (t.empty()) throw InvalidArgument("empty");
  if (p.kind == ParameterKind::Categorical) {
    const auto it = std::find(p.choices.begin(), p.choices.end(), t);
    if (it == p.choices.end()) throw InvalidArgument(quoted(t) + " is not one of the choices " + choices_text(p));
    return static_cast<double>(it - p.choices.begin());
  }
  const std::optional<double> v = parse_number(t);
  if (!v) throw InvalidArgument(not_a_number(t));
  if (!std::isfinite(*v)) throw InvalidArgument(quoted(t) + " is not finite");
  if (p.kind == ParameterKind::Integer && *v != std::round(*v)) throw InvalidArgument(quoted(t) + " is not an integer");
  if (*v < p.lower) throw InvalidArgument(quoted(t) + " is below the lower bound " + format_double(p.lower));
  if (*v > p.upper) throw InvalidArgument(quoted(t) + " is above the upper bound " + format_double(p.upper));
  return *v;
}

namespace {

// Conditional parameters left out (no --param, no CSV column, an empty cell) take their fixed
// values where their conditions do not hold; one left out where its condition holds is named.
// `bad[i]`: why a value given for conditional parameter i was refused (an error only where it is used).
void fill_left_out(Vector& x, const std::vector<bool>& left_out, const Space& space, const std::string& missing_text,
                   const std::vector<std::string>& bad) {
  for (std::size_t i = 0; i < space.dim(); ++i)
    if (left_out[i]) x[static_cast<Eigen::Index>(i)] = space[i].lower;
  const std::vector<bool> active = space.active(x);
  for (std::size_t i = 0; i < space.dim(); ++i) {
    if (!left_out[i] || !active[i]) continue;
    if (!bad[i].empty()) throw InvalidArgument(bad[i]);
    const Parameter::Condition& c = *space[i].condition;
    const Parameter& parent = space[c.parent];
    const double v = x[static_cast<Eigen::Index>(c.parent)];
    const std::string held = parent.kind == ParameterKind::Categorical ? parent.choices[static_cast<std::size_t>(v)] : format_double(v);
    throw InvalidArgument(missing_text + printable(space[i].name) + " (it is used where " + printable(parent.name) + " is " +
                          printable(held) + ")");
  }
  x = space.canonical(x);
}

}  // namespace

Vector point_from_params(const std::vector<std::string>& params, const Space& space) {
  Vector x(static_cast<Eigen::Index>(space.dim()));
  std::vector<bool> given(space.dim(), false);
  std::vector<std::string> bad(space.dim());
  for (const std::string& kv : params) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw InvalidArgument("--param expects NAME=VALUE, got " + quoted(kv));
    const std::string name = trimmed(kv.substr(0, eq));
    std::size_t i = 0;
    while (i < space.dim() && space[i].name != name) ++i;
    if (i == space.dim()) {
      std::string names;
      for (const auto& p : space.parameters()) names += (names.empty() ? "" : ", ") + printable(p.name);
      throw InvalidArgument("--param " + quoted(kv) + ": the study has no parameter " + quoted(name) + " (its parameters: " + names + ")");
    }
    if (given[i]) throw InvalidArgument("--param " + quoted(name) + " is given twice");
    given[i] = true;
    try {
      x[static_cast<Eigen::Index>(i)] = parse_parameter(space[i], kv.substr(eq + 1));
    } catch (const InvalidArgument& e) {
      if (!space[i].condition) throw InvalidArgument("--param " + quoted(kv) + ": " + e.what());
      bad[i] = "--param " + quoted(kv) + ": " + e.what();  // an error only where the parameter is used
    }
  }
  std::vector<bool> left_out(space.dim(), false);
  for (std::size_t i = 0; i < space.dim(); ++i) {
    if (given[i] && bad[i].empty()) continue;
    if (!space[i].condition)
      throw InvalidArgument("--param " + printable(space[i].name) + "=VALUE is missing (every parameter needs a value)");
    left_out[i] = true;  // a conditional parameter: needed only where its condition holds
  }
  fill_left_out(x, left_out, space, "a --param is missing: ", bad);  // validates x
  return x;
}

CsvColumns csv_columns(const std::string& file, const std::vector<std::string>& header, const Space& space,
                       const std::vector<std::string>& fields, const std::vector<std::string>& ignore) {
  // One cell holding "trial;temperature;value": a spreadsheet set to a language with decimal commas
  // separates cells with semicolons.
  if (header.size() == 1 && header[0].find_first_of(";\t") != std::string::npos)
    throw InvalidArgument(file + ": the header " + quoted(header[0]) + " is one cell: its cells are separated by '" +
                          (header[0].find(';') != std::string::npos ? ";" : "\\t") +
                          "', not commas; save the file as CSV with commas between cells (and points in numbers)");
  CsvColumns out{std::vector<std::size_t>(space.dim(), header.size()), std::vector<std::size_t>(fields.size(), header.size()), ""};
  for (const std::string& name : ignore)
    if (std::find(header.begin(), header.end(), name) == header.end())
      throw InvalidArgument("--ignore-column " + quoted(name) + " is not a column of " + file);
  std::string unknown;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string& name = header[c];
    if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(c), name) != header.begin() + static_cast<std::ptrdiff_t>(c))
      throw InvalidArgument(file + ": column " + quoted(name) + " appears twice in the header");
    if (std::find(ignore.begin(), ignore.end(), name) != ignore.end()) continue;
    if (const auto f = std::find(fields.begin(), fields.end(), name); f != fields.end()) {
      out.fields[static_cast<std::size_t>(f - fields.begin())] = c;
      continue;
    }
    // A parameter named like a column (trial, value, error) is written params_NAME (Optuna's naming).
    const auto param = [&](const std::string& n) {
      std::size_t i = 0;
      while (i < space.dim() && space[i].name != n) ++i;
      return i;
    };
    std::size_t i = name.rfind("params_", 0) == 0 ? param(name.substr(7)) : space.dim();
    if (i == space.dim()) i = param(name);
    if (i < space.dim()) out.params[i] = c;
    else unknown += (unknown.empty() ? "" : ", ") + quoted(name);
  }
  if (!unknown.empty()) {
    std::string names;
    for (const auto& p : space.parameters()) names += (names.empty() ? "" : ", ") + printable(p.name);
    std::string allowed;
    for (std::size_t k = 0; k < fields.size(); ++k)
      allowed += (k == 0 ? "" : k + 1 == fields.size() ? " or " : ", ") + quoted(fields[k]);
    out.unknown = file + ": column(s) " + unknown + " are neither parameters of the study (" + names + ") nor " + allowed +
                  "; skip them with --ignore-column NAME" +
                  (std::find(header.begin(), header.end(), "") != header.end() && std::find(ignore.begin(), ignore.end(), "") == ignore.end()
                       ? " (a column without a name, such as the index pandas writes: --ignore-column '')"
                       : "");
  }
  return out;
}

std::vector<StudyEvaluation> read_evaluations_csv(const std::string& path, const Space& space,
                                                  const std::vector<std::string>& ignore, std::vector<std::size_t>* lines) {
  const std::vector<CsvRow> rows = read_csv(path);
  const std::string file = "'" + printable(path) + "'";
  if (rows.empty()) throw InvalidArgument(file + " is empty: it needs a header naming the parameters and 'value'");
  const std::vector<std::string>& header = rows[0].cells;
  if (std::find(header.begin(), header.end(), "trial") != header.end() &&
      std::find(ignore.begin(), ignore.end(), "trial") == ignore.end())
    throw InvalidArgument(file + " has a 'trial' column: trials asked with 'study ask' are told with 'study tell' (--from "
                          "takes this file); 'study add' records experiments no one asked");
  const CsvColumns columns = csv_columns(file, header, space, {"value", "error"}, ignore);
  std::string missing;
  for (std::size_t i = 0; i < space.dim(); ++i)  // a conditional parameter's column may be left out
    if (columns.params[i] == header.size() && !space[i].condition)
      missing += (missing.empty() ? "" : ", ") + quoted(csv_parameter_header(space[i].name));
  if (columns.fields[0] == header.size()) missing += std::string(missing.empty() ? "" : ", ") + "'value'";
  if (!missing.empty()) {
    std::string names;
    for (const auto& h : header) names += (names.empty() ? "" : ", ") + printable(h);
    throw InvalidArgument(file + ": the header has no column " + missing + " (its columns: " + names + ")");
  }
  if (!columns.unknown.empty()) throw InvalidArgument(columns.unknown);
  const std::vector<std::size_t>& param_col = columns.params;
  const std::size_t value_col = columns.fields[0], error_col = columns.fields[1];

  std::vector<StudyEvaluation> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    const std::string where = file + " line " + std::to_string(row.line);
    if (row.cells.size() != header.size())
      throw InvalidArgument(where + ": " + cell_count_text(row.cells.size(), header.size()) + " (nothing was added)");
    StudyEvaluation e;
    e.x.resize(static_cast<Eigen::Index>(space.dim()));
    std::vector<bool> left_out(space.dim(), false);
    std::vector<std::string> bad(space.dim());
    for (std::size_t i = 0; i < space.dim(); ++i) {
      // A conditional parameter's empty cell (or absent column): used only where its condition holds.
      if (space[i].condition && (param_col[i] == header.size() || trimmed(row.cells[param_col[i]]).empty())) {
        left_out[i] = true;
        continue;
      }
      try {
        e.x[static_cast<Eigen::Index>(i)] = parse_parameter(space[i], row.cells[param_col[i]]);
      } catch (const InvalidArgument& ex) {
        if (!space[i].condition)
          throw InvalidArgument(where + ", column " + quoted(csv_parameter_header(space[i].name)) + ": " + ex.what() +
                                " (nothing was added)");
        bad[i] = "column " + quoted(csv_parameter_header(space[i].name)) + ": " + ex.what();  // an error only where used
        left_out[i] = true;
      }
    }
    try {
      fill_left_out(e.x, left_out, space, "no value for ", bad);
    } catch (const InvalidArgument& ex) {
      throw InvalidArgument(where + ": " + ex.what() + " (nothing was added)");
    }
    const std::string value = trimmed(row.cells[value_col]);
    const std::string error = error_col < header.size() ? trimmed(row.cells[error_col]) : "";
    if (is_failed_word(value)) {
      e.error = error.empty() ? "failed" : error;
    } else {
      const std::optional<double> v = parse_number(value);
      std::string bad;
      if (value.empty()) bad = "empty; write a number, or 'failed' for a failed experiment";
      else if (!v) bad = not_a_number(value) + " (nor 'failed')";
      else if (!std::isfinite(*v)) bad = quoted(value) + " is not finite; write 'failed' for a failed experiment";
      else if (!error.empty()) bad = "an 'error' (" + quoted(error) + ") goes with value 'failed', not with a value";
      if (!bad.empty()) throw InvalidArgument(where + ", column 'value': " + bad + " (nothing was added)");
      e.value = *v;
    }
    space.validate(e.x);
    out.push_back(std::move(e));
    if (lines) lines->push_back(row.line);
  }
  return out;
}

void print_asked(std::ostream& out, const Space& space, const std::vector<StudyTrial>& trials, const std::string& format) {
  if (format == "json") {
    for (const StudyTrial& t : trials) {
      // In the space's order, the trial's number first.
      nlohmann::ordered_json params = nlohmann::ordered_json::object();
      const std::vector<bool> active = space.active(t.x);  // inactive conditional parameters left out
      for (std::size_t i = 0; i < space.dim(); ++i)
        if (active[i]) params[space[i].name] = value_json(space[i], t.x[static_cast<Eigen::Index>(i)]);
      nlohmann::ordered_json line = nlohmann::ordered_json::object();
      line["trial"] = t.number;
      line["params"] = std::move(params);
      out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
          << "\n";
    }
    out.flush();
    return;
  }
  std::vector<std::vector<std::string>> table{{"trial"}};
  for (const auto& p : space.parameters()) table[0].push_back(csv_parameter_header(p.name));
  for (const StudyTrial& t : trials) {
    std::vector<std::string> row{std::to_string(t.number)};
    const std::vector<bool> active = space.active(t.x);  // an unused conditional parameter: an empty cell
    for (std::size_t i = 0; i < space.dim(); ++i)
      row.push_back(active[i] ? parameter_text(space[i], t.x[static_cast<Eigen::Index>(i)]) : "");
    table.push_back(std::move(row));
  }
  if (format == "csv") {
    for (const auto& row : table) {
      for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_cell(row[c]);
      out << "\n";
    }
    out.flush();
    return;
  }
  if (trials.empty()) return;
  std::vector<std::size_t> width(table[0].size(), 0);
  for (auto& row : table)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], (row[c] = printable(row[c])).size());
  for (const auto& row : table) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out << line << "\n";
  }
  out.flush();
}

namespace {
constexpr const char* kLostMarker = "as JSON: {";
}  // namespace

// A worker's log: some line holds the marker (its other lines are skipped when read).
bool holds_worker_log(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.find(kLostMarker) != std::string::npos) return true;
  return false;
}

bool holds_json_lines(const std::string& path) {
  if (holds_worker_log(path)) return true;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const std::string t = trimmed(line);
    if (!t.empty()) return t.front() == '{';
  }
  return false;
}

std::vector<StudyEvaluation> read_evaluations_json_lines(const std::string& path, const Space& space,
                                                         const std::string& study_name, std::vector<std::size_t>* lines) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument("cannot read '" + printable(path) + "'");
  const bool log = holds_worker_log(path);  // a worker's whole log: its other lines are skipped
  std::vector<StudyEvaluation> out;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string where = "'" + printable(path) + "' line " + std::to_string(number);
    std::string text = trimmed(line);
    if (text.empty()) continue;
    if (const auto at = text.find(kLostMarker); at != std::string::npos) text = text.substr(at + std::string(kLostMarker).size() - 1);
    else if (log) continue;
    else if (text.front() != '{')
      throw InvalidArgument(where + " is neither a JSON object nor a worker's \"as JSON: {...}\" line (nothing was added)");
    try {
      const nlohmann::json j = parse_json_rejecting_duplicate_keys(text);
      if (!j.is_object() || !j.contains("x"))
        throw InvalidArgument("needs an object with \"x\" and \"value\" (or \"error\"), got " + printable(text.substr(0, 200)));
      if (j.contains("study") && (!j.at("study").is_string() || j.at("study").get<std::string>() != study_name))
        throw InvalidArgument("is an evaluation of study " + j.at("study").dump() + ", not '" + printable(study_name) + "'");
      StudyEvaluation e;
      e.x = space.point_from_json(j.at("x"));
      if (j.contains("value")) {
        if (!j.at("value").is_number()) throw InvalidArgument("\"value\" must be a number, got " + j.at("value").dump());
        e.value = j.at("value").get<double>();
        if (!std::isfinite(*e.value)) throw InvalidArgument("\"value\" is not finite");
      } else if (j.contains("error")) {
        e.error = j.at("error").is_string() ? j.at("error").get<std::string>() : j.at("error").dump();
      } else {
        throw InvalidArgument("has neither \"value\" nor \"error\"");
      }
      out.push_back(std::move(e));
      if (lines) lines->push_back(number);
    } catch (const std::exception& e) {
      throw InvalidArgument(where + ": " + e.what() + " (nothing was added)");
    }
  }
  if (out.empty()) throw InvalidArgument("'" + printable(path) + "' holds no evaluation");
  return out;
}

}  // namespace optimist::cli
