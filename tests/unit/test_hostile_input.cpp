// Bad input (issue 23; docs/reliability.md, "Bad input"): NaN and infinity in every numeric field
// of every input file, and parameter names with any Unicode and quotes, end to end through the
// `optimist` binary. Each bad value gets exit code 2 and one line naming it, never a crash or a run
// on garbage.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "optimist/core/external_objective.hpp"
#include "optimist/core/trace.hpp"
#include "temp_test_dir.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

fs::path test_dir() { return optimist::testing::test_dir("optimist_hostile"); }

Result cli(const std::string& args, const fs::path& cwd) {
  const std::string cmd = "cd '" + cwd.string() + "' && '" + std::string(OPTIMIST_CLI_PATH) + "' " + args +
                          " > stdout.txt 2> stderr.txt < /dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(cwd / "stdout.txt"), slurp(cwd / "stderr.txt")};
}

const std::vector<std::string> kNonFinite = {"nan", "inf", "-inf"};

}  // namespace

// A TOML config (TOML has nan and inf) with a non-finite value in each numeric key in turn.
TEST(NonFinite, EveryNumericConfigKey) {
  const fs::path dir = test_dir();
  const std::string base = "problem = \"branin\"\nalgorithm = \"gp-ei\"\nbudget = 5\n";
  for (const std::string key : {"budget", "dim", "seed", "noise", "time_limit", "target", "batch"}) {
    for (const auto& v : kNonFinite) {
      std::string text = base;
      if (key == "budget") text = "problem = \"branin\"\nalgorithm = \"gp-ei\"\n";
      std::ofstream(dir / "c.toml", std::ios::trunc) << text << key << " = " << v << "\n";
      const Result r = cli("run -q --config c.toml", dir);
      EXPECT_EQ(r.code, 2) << key << " = " << v << ": " << r.err;
      EXPECT_NE(r.err.find("'" + key + "' in c.toml"), std::string::npos) << key << " = " << v << ": " << r.err;
    }
  }
  // The objective command's timeout, and an algorithm option (each algorithm's float options).
  std::ofstream(dir / "space.json") << R"({"parameters": [{"name": "a", "lower": 0, "upper": 1}]})";
  for (const auto& v : kNonFinite) {
    std::ofstream(dir / "c.toml", std::ios::trunc)
        << "objective_command = \"/bin/cat\"\nspace = \"space.json\"\ndirection = \"minimize\"\nalgorithm = \"random\"\n"
           "budget = 3\nobjective_timeout = " << v << "\n";
    Result r = cli("run -q --config c.toml", dir);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("'objective_timeout' in c.toml"), std::string::npos) << r.err;
    for (const char* text : {"gp-ei\"\n[options]\nxi", "go-ucb\"\n[options]\nlambda", "hoo\"\n[options]\nrho",
                             "turbo\"\n[options]\nlength_init", "go-ucb\"\n[options]\nhidden"}) {
      const std::string option = text;
      const std::string name = option.substr(option.rfind('\n') + 1);
      std::ofstream(dir / "c.toml", std::ios::trunc) << "problem = \"branin\"\nbudget = 5\nalgorithm = \"" << option << " = "
                                                      << (name == "hidden" ? "[25, " + v + "]" : v) << "\n";
      r = cli("run -q --config c.toml", dir);
      EXPECT_EQ(r.code, 2) << option << " = " << v << ": " << r.err;
      EXPECT_NE(r.err.find("'" + name + "'"), std::string::npos) << option << " = " << v << ": " << r.err;
    }
  }
}

// A space file with a non-finite bound in each field of each kind of parameter.
TEST(NonFinite, EverySpaceField) {
  const fs::path dir = test_dir();
  for (const std::string param : {"type = \"continuous\"\nlower = {V}\nupper = 1",
                                  "type = \"continuous\"\nlower = 0\nupper = {V}",
                                  "type = \"continuous\"\nlog = true\nlower = {V}\nupper = 10",
                                  "type = \"integer\"\nlower = {V}\nupper = 3",
                                  "type = \"integer\"\nlower = 0\nupper = {V}"}) {
    for (const auto& v : kNonFinite) {
      std::string p = param;
      p.replace(p.find("{V}"), 3, v);
      std::ofstream(dir / "space.toml", std::ios::trunc) << "[[parameters]]\nname = \"p\"\n" << p << "\n";
      const Result r = cli("run -q --objective-command /bin/cat --space space.toml --direction minimize --algorithm random "
                           "--budget 2",
                           dir);
      EXPECT_EQ(r.code, 2) << p << ": " << r.err;
      EXPECT_NE(r.err.find("--space: parameter 'p'"), std::string::npos) << p << ": " << r.err;
    }
  }
}

