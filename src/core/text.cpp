#include "core/text.hpp"

#include <algorithm>
#include <cctype>

namespace optimist {

namespace {

/// Length of the valid UTF-8 character at s[i] (strict, as nlohmann's parser), 0 if none.
std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = at(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b >= 0xC2 && b <= 0xDF) n = 2;
  else if (b >= 0xE0 && b <= 0xEF) n = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
  else if (b >= 0xF0 && b <= 0xF4) n = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view s, bool keep_lines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_char_length(s, i);
    if (n == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) {  // a C1 control
      const auto c = static_cast<unsigned char>(s[i + 1]);
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (n > 1 || (n == 1 && b >= 0x20 && b != 0x7F) || (keep_lines && (b == '\n' || b == '\t'))) {
      out.append(s.substr(i, n));
    } else {
      out += b == '\n' ? "\\n" : b == '\r' ? "\\r" : b == '\t' ? "\\t" : std::string{'\\', 'x', kHex[b >> 4], kHex[b & 15]};
    }
    i += n > 0 ? n : 1;
  }
  return out;
}

std::string shell_word(std::string_view text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-./+,:@%=") == std::string_view::npos;
  if (plain) return std::string(text);
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

std::string folded(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_name(std::string_view name, const std::vector<std::string>& valid) {
  // Names typed by a user are short; a long one (a pasted file) is no typo of a name.
  if (name.empty() || name.size() > 200) return "";
  const std::string key = folded(name);
  for (const auto& v : valid)
    if (folded(v) == key) return v;
  const std::size_t limit = std::clamp<std::size_t>(key.size() / 3, 1, 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& v : valid) {
    if (v.size() > key.size() + limit || key.size() > v.size() + limit) continue;
    const std::size_t d = edit_distance(key, folded(v));
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& valid) {
  const std::string best = closest_name(name, valid);
  if (best.empty()) return "";
  std::string hint = " (did you mean '";
  hint += best;
  hint += "'?)";
  return hint;
}

bool folder_safe_name(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '+';
  });
}

}  // namespace optimist
