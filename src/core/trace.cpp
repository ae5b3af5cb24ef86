// JSON Lines trace writer and reader; the format is specified in docs/trace-format.md. Above 400
// lines: the writer and the reader of one format are kept in one file so they change together.
// The trace's lock (TraceLock) is in trace_lock.cpp.
#include "optimist/core/trace.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

namespace optimist {

namespace {

// Lines are built as ordered_json so that a trace reads in a fixed, human-friendly key order
// ("i" first) instead of nlohmann::json's alphabetical order.
using ordered_json = nlohmann::ordered_json;

// JSON has no NaN or infinity; absent and non-finite values are both written as null.
ordered_json number_or_null(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

// The core fields, then room for several objectives, black-box constraints and intermediate values
// (docs/trace-format.md, "Room for what comes next"): never a diagnostic's name.
constexpr std::array<std::string_view, 15> kReservedKeys = {
    "i", "x", "y", "f", "regret", "cum_regret", "best_f", "suggest_s", "eval_s", "tell_s", "status", "error",
    "values", "constraints", "intermediate"};

bool is_reserved(const std::string& key) {
  for (std::string_view r : kReservedKeys)
    if (key == r) return true;
  return false;
}

ordered_json point_or_null(const Vector& x, const Space& space) {
  if (x.size() == 0) return nullptr;
  return ordered_json(space.point_to_json(x));
}

ordered_json evaluation_line(const EvaluationRecord& r, const Space& space) {
  ordered_json j;
  j["i"] = r.i;
  j["x"] = point_or_null(r.x, space);
  j["y"] = r.failed ? ordered_json(nullptr) : number_or_null(r.y);
  j["f"] = number_or_null(r.f);
  j["regret"] = number_or_null(r.regret);
  j["cum_regret"] = number_or_null(r.cum_regret);
  j["best_f"] = number_or_null(r.best_f);
  j["suggest_s"] = number_or_null(r.suggest_s);
  j["eval_s"] = number_or_null(r.eval_s);
  j["tell_s"] = number_or_null(r.tell_s);
  j["status"] = r.failed ? "failed" : "ok";
  if (r.failed) j["error"] = r.error;
  if (r.diagnostics.is_object()) {
    for (const auto& [key, value] : r.diagnostics.items()) {
      // A diagnostic must never shadow a core field; it keeps its value under a prefixed key.
      j[is_reserved(key) ? "diag_" + key : key] = ordered_json(value);
    }
  }
  return j;
}

[[noreturn]] void meta_error(const std::string& what) {
  throw InvalidArgument("trace meta: " + what);
}

const nlohmann::json& required(const nlohmann::json& m, const char* key) {
  const auto it = m.find(key);
  if (it == m.end()) meta_error(std::string("missing '") + key + "'");
  return *it;
}

std::string get_string(const nlohmann::json& m, const char* key) {
  const auto& v = required(m, key);
  if (!v.is_string()) meta_error(std::string("'") + key + "' must be a string, got " + v.dump());
  return v.get<std::string>();
}

std::uint64_t get_unsigned(const nlohmann::json& v, const char* key) {
  if (!v.is_number_unsigned())
    meta_error(std::string("'") + key + "' must be a non-negative integer, got " + v.dump());
  return v.get<std::uint64_t>();
}

std::optional<double> get_number_or_null(const nlohmann::json& m, const char* key) {
  const auto it = m.find(key);
  if (it == m.end() || it->is_null()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>()))
    meta_error(std::string("'") + key + "' must be a finite number or null, got " + it->dump());
  return it->get<double>();
}

std::string trim_cr(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the id is noise to a user.
std::string strip_json_prefix(const std::string& what) {
  if (!what.empty() && what.front() == '[') {
    const auto end = what.find("] ");
    if (end != std::string::npos) return what.substr(end + 2);
  }
  return what;
}

// Several objectives and black-box constraints change what a value means: a trace that has them
// is refused by name, never read as a single-objective run (docs/trace-format.md).
void refuse_what_comes_next(const nlohmann::json& m) {
  const std::string writer = m.contains("version") && m.at("version").is_string() ? m.at("version").get<std::string>() : "?";
  const std::string newer = "; this optimist (" + std::string(optimist::version()) +
                            ") reads traces of one objective without constraints (the trace was written by " + writer + ")";
  if (m.contains("objectives")) {
    const nlohmann::json& o = m.at("objectives");
    if (!o.is_array()) meta_error("'objectives' must be an array, got " + o.dump());
    if (o.size() != 1) meta_error("the run has " + std::to_string(o.size()) + " objectives ('objectives')" + newer);
  }
  if (m.contains("constraints")) {
    const nlohmann::json& c = m.at("constraints");
    if (!c.is_array()) meta_error("'constraints' must be an array, got " + c.dump());
    if (!c.empty()) meta_error("the run has " + std::to_string(c.size()) + " black-box constraint(s) ('constraints')" + newer);
  }
}

}  // namespace

nlohmann::json TraceMeta::to_json() const {
  ordered_json m;
  m["algorithm"] = algorithm;
  m["options"] = ordered_json(options);
  if (!decisions.empty()) m["decisions"] = ordered_json(decisions);
  m["problem"] = problem;
  m["dim"] = dim;
  m["seed"] = seed;
  m["noise"] = std::isfinite(noise) ? ordered_json(noise) : ordered_json(nullptr);
  m["noisy"] = noisy;
  m["direction"] = optimist::to_string(direction);
  m["f_star"] = number_or_null(f_star);
  m["budget"] = budget;
  m["horizon"] = horizon ? ordered_json(*horizon) : ordered_json(nullptr);
  m["space"] = ordered_json(space);
  if (!run.empty()) m["run"] = ordered_json(run);
  if (!objective_command.empty()) m["objective_command"] = objective_command;
  if (user_objective) m["user_objective"] = true;
  m["version"] = optimist::version();
  m["revision"] = optimist::revision();
  return nlohmann::json(m);
}

TraceMeta TraceMeta::from_json(const nlohmann::json& j) {
  // Accept both the whole first line {"meta": {...}} and the inner object.
  const nlohmann::json& m = (j.is_object() && j.contains("meta")) ? j.at("meta") : j;
  if (!m.is_object()) meta_error("expected an object, got " + m.dump());
  TraceMeta meta;
  if (m.contains("revision") && m.at("revision").is_string()) meta.revision = m.at("revision").get<std::string>();
  meta.algorithm = get_string(m, "algorithm");
  meta.problem = get_string(m, "problem");
  meta.dim = static_cast<std::size_t>(get_unsigned(required(m, "dim"), "dim"));
  meta.budget = static_cast<std::size_t>(get_unsigned(required(m, "budget"), "budget"));
  meta.direction = parse_direction(get_string(m, "direction"));
  meta.has_seed = m.contains("seed");
  if (meta.has_seed) meta.seed = get_unsigned(m.at("seed"), "seed");
  if (m.contains("horizon") && !m.at("horizon").is_null())
    meta.horizon = static_cast<std::size_t>(get_unsigned(m.at("horizon"), "horizon"));
  meta.noise = get_number_or_null(m, "noise").value_or(0.0);
  meta.noisy = meta.noise > 0.0;  // traces written before "noisy" was recorded
  if (m.contains("noisy")) {
    if (!m.at("noisy").is_boolean()) meta_error("'noisy' must be true or false, got " + m.at("noisy").dump());
    meta.noisy = m.at("noisy").get<bool>();
  }
  meta.f_star = get_number_or_null(m, "f_star");
  if (m.contains("options")) {
    if (!m.at("options").is_object()) meta_error("'options' must be an object");
    meta.options = m.at("options");
  }
  if (m.contains("decisions")) {
    if (!m.at("decisions").is_object()) meta_error("'decisions' must be an object, got " + m.at("decisions").dump());
    meta.decisions = m.at("decisions");
  }
  if (m.contains("space")) meta.space = m.at("space");
  if (m.contains("run")) {
    if (!m.at("run").is_object()) meta_error("'run' must be an object, got " + m.at("run").dump());
    meta.run = m.at("run");
  }
  if (m.contains("objective_command")) meta.objective_command = get_string(m, "objective_command");
  if (m.contains("user_objective")) {
    if (!m.at("user_objective").is_boolean()) meta_error("'user_objective' must be true or false, got " + m.at("user_objective").dump());
    meta.user_objective = m.at("user_objective").get<bool>();
  }
  refuse_what_comes_next(m);
  return meta;
}

nlohmann::json evaluation_to_json(const EvaluationRecord& r, const Space& space) {
  return nlohmann::json(evaluation_line(r, space));
}

EvaluationRecord evaluation_from_json(const nlohmann::json& line, const Space& space) {
  const auto field = [&line](const char* key) -> const nlohmann::json& {
    static const nlohmann::json null_value;
    const auto it = line.find(key);
    return it == line.end() ? null_value : *it;
  };
  const auto bad = [&line](const std::string& what) -> InvalidArgument {
    const auto i = line.find("i");
    return InvalidArgument("evaluation " + (i == line.end() ? std::string("?") : i->dump()) + ": " + what);
  };
  const auto number = [&](const char* key) -> std::optional<double> {
    const nlohmann::json& v = field(key);
    if (v.is_null()) return std::nullopt;
    // An overflowing number (1e999) reads as infinity; nothing in a trace may be infinite.
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      throw bad(std::string("\"") + key + "\" must be a finite number or null, got " + v.dump());
    return v.get<double>();
  };
  if (!line.is_object()) throw InvalidArgument("evaluation line must be a JSON object, got " + line.dump());
  EvaluationRecord r;
  const nlohmann::json& i = field("i");
  if (!i.is_number_integer() || i.get<std::int64_t>() < 1) throw bad("\"i\" must be a positive integer, got " + i.dump());
  r.i = i.get<std::size_t>();
  try {
    r.x = space.point_from_json(field("x"));
  } catch (const InvalidArgument& e) {
    throw bad(std::string("\"x\": ") + e.what());
  }
  const nlohmann::json& status = field("status");
  if (status != "ok" && status != "failed") throw bad("\"status\" must be \"ok\" or \"failed\", got " + status.dump());
  r.failed = status == "failed";
  r.y = number("y");
  if (!r.failed && !(r.y && std::isfinite(*r.y))) throw bad("an \"ok\" evaluation needs a finite \"y\", got " + field("y").dump());
  r.f = number("f");
  r.regret = number("regret");
  r.cum_regret = number("cum_regret");
  r.best_f = number("best_f");
  r.suggest_s = number("suggest_s").value_or(0.0);
  r.eval_s = number("eval_s").value_or(0.0);
  r.tell_s = number("tell_s").value_or(0.0);
  if (r.failed) {
    r.y.reset();
    const nlohmann::json& error = field("error");
    r.error = error.is_string() ? error.get<std::string>() : "failed";
  }
  r.diagnostics = nlohmann::json::object();
  for (const auto& [key, value] : line.items())
    if (!is_reserved(key)) r.diagnostics[key] = value;
  return r;
}

std::vector<EvaluationRecord> evaluations_from_trace(const Trace& trace, const Space& space) {
  std::vector<EvaluationRecord> records;
  records.reserve(trace.evaluations.size());
  for (const auto& line : trace.evaluations) {
    records.push_back(evaluation_from_json(line, space));
    if (records.back().i != records.size())
      throw InvalidArgument("evaluation " + std::to_string(records.back().i) + " found where " +
                            std::to_string(records.size()) + " was expected (evaluations must be numbered 1, 2, ...)");
  }
  return records;
}

void record_resume(TraceMeta& meta, const TraceMeta& earlier, std::size_t count) {
  // Earlier resume points as written, if they can be ones (ascending counts up to this one); an
  // edited entry is dropped rather than carried forward.
  const nlohmann::json written = earlier.run.value("resumed_after", nlohmann::json::array());
  nlohmann::json after = nlohmann::json::array();
  if (written.is_array())
    for (const auto& k : written)
      if (k.is_number_unsigned() && k.get<std::size_t>() <= count &&
          (after.empty() || after.back().get<std::size_t>() <= k.get<std::size_t>()))
        after.push_back(k);
  after.push_back(count);
  meta.run["resumed_after"] = after;
}

void record_start_points(TraceMeta& meta, const Space& space, const std::vector<Vector>& points) {
  if (points.empty()) return;
  nlohmann::json& x0 = meta.run["x0"] = nlohmann::json::array();
  for (const Vector& x : points) x0.push_back(space.point_to_json(x));
}

std::vector<Vector> start_points_from_json(const nlohmann::json& points, const Space& space, const std::string& what) {
  if (!points.is_array()) throw InvalidArgument(what + " must be a list of points, got " + points.dump());
  std::vector<Vector> out;
  for (std::size_t k = 0; k < points.size(); ++k) {
    try {
      out.push_back(space.point_from_json(points[k]));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(what + "[" + std::to_string(k) + "] " + points[k].dump() + ": " + e.what());
    }
  }
  return out;
}

std::vector<Vector> recorded_start_points(const TraceMeta& meta, const Space& space) {
  const nlohmann::json none = nlohmann::json::array();
  return start_points_from_json(meta.run.is_object() ? meta.run.value("x0", none) : none, space, "run.x0");
}

namespace {

// A finished trace at `path` holding the user's own evaluations is kept under the first free of
// NAME.1.jsonl, NAME.2.jsonl, ...; returns that name, or "" when there was nothing to keep.
std::string keep_finished(const std::string& path, std::size_t evaluations) {
  std::error_code ec;
  const std::filesystem::path p(path);
  const std::string stem = (p.parent_path() / p.stem()).string(), ext = p.extension().string();
  for (int k = 1;; ++k) {
    const std::string kept = stem + "." + std::to_string(k) + ext;
    if (std::filesystem::exists(kept, ec)) continue;
    std::filesystem::rename(path, kept, ec);
    if (ec) throw InvalidArgument("the trace '" + path + "' holds a finished run of " + std::to_string(evaluations) +
                                  " evaluations; it could not be kept as '" + kept + "' (" + ec.message() +
                                  "); write the trace to another file, or delete it first");
    return kept;
  }
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

}  // namespace

std::optional<Trace> check_trace_destination(const std::string& path, bool continuing) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) == 0 || ec) return std::nullopt;
  Trace old;
  try {
    old = read_trace(path);
  } catch (const std::exception& e) {
    throw InvalidArgument("the file '" + path + "' is there and is not a trace (" + e.what() +
                          "); write the trace to another file (--out, or trace= in Python), or delete it first");
  }
  if (continuing || old.evaluations.empty()) return std::nullopt;
  const std::string stop = old.recommend ? old.recommend->value("stop_reason", "") : "";
  if (!old.recommend || stop == "cancelled" || stop == "objective failed") {
    const std::string why = old.recommend ? "stopped early (" + stop + ")" : "did not finish";
    throw InvalidArgument("the trace '" + path + "' holds " + std::to_string(old.evaluations.size()) + " evaluations of a run that " +
                          why + "; continue it (optimist run --resume; resume= in Python, MinimizeOptions::resume in C++), or delete the file to start over");
  }
  return old;
}

