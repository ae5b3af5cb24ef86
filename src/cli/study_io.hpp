// The text forms of `optimist study ask|tell|add`: parameter values by name, the asked trials as
// a table, JSON lines or CSV, and the CSV of past experiments (docs/studies.md).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "optimist/study/study.hpp"

namespace optimist::cli {

/// `study ask`: fewer trials than --count could be asked (the budget is used or a finite space is
/// exhausted); those that were asked are printed.
constexpr int kExitNoTrialLeft = 3;

/// A number written in full ("1.5", "-2e3", "+4"; blanks around it allowed); none otherwise.
std::optional<double> parse_number(const std::string& text);

/// "'TEXT' is not a number", with a hint for a decimal comma ("1,5").
std::string not_a_number(const std::string& text);
/// "N cells, the header has M", with a hint for a comma that split a cell.
std::string cell_count_text(std::size_t cells, std::size_t header);

/// --lease: "forever" (none: until told) or a duration, "90m", "36h", "14d", "2w", "600s", "600".
/// Throws InvalidArgument naming the text unless it is > 0.
std::optional<double> parse_lease(const std::string& text);

/// One parameter's value from its text: a number within the bounds (an integer for an integer
/// parameter) or one of the choices. Throws InvalidArgument saying what is wrong (without saying where).
double parse_parameter(const Parameter& p, const std::string& text);

/// A coordinate as text: the choice, an integer, or a float in full (it reads back to the same double).
std::string parameter_text(const Parameter& p, double v);

/// A parameter's column in a CSV file: its name, or params_NAME for a name that is also a column
/// of the file (trial, value, error), as Optuna's trials_dataframe names them.
std::string csv_parameter_header(const std::string& name);

/// "failed" in any case: a failed experiment's value cell.
bool is_failed_word(const std::string& text);
/// A `study tell --from` value cell that gives the trial back unevaluated: "given back" (or
/// "give back"), any case.
bool is_given_back_word(const std::string& text);

/// A point from NAME=VALUE texts, one per parameter of the space; InvalidArgument naming the
/// offending text, a missing or unknown name.
Vector point_from_params(const std::vector<std::string>& params, const Space& space);

/// Evaluations from a CSV file: a header naming every parameter of the space and "value"
/// (optionally "error"), then one row per evaluation; "value" is a finite number or "failed".
/// Columns in `ignore` are skipped. Every row is checked first: InvalidArgument naming the line
/// and column of the first bad cell, and nothing is returned. `lines`, if given, receives each
/// evaluation's line in the file.
std::vector<StudyEvaluation> read_evaluations_csv(const std::string& path, const Space& space,
                                                  const std::vector<std::string>& ignore,
                                                  std::vector<std::size_t>* lines = nullptr);

/// The evaluations a worker could not store (its "could not store an evaluation ... as JSON: {...}"
/// lines, whole or from "{" on: {"study", "trial", "x", "value" or "error"}), read back from a file
/// for `study add --from`; lines of another study are refused. `lines` gets each one's line number.
std::vector<StudyEvaluation> read_evaluations_json_lines(const std::string& path, const Space& space,
                                                         const std::string& study_name, std::vector<std::size_t>* lines);

/// Whether `path` holds such JSON lines rather than a CSV table (its first non-blank line starts
/// with '{' or holds "as JSON: {").
bool holds_json_lines(const std::string& path);

/// One record of a CSV file (RFC 4180: quoted cells may hold commas, doubled quotes and line
/// breaks; unquoted cells are trimmed; CRLF and a byte-order mark are fine) and the line it starts on.
struct CsvRow {
  std::size_t line = 0;
  std::vector<std::string> cells;
};
/// The records of a CSV file, blank lines and rows of empty cells skipped; InvalidArgument if it cannot be read or a quote is never closed.
std::vector<CsvRow> read_csv(const std::string& path);

/// Where each column of a CSV header goes: the parameters of `space` (absent: the header's size),
/// the named `fields` (e.g. "value", "error"); the columns named by --ignore-column are skipped.
/// InvalidArgument for a column twice or an --ignore-column not in the header; `unknown` is the
/// message for the other columns (naming them and what is allowed), to throw once missing columns are said.
struct CsvColumns {
  std::vector<std::size_t> params;
  std::vector<std::size_t> fields;
  std::string unknown;
};
CsvColumns csv_columns(const std::string& file, const std::vector<std::string>& header, const Space& space,
                       const std::vector<std::string>& fields, const std::vector<std::string>& ignore);

/// The asked trials: "table" (aligned, for people), "json" (one {"trial", "params"} object per
/// line) or "csv" (a header "trial,<parameter names>"). Floats are written in full (they read back
/// to the same double), integers as integers, categorical values as their choice.
void print_asked(std::ostream& out, const Space& space, const std::vector<StudyTrial>& trials, const std::string& format);

}  // namespace optimist::cli