// A trace to resume with an overflowing number (JSON has no NaN; 1e999 would be infinity) in each
// numeric field of the meta line and of an evaluation line: refused with the line and the number.
TEST(NonFinite, EveryTraceField) {
  const fs::path dir = test_dir();
  ASSERT_EQ(cli("run -q --problem branin --algorithm random --budget 3 --out t.jsonl", dir).code, 0);
  const std::string good = slurp(dir / "t.jsonl");
  const nlohmann::json meta = nlohmann::json::parse(good.substr(0, good.find('\n')));
  const std::string second = good.substr(good.find('\n') + 1, good.find('\n', good.find('\n') + 1) - good.find('\n') - 1);
  const nlohmann::json eval = nlohmann::json::parse(second);
  // Meta fields.
  for (const std::string key : {"seed", "noise", "budget", "horizon", "dim", "f_star"}) {
    std::string bad = good;
    const std::string field = "\"" + key + "\":" + meta.at("meta").at(key).dump();
    const auto at = bad.find(field);
    ASSERT_NE(at, std::string::npos) << field;
    bad.replace(at, field.size(), "\"" + key + "\":1e999");
    std::ofstream(dir / "bad.jsonl", std::ios::trunc) << bad;
    const Result r = cli("run -q --resume bad.jsonl --budget 6", dir);
    EXPECT_EQ(r.code, 2) << key << ": " << r.err;
    EXPECT_NE(r.err.find("bad.jsonl:1: malformed JSON: number overflow parsing '1e999'"), std::string::npos)
        << key << ": " << r.err;
  }
  // Evaluation fields.
  for (const std::string key : {"x", "y", "f", "regret", "cum_regret", "best_f", "suggest_s", "eval_s", "tell_s"}) {
    if (!eval.contains(key) || eval.at(key).is_null()) continue;
    std::string bad = good;
    const std::string field = "\"" + key + "\":" + eval.at(key).dump();
    const auto at = bad.find(field, good.find('\n'));
    ASSERT_NE(at, std::string::npos) << field;
    bad.replace(at, field.size(), "\"" + key + "\":" + (key == "x" ? "[1e999,0.5]" : "1e999"));
    std::ofstream(dir / "bad.jsonl", std::ios::trunc) << bad;
    const Result r = cli("run -q --resume bad.jsonl --budget 6", dir);
    EXPECT_EQ(r.code, 2) << key << ": " << r.err;
    EXPECT_NE(r.err.find("bad.jsonl:2: malformed JSON: number overflow parsing '1e999"), std::string::npos)
        << key << ": " << r.err;
  }
}

// A sweep file (optimist bench) with non-finite noise levels and budgets.
TEST(NonFinite, SweepFile) {
  const fs::path dir = test_dir();
  for (const std::string field : {"noise = {V}", "budget = {V}"}) {
    for (const auto& v : kNonFinite) {
      std::string f = field;
      f.replace(f.find("{V}"), 3, v);
      std::ofstream(dir / "s.toml", std::ios::trunc)
          << "algorithms = [\"random\"]\nseeds = 1\nbudget = 5\n[[problems]]\nname = \"branin\"\n" << f << "\n";
      const Result r = cli("bench -q --no-plot --config s.toml --out out", dir);
      EXPECT_EQ(r.code, 2) << f << ": " << r.err;
      EXPECT_NE(r.err.find(f.substr(0, f.find(' '))), std::string::npos) << f << ": " << r.err;
    }
  }
}

// An objective command's answers: NaN, infinity and overflowing numbers are failed evaluations
// with the reason, never values.
TEST(NonFinite, ObjectiveAnswers) {
  for (const std::string answer : {"{\"y\": NaN}", "{\"y\": Infinity}", "{\"y\": -Infinity}", "{\"y\": 1e999}", "1e999",
                                   "{\"y\": null}", "NaN"}) {
    std::string buffer = answer + "\n";
    try {
      const auto j = optimist::take_answer_line(buffer);
      ASSERT_TRUE(j.has_value());
      (void)optimist::value_from_answer(*j);
      ADD_FAILURE() << answer << " was taken as a value";
    } catch (const optimist::ExternalProcessError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("is not JSON") != std::string::npos || what.find("not a finite number") != std::string::npos)
          << answer << ": " << what;
    }
  }
}