TraceWriter::TraceWriter(const std::string& given_path, const TraceMeta& meta, const Space& space,
                         const std::vector<EvaluationRecord>& earlier, const TraceLock* held,
                         const std::string& resumed_from)
    : path_(given_path), space_(space) {
  // The destination stays locked from here on: by the caller's lock (the trace it resumes, however
  // spelled), or by ours, taken before the file is read (a trace another process writes is said to
  // be written, not to be an unfinished run to resume).
  const bool resumed_here = held && same_file(held->path(), given_path);
  std::optional<TraceLock> destination;
  if (!resumed_here) destination.emplace(given_path, /*create=*/true);
  // A resume copies its earlier evaluations into the file it writes: the trace they were read from
  // is its own to write over. Any other file is checked as for a new run, and a finished trace of
  // someone's own objective (its meta says so) is kept, whatever this run evaluates.
  bool continuing = false;
  if (!earlier.empty()) {
    if (held) continuing = resumed_here;  // the lock names the trace resumed
    else if (!resumed_from.empty()) continuing = same_file(resumed_from, given_path);
    else continuing = true;  // not said: the caller's own trace, as before resumed_from existed
  }
  if (!resumed_here) {
    const std::optional<Trace> finished = check_trace_destination(given_path, continuing);
    if (finished && (finished->meta.user_objective || !finished->meta.objective_command.empty()))
      kept_as_ = keep_finished(given_path, finished->evaluations.size());
    if (!kept_as_.empty()) {
      destination.reset();  // the lock went with the renamed file: take one on the new one
      destination.emplace(given_path, /*create=*/true);
    }
  }
  // Written under a temporary name first when there is history to copy (resume in place). The
  // temporary file is locked before it replaces the destination, so the lock never lapses. A
  // symbolic link is followed (its target is rewritten, the link stays) and the file keeps its
  // permissions (a private trace stays private).
  std::error_code ec;
  const std::string path = earlier.empty() ? given_path : std::filesystem::weakly_canonical(given_path, ec).string();
  if (ec) throw InvalidArgument("cannot resolve trace file '" + given_path + "': " + ec.message());
  const std::string first_name = earlier.empty() ? path : path + ".resume-tmp";
  if (!earlier.empty()) {
    // A resume in place replaces the file by a copy (rename), which its permissions do not stop:
    // a trace made read-only is refused as writing it directly would be (and is, but for root).
    const auto status = std::filesystem::status(path, ec);
    using std::filesystem::perms;
    if (!ec && std::filesystem::is_regular_file(status) &&
        (status.permissions() & (perms::owner_write | perms::group_write | perms::others_write)) == perms::none)
      throw InvalidArgument("the trace '" + given_path + "' is read-only; continue it into another file (--out, or trace= "
                            "in Python), or make it writable");
  }
  if (earlier.empty()) lock_ = std::move(destination);
  else lock_.emplace(first_name, /*create=*/true);
  out_.open(first_name, std::ios::out | std::ios::trunc);
  if (!out_) throw InvalidArgument("cannot write trace file '" + first_name + "'");
  if (first_name != path) {
    const auto status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status))
      std::filesystem::permissions(first_name, status.permissions(), std::filesystem::perm_options::replace, ec);
  }
  ordered_json line;
  // Rebuild in the documented key order (TraceMeta::to_json returns an alphabetical object).
  ordered_json m;
  const nlohmann::json inner = meta.to_json();
  for (const char* key : {"algorithm", "options", "decisions", "problem", "objective_command", "user_objective", "dim", "seed", "noise", "noisy",
                          "direction", "f_star", "budget", "horizon", "space", "run", "version", "revision"})
    if (inner.contains(key)) m[key] = ordered_json(inner.at(key));
  line["meta"] = std::move(m);
  errno = 0;
  out_ << line.dump() << '\n';
  for (const auto& r : earlier) out_ << evaluation_line(r, space_).dump() << '\n';
  out_ << std::flush;
  if (!out_) {
    // A full disk while copying the earlier run (resume in place needs room for a second copy):
    // the reason named, the partial copy removed; the earlier trace is untouched.
    const int e = errno;
    out_.close();
    if (first_name != path) std::filesystem::remove(first_name, ec);
    throw InvalidArgument("cannot write trace file '" + first_name + "'" + (e != 0 ? ": " + std::string(std::strerror(e)) : "") +
                          (first_name != path ? " (resuming in place writes a second copy of the trace first; make room, "
                                                "or --resume it with --out another file)"
                                              : ""));
  }
  if (first_name != path) {
    // POSIX rename keeps the open stream writing to the renamed file.
    std::error_code ec;
    std::filesystem::rename(first_name, path, ec);
    if (ec) throw InvalidArgument("cannot replace trace file '" + path + "': " + ec.message());
  }
}

