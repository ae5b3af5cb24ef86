// Text that comes from a program or a user (an objective's output or exception message, a study or
// parameter name) made fit to show and to store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optimist {

/// `text` with each byte that is not part of valid UTF-8 and each control character written as an
/// escape: \xff, \x1b, \n, \r, \t, and \u0085 for the C1 controls (U+0080-U+009F, which terminals
/// also obey). keep_lines keeps newlines and tabs. A raw byte made the trace's JSON writer throw,
/// ending a run and losing its evaluation; PostgreSQL refuses it; an escape sequence reaches the
/// user's terminal.
std::string printable(std::string_view text, bool keep_lines = false);

/// `text` as one shell word, for a command shown to be pasted: as it is when nothing in it is
/// special to the shell, else in single quotes (a quote in it written '\'').
std::string shell_word(std::string_view text);

/// The name of `valid` that `name` was most likely meant to be, for "did you mean" hints: one that
/// differs only in case (GP-EI: gp-ei) or in '_' for '-', else the closest by edit distance
/// (insertions, deletions, substitutions and swaps of two neighbours: branni -> branin, gpei ->
/// gp-ei), within a third of the name's length (at least 1, at most 3). "" when none is that close.
std::string closest_name(std::string_view name, const std::vector<std::string>& valid);

/// Whether `name` can name a folder and a file as it is (an algorithm, a sweep's label): letters,
/// digits, - _ . +, and neither "", "." nor "..". No separators, nothing a shell would mangle.
bool folder_safe_name(std::string_view name);

/// " (did you mean 'branin'?)" for closest_name's answer, "" when there is none.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& valid);

}  // namespace optimist
