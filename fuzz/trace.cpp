// Fuzz target: a trace given to `optimist run --resume` -> the resumed run, up to the first new
// ask: the reader, the meta's settings, the problem or the command's space, the earlier
// evaluations told to a fresh optimizer, and the next point it asks.
#include <sstream>

#include "cli/run_command.hpp"
#include "fuzz_support.hpp"
#include "optimist/core/run_recorder.hpp"
#include "optimist/experiment/run_setup.hpp"

using namespace optimist;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(fuzz::text(data, size));
  fuzz::refuse_only_with([&] {
    const Trace trace = read_trace(in, "fuzz.jsonl");
    cli::ResumedRun resumed = cli::resume_run(trace, {}, "fuzz.jsonl", /*trust_command=*/true);
    const cli::RunSettings& s = resumed.settings;
    RunOptions options;
    options.resume_from = std::move(resumed.earlier);
    options.budget = s.budget;
    options.batch_size = s.batch;
    options.on_failure = s.on_failure;
    experiment::PreparedRun prepared = experiment::prepare_run(resumed.problem, cli::run_spec(s), options, &trace.meta);
    Objective objective = std::move(prepared.objective);
    objective.direction = resumed.problem.direction;
    RunRecorder recorder(*prepared.optimizer, objective, options);
    if (!recorder.stopped()) {
      const std::vector<Trial> next = prepared.optimizer->ask(1);
      OPTIMIST_FUZZ_CHECK(next.size() == 1, "ask(1) returned " + std::to_string(next.size()) + " trials");
      resumed.problem.space.validate(next.front().x);
    }
  });
  return 0;
}