void TraceWriter::write(const EvaluationRecord& record) {
  write_line(evaluation_line(record, space_).dump());
}

void TraceWriter::write_recommend(const Vector& x, std::optional<double> f,
                                  std::optional<double> simple_regret, const std::string& stop_reason) {
  ordered_json r;
  r["x"] = point_or_null(x, space_);
  r["f"] = number_or_null(f);
  r["simple_regret"] = number_or_null(simple_regret);
  r["stop_reason"] = stop_reason;
  ordered_json line;
  line["recommend"] = std::move(r);
  write_line(line.dump());
  ended_ = true;
}

void TraceWriter::write_line(const std::string& text) {
  if (ended_)
    throw std::logic_error("trace '" + path_ + "' already ends with its recommend line (optimize() and minimize() write it): nothing more is written");
  // Flushed per line: a killed run keeps every line written so far.
  const std::streamoff complete = out_.tellp();  // the file's length up to its last complete line
  errno = 0;
  out_ << text << '\n' << std::flush;
  if (!out_) {
    const int e = errno;  // ENOSPC, EFBIG, EIO: what the failed write(2) said
    // No part of the failed line stays: a line cut just before its newline would read back as
    // complete, unlike what the error says. Closed first, so that no buffered byte lands later.
    out_.close();
    std::error_code ec;
    if (complete >= 0) std::filesystem::resize_file(path_, static_cast<std::uintmax_t>(complete), ec);
    throw std::runtime_error("error writing trace file '" + path_ + "'" + (e != 0 ? ": " + std::string(std::strerror(e)) : ""));
  }
}

