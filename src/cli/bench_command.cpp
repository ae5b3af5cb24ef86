#include "cli/bench_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/config.hpp"
#include "cli/count_check.hpp"
#include "cli/data_files.hpp"
#include "cli/format.hpp"
#include "cli/interrupt.hpp"
#include "cli/plot_command.hpp"
#include "optimist/core/types.hpp"
#include "optimist/experiment/runner.hpp"
#include "optimist/experiment/summary.hpp"
#include "optimist/experiment/sweep.hpp"

extern char** environ;

namespace optimist::cli {

namespace {

namespace ex = optimist::experiment;

void print_presets() {
  for (const auto& p : ex::presets()) {
    const ex::SweepSpec s = ex::preset_sweep(p.name);
    // The labels, as the summaries and trace folders name them (a peer "random" is "optuna-random").
    std::string algorithms;
    for (const auto& a : s.algorithms) algorithms += (algorithms.empty() ? "" : ", ") + a.label;
    std::cout << p.name << "\n    " << p.description << "\n    algorithms: " << algorithms << "\n    problems:   ";
    std::string probs;
    for (const auto& pr : s.problems)
      probs += (probs.empty() ? "" : ", ") + pr.label + " (T=" + std::to_string(pr.budget) + ")";
    std::cout << probs << "\n    seeds: " << s.seeds << ", runs: " << s.run_count() << ", metric: " << to_string(s.metric)
              << ", intervals: " << format_double(100 * s.level) << "%\n";
  }
}

// Runs argv (argv[0] the program) with the environment env; returns its exit status (-1: killed).
int run_and_wait(std::vector<std::string> args, std::vector<std::string> env) {
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0].c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0)
    throw std::runtime_error("cannot start " + args[0] + " " + (args.size() > 1 ? args[1] : ""));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waiting for " + args[0] + " failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The Optuna peers (SweepAlgorithm::peer == "optuna"): one run of bench/optuna_peers.py per (problem,
// sampler, seed), with Debian's interpreter and the build's Python package on its path. The script
// is asked once first whether it can run (its imports): a setup problem is one error before any
// run, not one failed run per peer run after the others.
ex::PeerRunner optuna_peer_runner() {
  const std::string script = find_data_file("the Optuna peer script optuna_peers.py", "optuna_peers.py",
                                            std::filesystem::path(OPTIMIST_SOURCE_BENCH) / "optuna_peers.py",
                                            "OPTIMIST_PEER_SCRIPT")
                                 .string();
  const char* env_python = std::getenv("OPTIMIST_PYTHON");
  const std::string python = env_python ? env_python : "/usr/bin/python3";
  if (!std::filesystem::exists(python)) throw InvalidArgument("Python interpreter '" + python + "' not found (set OPTIMIST_PYTHON)");
  std::vector<std::string> env;
  std::string pythonpath;
  if (std::filesystem::exists(std::filesystem::path(OPTIMIST_BUILD_PYTHON_DIR) / "optimist" / "__init__.py"))
    pythonpath = OPTIMIST_BUILD_PYTHON_DIR;
  for (char** e = environ; *e; ++e) {
    const std::string var = *e;
    if (var.rfind("PYTHONPATH=", 0) == 0) {
      if (!pythonpath.empty()) pythonpath += ":";
      pythonpath += var.substr(11);
    } else {
      env.push_back(var);
    }
  }
  if (!pythonpath.empty()) env.push_back("PYTHONPATH=" + pythonpath);
  if (run_and_wait({python, script, "--check"}, env) != 0)
    throw InvalidArgument("the sweep's Optuna peers cannot run: '" + python + " " + script +
                          " --check' failed (its error is above); no run was started");
  return [script, python, env](const ex::SweepRun& run, const std::string& trace_path) {
    const ex::SweepProblem& p = *run.problem;
    std::vector<std::string> args = {python, script, "--problem", p.name, "--budget", std::to_string(p.budget),
                                     "--seed", std::to_string(run.seed), "--sampler", run.algorithm->name,
                                     "--noise", format_double(p.noise), "--out", trace_path};
    if (p.dim > 0) {
      args.push_back("--dim");
      args.push_back(std::to_string(p.dim));
    }
    const int status = run_and_wait(std::move(args), env);
    if (status != 0)
      throw std::runtime_error(script + " failed for " + run.algorithm->label + " on " + p.label + ", seed " +
                               std::to_string(run.seed) + " (exit status " + std::to_string(status) + "; its error is above)");
  };
}

class SweepProgressLine {
 public:
  explicit SweepProgressLine(std::string name) : name_(std::move(name)), tty_(isatty(fileno(stderr)) != 0) {}
  void update(const ex::SweepProgress& p) {
    std::string line = "bench " + name_ + ": " + std::to_string(p.skipped + p.done) + "/" + std::to_string(p.total) +
                       " runs";
    if (p.skipped > 0) line += " (" + std::to_string(p.skipped) + " already done)";
    if (p.failed > 0) line += ", " + std::to_string(p.failed) + " failed";
    line += ", elapsed " + fmt_duration(p.elapsed_s);
    if (p.eta_s >= 0 && p.skipped + p.done < p.total) line += ", ETA " + fmt_duration(p.eta_s);
    if (tty_) std::fprintf(stderr, "\r%-100s", line.c_str());
    else std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    open_ = tty_;
  }
  void finish() {
    if (open_) std::fprintf(stderr, "\n");
    open_ = false;
  }

 private:
  std::string name_;
  bool tty_;
  bool open_ = false;
};

/// --out is a new or empty folder, or a sweep's: one with its sweep.json, or the traces of a sweep
/// killed before it wrote one. A folder of one's own (a summary.md of one's notes) would have its
/// summaries written over.
void check_out_folder(const std::string& out) {
  std::error_code ec;
  if (!std::filesystem::is_directory(out, ec) || std::filesystem::exists(out + "/sweep.json", ec)) return;
  for (const auto& entry : std::filesystem::directory_iterator(out, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "traces" || name == ".bench.lock" || name == "sweep.json.tmp") continue;
    std::string message = "--out: the folder '";
    message += out;
    message += "' holds '";
    message += name;
    message += "' and no sweep.json: it is not a sweep's folder, and the sweep's summary.md, summary.json and plots/ "
               "would be written there; give a new or empty folder";
    throw InvalidArgument(message);
  }
}

/// A folder holds one sweep: running another one (another name) into it would replace its
/// sweep.json and summaries. The same sweep with more seeds, algorithms or problems continues it,
/// keeping the folder's labels (keep_folder_labels).
void continue_same_sweep(ex::SweepSpec& spec, const std::string& out) {
  const std::string file = out + "/sweep.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;
  std::ifstream in(file);
  nlohmann::json old;
  try {
    old = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw InvalidArgument("--out: '" + file + "' is not a sweep file; write this sweep to another --out folder");
  }
  const std::string old_name = old.is_object() && old.contains("name") && old["name"].is_string() ? old["name"].get<std::string>() : "";
  if (old_name != spec.name) {
    std::string message = "--out: '";
    message += out;
    message += "' holds the sweep '";
    message += old_name;
    message += "' (its sweep.json); write the sweep '";
    message += spec.name;
    message += "' to another --out folder";
    throw InvalidArgument(message);
  }
  ex::keep_folder_labels(spec, old);
  // A sweep may add algorithms, problems or seeds to its folder, not leave out some it ran: their
  // traces would stay there, out of every summary. Two unnamed sweeps (both "custom") to one
  // folder replaced each other so (stop 68's probe).
  const nlohmann::json now = spec.to_json();
  for (const char* list : {"algorithms", "problems"}) {
    if (!old.contains(list) || !old[list].is_array()) continue;
    std::string dropped;
    for (const auto& entry : old[list]) {
      const std::string label = entry.is_object() ? entry.value("label", std::string()) : std::string();
      if (label.empty()) continue;
      const bool kept = std::any_of(now[list].begin(), now[list].end(),
                                    [&](const nlohmann::json& e) { return e.value("label", std::string()) == label; });
      if (!kept) dropped += (dropped.empty() ? "'" : ", '") + label + "'";
    }
    if (!dropped.empty())
      throw InvalidArgument("--out: '" + out + "' holds the sweep '" + old_name + "' with " + list + " " + dropped +
                            " that this one leaves out (their traces would stay out of the summary); write this sweep "
                            "to another --out folder, or add them to it");
  }
}

void write_sweep_file(const ex::SweepSpec& spec, const std::string& out) {
  const std::string file = out + "/sweep.json", temporary = file + ".tmp";
  {
    std::ofstream f(temporary, std::ios::trunc);
    f << spec.to_json().dump(1) << "\n";
    if (!f) throw InvalidArgument("--out: cannot write '" + temporary + "'");
  }
  std::error_code ec;
  std::filesystem::rename(temporary, file, ec);
  if (ec) throw InvalidArgument("--out: cannot write '" + file + "': " + ec.message());
}

/// One `optimist bench` per --out folder at a time: two would take each other's runs in progress
/// (their traces' locks) for failed runs and write the summary over each other. An exclusive flock
/// on OUT/.bench.lock, held while the sweep runs; the kernel releases it when the process ends,
/// however it ends, so a killed bench never leaves the folder locked. The file holds the owner's pid
/// for the message.
class OutFolderLock {
 public:
  explicit OutFolderLock(const std::string& out) {
    const std::string path = out + "/.bench.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) throw InvalidArgument("--out: cannot write '" + path + "': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      // The owner writes its pid just after it locks: a bench started at the same moment waits
      // for it a little (up to 0.2 s) to name it.
      char owner[32] = {};
      ssize_t n = 0;
      for (int k = 0; k < 20 && (n = ::pread(fd_, owner, sizeof owner - 1, 0)) <= 0 && e == EWOULDBLOCK; ++k) ::usleep(10000);
      ::close(fd_);
      if (e != EWOULDBLOCK) throw InvalidArgument("--out: cannot lock '" + path + "': " + std::strerror(e));
      std::string pid = n > 0 ? std::string(owner, static_cast<std::size_t>(n)) : std::string();
      pid.erase(std::remove_if(pid.begin(), pid.end(), [](char c) { return c < '0' || c > '9'; }), pid.end());
      throw InvalidArgument("--out: another optimist bench" + (pid.empty() ? std::string() : " (pid " + pid + ")") +
                            " is running in '" + out + "'; wait until it ends (a rerun then skips its finished runs), "
                            "or give this sweep another --out folder");
    }
    // The pid only improves the message: the lock is what counts, so a failed write is ignored.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
  }
  ~OutFolderLock() { ::close(fd_); }
  OutFolderLock(const OutFolderLock&) = delete;
  OutFolderLock& operator=(const OutFolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

void add_bench_command(CLI::App& parent, BenchCommand& cmd) {
  cmd.app = parent.add_subcommand("bench", "Run algorithms x problems x seeds in parallel; summary and plots");
  cmd.app->add_option("--preset", cmd.preset, "a built-in sweep (see --list-presets)")->type_name("NAME");
  cmd.app->add_option("--config", cmd.config, "a sweep file (.json or .toml), see docs/bench.md")->type_name("FILE");
  cmd.app->add_option("--out", cmd.out, "output folder: traces/, summary.json, summary.md, plots/")->type_name("DIR");
  cmd.app->add_option("--seeds", cmd.seeds, "runs per (problem, algorithm), overriding the sweep's")
      ->type_name("K")
      ->check(count_between(1, 1000000));
  cmd.app->add_option("--interval", cmd.interval,
                      "t (Student's t, the default) or wald (the papers' 1.96 sd / sqrt(K)), overriding the sweep's")
      ->type_name("KIND")
      ->check(CLI::IsMember({"t", "wald"}));
  cmd.app->add_option("--jobs", cmd.jobs, "worker threads (default: all cores)")->type_name("J")->check(count_between(1, kMaxJobs));
  cmd.app->add_flag("--list-presets", cmd.list_presets, "list the presets and exit");
  cmd.app->add_flag("--no-plot", cmd.no_plot, "write the summary but no figures");
  cmd.app->add_flag("-q,--quiet", cmd.quiet, "no progress line");
  cmd.app->footer(
      "A rerun with the same --out skips finished runs and continues stopped ones from their .partial\n"
      "traces. Ctrl-C stops the runs in progress after their current evaluation and still writes the\n"
      "summary of what is finished.\n"
      "Exit codes: 0 done, 1 a run failed, 2 bad input, 130 interrupted.");
}

int bench_command(const BenchCommand& cmd) {
  if (cmd.list_presets) {
    print_presets();
    return 0;
  }
  if (cmd.preset.empty() == cmd.config.empty())
    throw InvalidArgument(cmd.preset.empty() ? "give --preset NAME or --config FILE (see --list-presets)"
                                             : "give either --preset or --config, not both");
  if (cmd.out.empty()) throw InvalidArgument("--out DIR is required: the folder for traces, summary and plots");
  nlohmann::json config = cmd.preset.empty() ? load_config(cmd.config) : nlohmann::json();
  // --seeds before parsing: the file's seed range is checked with the count that will run.
  if (cmd.seeds > 0 && config.is_object()) config["seeds"] = cmd.seeds;
  if (!cmd.interval.empty() && config.is_object()) config["interval"] = cmd.interval;
  ex::SweepSpec spec = cmd.preset.empty() ? ex::parse_sweep(config, "'" + cmd.config + "'") : ex::preset_sweep(cmd.preset);
  if (cmd.seeds > 0) spec.seeds = cmd.seeds;
  if (!cmd.interval.empty()) spec.interval = cmd.interval == "wald" ? ex::IntervalKind::Wald : ex::IntervalKind::StudentT;
  ex::check_available(spec);

  check_out_folder(cmd.out);
  std::error_code ec;
  std::filesystem::create_directories(cmd.out, ec);
  if (ec) throw InvalidArgument("--out: cannot create folder '" + cmd.out + "': " + ec.message());
  const OutFolderLock folder_lock(cmd.out);
  continue_same_sweep(spec, cmd.out);

  SweepProgressLine progress(spec.name);
  ex::RunnerOptions options;
  options.jobs = cmd.jobs;
  if (!cmd.quiet) options.on_progress = [&progress](const ex::SweepProgress& p) { progress.update(p); };
  options.should_stop = [] { return InterruptGuard::interrupted(); };
  if (std::any_of(spec.algorithms.begin(), spec.algorithms.end(), [](const ex::SweepAlgorithm& a) { return !a.peer.empty(); }))
    options.run_peer = optuna_peer_runner();
  ex::SweepOutcome outcome;
  {
    const InterruptGuard guard;
    outcome = ex::run_sweep(spec, cmd.out, options);
  }
  progress.finish();
  // Written after the runs' trace checks, so a sweep refused for a mismatching trace leaves the old one.
  write_sweep_file(spec, cmd.out);
  for (const auto& e : outcome.errors) std::fprintf(stderr, "optimist: run failed: %s\n", e.c_str());

  ex::write_summary(spec, cmd.out);
  std::cout << "summary: " << cmd.out << "/summary.md, " << cmd.out << "/summary.json\n";
  if (!cmd.no_plot && !outcome.cancelled) {
    try {
      if (run_plot_script(cmd.out) == 0) std::cout << "plots: " << cmd.out << "/plots/\n";
      else std::fprintf(stderr, "optimist: warning: the plot script failed; the summary is written\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "optimist: warning: no plots: %s\n", e.what());
    }
  }
  if (outcome.cancelled) return 130;
  return outcome.errors.empty() ? 0 : 1;
}

}  // namespace optimist::cli
