#include "dashboard/trace_source.hpp"

#include <algorithm>
#include <filesystem>

namespace optimist::dashboard {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTraceSuffix = ".jsonl";
constexpr const char* kPartialSuffix = ".jsonl.partial";  // a bench run still writing its trace

// Names in the order a person numbers runs: "r2" before "r10" (a plain string order put "r10"
// first), digit runs compared by value.
bool natural_less(const std::string& a, const std::string& b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Without leading zeros, a longer run of digits is the larger number.
      std::size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      if (const int c = a.compare(is, ie - is, b, js, je - js); c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no
// surrogates, at most U+10FFFF), 0 if the byte there starts none.
std::size_t utf8_sequence(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = byte(i);
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(k) >= lo && byte(k) <= hi; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

// A file name is bytes; the API's ids and names are JSON text. A byte that is not part of valid
// UTF-8 is written as \xNN, so such a trace can be listed and opened by its id (the id maps to
// the path; the file itself is opened by its path).
std::string as_text(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    if (const std::size_t n = utf8_sequence(name, i); n > 0) {
      out.append(name, i, n);
      i += n;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto b = static_cast<unsigned char>(name[i++]);
      out += {'\\', 'x', kHex[b >> 4], kHex[b & 15]};
    }
  }
  return out;
}

// The id of a trace: its path without the suffix, so that a `.partial` trace keeps its id once
// renamed at the end of its run; as text (as_text).
std::string trace_id(const std::string& path) {
  for (const std::string suffix : {kPartialSuffix, kTraceSuffix})
    if (ends_with(path, suffix)) return as_text(path.substr(0, path.size() - suffix.size()));
  return as_text(path);
}

}  // namespace

TraceSource::TraceSource(std::vector<std::string> paths, std::chrono::milliseconds rescan_interval,
                         std::chrono::milliseconds writer_check_interval)
    : roots_(std::move(paths)), rescan_interval_(rescan_interval), writer_check_interval_(writer_check_interval) {
  for (const auto& root : roots_) {
    std::error_code ec;
    if (!fs::exists(root, ec))
      throw InvalidArgument("'" + root + "' does not exist (expected a trace file or a folder of traces)");
  }
  std::lock_guard lock(mutex_);
  rescan();
  // A few traces are read whole now, so that the page's first load finds them ready; a folder
  // of many is read as the page asks (summaries first).
  constexpr std::size_t kReadAhead = 16;
  if (followers_.size() <= kReadAhead) {
    for (auto& entry : followers_) {
      entry.second.keep_trials();
      entry.second.refresh();
    }
  }
}

void TraceSource::rescan() {
  const auto now = std::chrono::steady_clock::now();
  if (!followers_.empty() && now - last_scan_ < rescan_interval_) return;
  last_scan_ = now;

  std::map<std::string, std::string> found;  // id -> path; a finished trace wins over its .partial
  auto add = [&](const std::string& id, const std::string& path) {
    auto [it, inserted] = found.emplace(id, path);
    if (!inserted && ends_with(it->second, kPartialSuffix)) it->second = path;
  };
  for (const auto& root : roots_) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      add(trace_id(root), root);  // an explicit file stays listed even when it cannot be read
      continue;
    }
    const auto options = fs::directory_options::skip_permission_denied;
    for (auto it = fs::recursive_directory_iterator(root, options, ec); !ec && it != fs::end(it); it.increment(ec)) {
      const std::string path = it->path().string();
      if (!it->is_regular_file(ec) || !(ends_with(path, kTraceSuffix) || ends_with(path, kPartialSuffix))) continue;
      // With one folder, ids are relative to it; with several, they keep the folder's path.
      const std::string shown = roots_.size() == 1 ? fs::relative(it->path(), root, ec).string() : path;
      add(trace_id(shown.empty() ? path : shown), path);
    }
  }
  std::erase_if(followers_, [&](const auto& entry) { return !found.contains(entry.first); });
  // Files named one by one show as their file names, unless two share one.
  names_.clear();
  std::map<std::string, int> uses;
  for (const auto& root : roots_)
    if (std::error_code ec; !fs::is_directory(root, ec)) ++uses[fs::path(trace_id(root)).filename().string()];
  for (const auto& root : roots_) {
    const std::string name = fs::path(trace_id(root)).filename().string();
    if (std::error_code ec; !fs::is_directory(root, ec) && uses[name] == 1) names_[trace_id(root)] = name;
  }
  for (const auto& [id, path] : found) {
    auto [it, inserted] = followers_.try_emplace(id, path, writer_check_interval_);
    if (!inserted && it->second.path() != path) it->second.set_path(path);
  }
}

TraceFollower& TraceSource::follower(const std::string& id) {
  rescan();
  const auto it = followers_.find(id);
  if (it == followers_.end()) {
    std::vector<std::string> known;
    for (const auto& entry : followers_) known.push_back(entry.first);
    throw NotFound(not_found_message(id, known));
  }
  return it->second;
}

StudySummary TraceSource::summary_of(const std::string& id, const TraceFollower& follower) const {
  StudySummary s = follower.summary();
  s.id = id;
  const auto named = names_.find(id);
  s.name = named == names_.end() ? id : named->second;
  return s;
}

std::vector<StudySummary> TraceSource::studies() {
  std::lock_guard lock(mutex_);
  rescan();
  std::vector<StudySummary> out;
  out.reserve(followers_.size());
  for (auto& [id, f] : followers_) {
    f.refresh();
    out.push_back(summary_of(id, f));
  }
  std::stable_sort(out.begin(), out.end(), [](const StudySummary& a, const StudySummary& b) { return natural_less(a.name, b.name); });
  return out;
}

StudyDetail TraceSource::study(const std::string& id) {
  std::lock_guard lock(mutex_);
  TraceFollower& f = follower(id);
  f.refresh();
  StudyDetail d = f.detail();
  d.summary = summary_of(id, f);
  return d;
}

TrialPage TraceSource::trials(const std::string& id, const TrialQuery& query) {
  std::lock_guard lock(mutex_);
  TraceFollower& f = follower(id);
  f.keep_trials();
  f.refresh();
  TrialPage page;
  page.summary = summary_of(id, f);
  add_to_page(f.trials(), query, false, page);
  add_to_page(f.trials(), query, true, page);
  return page;
}

std::string TraceSource::describe() {
  std::lock_guard lock(mutex_);
  rescan();
  std::string where;
  for (const auto& root : roots_) where += (where.empty() ? "" : ", ") + root;
  const std::size_t n = followers_.size();
  return std::to_string(n) + (n == 1 ? " trace" : " traces") + " from " + where;
}

}  // namespace optimist::dashboard