namespace {

std::string described_parameter(const nlohmann::json& p) {
  const std::string type = p.value("type", std::string("?"));
  // A conditional parameter says when it is used: a space differing only there reads as different.
  std::string when;
  if (const auto c = p.find("condition"); c != p.end() && c->is_object()) {
    const auto parent = c->find("parent"), values = c->find("values");
    when = " used when " + (parent != c->end() && parent->is_string() ? parent->get<std::string>() : std::string("?")) +
           " is in " + (values != c->end() ? values->dump() : std::string("?"));
  }
  if (type == "categorical") return "categorical " + p.value("choices", nlohmann::json::array()).dump() + when;
  return type + " [" + p.value("lower", nlohmann::json()).dump() + ", " + p.value("upper", nlohmann::json()).dump() + "]" +
         (p.value("log", false) ? " log" : "") + when;
}

// name -> parameter, in the space's order; nullopt for a space that is not a list of named parameters.
std::optional<std::vector<std::pair<std::string, nlohmann::json>>> named_parameters(const nlohmann::json& space) {
  if (!space.is_object() || !space.contains("parameters") || !space.at("parameters").is_array()) return std::nullopt;
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const auto& p : space.at("parameters")) {
    if (!p.is_object() || !p.contains("name") || !p.at("name").is_string()) return std::nullopt;
    out.emplace_back(p.at("name").get<std::string>(), p);
  }
  return out;
}

}  // namespace