// Parameter names with any Unicode, quotes, backslashes, spaces and markup: the program gets them
// exactly, the trace keeps them, --resume continues the run, the dashboard's API escapes them.
TEST(HostileNames, UnicodeAndQuotesEndToEnd) {
  const fs::path dir = test_dir();
  const std::vector<std::string> names = {"élan", "名前", "emoji 😀", "quote\"d", "single'quote", "back\\slash",
                                          "<script>alert(1)</script>", "tab\there", "a b", "\\u0000-ish"};
  nlohmann::json params = nlohmann::json::array();
  for (const auto& n : names) params.push_back({{"name", n}, {"type", "continuous"}, {"lower", 0}, {"upper", 1}});
  params.push_back({{"name", "choice ✓"}, {"type", "categorical"}, {"choices", {"ä\"b", "<i>", "x y"}}});
  std::ofstream(dir / "space.json") << nlohmann::json{{"parameters", params}}.dump();
  // The program checks the names it receives and answers with their count.
  std::ofstream(dir / "obj.py") << "import json, sys\n"
                                   "for line in sys.stdin:\n"
                                   "    p = json.loads(line)['params']\n"
                                   "    open('names.txt', 'w').write(json.dumps(sorted(p)))\n"
                                   "    print(json.dumps({'y': sum(v for v in p.values() if isinstance(v, float))}), flush=True)\n";
  Result r = cli("run -q --objective-command '/usr/bin/python3 obj.py' --space space.json --direction minimize "
                 "--algorithm gp-ei --budget 4 --out t.jsonl",
                 dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> expected = names;
  expected.push_back("choice ✓");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "names.txt")).get<std::vector<std::string>>(), expected);
  const optimist::Trace t = optimist::read_trace((dir / "t.jsonl").string());
  ASSERT_EQ(t.meta.space.at("parameters").size(), names.size() + 1);
  for (std::size_t k = 0; k < names.size(); ++k) EXPECT_EQ(t.meta.space.at("parameters")[k].at("name"), names[k]);
  EXPECT_EQ(t.meta.space.at("parameters")[names.size()].at("name"), "choice ✓");
  EXPECT_EQ(t.meta.space.at("parameters")[names.size()].at("choices"), nlohmann::json::array({"ä\"b", "<i>", "x y"}));
  r = cli("run -q --resume t.jsonl --budget 6 --trust-command", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(optimist::read_trace((dir / "t.jsonl").string()).evaluations.size(), 6u);
}

// A config file cannot make optimist write outside the current folder (docs/security.md); --out
// on the command line can.
TEST(ConfigPaths, OutputOnlyBelowTheCurrentFolder) {
  const fs::path dir = test_dir();
  fs::create_directories(dir / "work");
  for (const std::string& out : {(dir / "abs.jsonl").string(), std::string("../up.jsonl"), std::string("a/../../up.jsonl")}) {
    std::ofstream(dir / "work" / "c.toml", std::ios::trunc)
        << "problem = \"branin\"\nalgorithm = \"random\"\nbudget = 2\nout = \"" << out << "\"\n";
    const Result r = cli("run -q --config c.toml", dir / "work");
    EXPECT_EQ(r.code, 2) << out << ": " << r.err;
    EXPECT_NE(r.err.find("'out' in c.toml must be"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "abs.jsonl"));
  EXPECT_FALSE(fs::exists(dir / "up.jsonl"));
  std::ofstream(dir / "work" / "c.toml", std::ios::trunc)
      << "problem = \"branin\"\nalgorithm = \"random\"\nbudget = 2\nout = \"runs/t.jsonl\"\n";
  EXPECT_EQ(cli("run -q --config c.toml", dir / "work").code, 0);
  EXPECT_TRUE(fs::exists(dir / "work" / "runs" / "t.jsonl"));
  // The command line is the user's own: --out may name any path, also over the config's.
  EXPECT_EQ(cli("run -q --config c.toml --out '" + (dir / "abs.jsonl").string() + "'", dir / "work").code, 0);
  EXPECT_TRUE(fs::exists(dir / "abs.jsonl"));
}