std::string space_difference(const nlohmann::json& there, const nlohmann::json& here) {
  if (there == here) return "";
  const auto a = named_parameters(there), b = named_parameters(here);
  if (!a || !b) return there.dump() + " there, " + here.dump() + " here";
  const auto find = [](const auto& list, const std::string& name) -> const nlohmann::json* {
    for (const auto& [n, p] : list)
      if (n == name) return &p;
    return nullptr;
  };
  std::vector<std::string> words;
  for (const auto& [name, p] : *b)
    if (const nlohmann::json* old = find(*a, name); old && *old != p)
      words.push_back("'" + name + "' is " + described_parameter(*old) + " there, " + described_parameter(p) + " here");
  for (const auto& [name, p] : *a)
    if (!find(*b, name)) words.push_back("'" + name + "' is only there");
  for (const auto& [name, p] : *b)
    if (!find(*a, name)) words.push_back("'" + name + "' is only here");
  if (words.empty()) {  // the same parameters in another order
    const auto names = [](const auto& list) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& [n, p] : list) j.push_back(n);
      return j.dump();
    };
    words.push_back("parameters " + names(*a) + " there, " + names(*b) + " here");
  }
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : "; ") + w;
  return text;
}

Trace read_trace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InvalidArgument("cannot read trace file '" + path + "': it is a directory; name the .jsonl trace in it");
  std::ifstream in(path);
  if (!in) throw InvalidArgument("cannot read trace file '" + path + "': " + std::strerror(errno));
  return read_trace(in, path);
}

namespace {

// A trace's line is at most this long (a 100,000-parameter point is ~2.5 MB): `--resume /dev/zero`
// or a binary file named by mistake read one endless "line" until memory ran out (stop 67's probe).
constexpr std::size_t kMaxTraceLine = std::size_t{64} << 20;

// std::getline with a bound: false at the end of the stream.
bool getline_capped(std::istream& in, std::string& line, const std::string& where) {
  line.clear();
  std::array<char, 1 << 16> chunk{};
  for (;;) {
    in.getline(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw InvalidArgument(where + "read error");
    const bool more = in.fail() && !in.eof() && got == chunk.size() - 1;  // the chunk filled before a '\n'
    if (!more && got == 0 && in.fail()) return !line.empty();  // the end (a last line without '\n' was kept)
    line.append(chunk.data(), more || in.eof() ? got : got - 1);  // without the '\n' taken
    if (line.size() > kMaxTraceLine)
      throw InvalidArgument(where + "a line longer than " + std::to_string(kMaxTraceLine >> 20) +
                            " MiB: not a trace (name the .jsonl file a run wrote)");
    if (!more) return true;
    in.clear();
  }
}

}  // namespace

Trace read_trace(std::istream& in, const std::string& path) {
  std::vector<std::pair<std::size_t, std::string>> lines;  // (1-based line number, text)
  std::string text;
  for (std::size_t n = 1; getline_capped(in, text, path + ":" + std::to_string(n) + ": "); ++n)
    if (!blank(text)) lines.emplace_back(n, trim_cr(text));

  Trace trace;
  bool have_meta = false;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const auto& [n, line] = lines[k];
    const std::string where = path + ":" + std::to_string(n) + ": ";
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      // Only the last line may be cut short (the writer was killed mid-line).
      if (k + 1 == lines.size() && have_meta) break;
      throw InvalidArgument(where + "malformed JSON: " + strip_json_prefix(e.what()));
    } catch (const nlohmann::json::exception& e) {  // out_of_range: a number past a double (1e999)
      throw InvalidArgument(where + "malformed JSON: " + strip_json_prefix(e.what()));
    }
    if (!j.is_object()) throw InvalidArgument(where + "expected a JSON object, got " + j.dump());
    if (!have_meta) {
      if (!j.contains("meta"))
        throw InvalidArgument(where + "missing meta line (the first line must be {\"meta\": {...}})");
      try {
        trace.meta = TraceMeta::from_json(j);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(where + e.what());
      }
      have_meta = true;
    } else if (trace.recommend) {
      throw InvalidArgument(where + "unexpected line after the recommend line");
    } else if (j.contains("recommend")) {
      trace.recommend = j.at("recommend");
    } else if (j.contains("i")) {
      if (!j.at("i").is_number_unsigned())
        throw InvalidArgument(where + "\"i\" must be a positive integer, got " + j.at("i").dump());
      trace.evaluations.push_back(std::move(j));
    } else {
      throw InvalidArgument(where + "unrecognized line (neither an evaluation nor recommend)");
    }
  }
  if (!have_meta) throw InvalidArgument(path + ": missing meta line (empty trace)");
  return trace;
}

}  // namespace optimist
