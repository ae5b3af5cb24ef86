// A misbehaving objective command for the fault-injection tests (tests/fault/). It speaks the
// protocol of docs/hpo.md (one JSON request line in, one answer line out) and logs every value it
// answers, so that a test compares what the objective paid for with what optimist stored.
//
//   FAULT=MODE[:N]  what to do at the N-th request of this process (default N = 1):
//     ok            answer every request (y = sum of (x_i - 0.3)^2)
//     crash         abort() before answering (killed by SIGABRT)
//     exit          exit(3) before answering
//     hang          never answer (sleep)
//     garbage       print a line that is not JSON
//     partial       print half an answer without its newline, then exit(0)
//     partial-hang  print half an answer without its newline, then sleep
//     between       answer, then exit(0) before reading the next request
//     flood         write 8 MiB to stderr before every answer
//     ignore-term   ignore SIGTERM and keep running after the end of the input (until killed)
//     huge          print one 80 MiB line (over optimist's 64 MiB limit)
//     big           answer with a valid 2 MiB line ({"y": ..., "pad": "xxx..."})
//   FAULT_ONCE=FILE  with it, the fault fires only while FILE does not exist (the process creates
//                    it when the fault fires), so a restarted child behaves.
//   LOG=FILE         append "pid x_1 ... x_d y" (%.17g) for every value answered, before answering,
//                    and "pid start" when the process starts.
//   SLEEP_MS=M       sleep M ms before each answer; SLEEP_MS=A-B a uniform draw in [A, B].
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>

namespace {

std::string env(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

void log_line(const std::string& text) {
  const std::string path = env("LOG");
  if (path.empty()) return;
  // One write(2) per line in append mode: lines of concurrent processes never interleave.
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return;
  std::fprintf(f, "%d %s\n", static_cast<int>(::getpid()), text.c_str());
  std::fclose(f);
}

void sleep_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

int main() {
  const std::string fault = env("FAULT", "ok");
  const auto colon = fault.find(':');
  const std::string mode = fault.substr(0, colon);
  const long at = colon == std::string::npos ? 1 : std::atol(fault.c_str() + colon + 1);
  const std::string once = env("FAULT_ONCE");
  std::mt19937 rng(static_cast<unsigned>(::getpid()));
  const std::string sleep_ms = env("SLEEP_MS", "0");
  const auto dash = sleep_ms.find('-');
  const long sleep_lo = std::atol(sleep_ms.c_str());
  const long sleep_hi = dash == std::string::npos ? sleep_lo : std::atol(sleep_ms.c_str() + dash + 1);

  if (mode == "ignore-term") ::signal(SIGTERM, SIG_IGN);
  log_line("start");
  std::string line;
  long n = 0;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++n;
    const nlohmann::json request = nlohmann::json::parse(line);
    std::string point;
    double y = 0.0;
    for (const auto& v : request.at("x")) {
      const double x = v.get<double>();
      y += (x - 0.3) * (x - 0.3);
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g ", x);
      point += buf;
    }
    if (sleep_hi > 0) {
      const long ms = sleep_lo + static_cast<long>(rng() % static_cast<unsigned>(sleep_hi - sleep_lo + 1));
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
    bool fire = n == at || mode == "flood";
    if (fire && !once.empty() && mode != "flood") {
      if (std::ifstream(once)) fire = false;
      else std::ofstream(once) << "fired\n";
    }
    if (fire && mode == "flood") {
      const std::string chunk(1 << 16, 'e');
      for (int k = 0; k < 128; ++k) std::cerr << chunk << '\n';
      std::cerr.flush();
    }
    if (fire && mode == "crash") std::abort();
    if (fire && mode == "exit") std::exit(3);
    if (fire && mode == "hang") sleep_forever();
    if (fire && mode == "garbage") {
      std::cout << "this is not json" << std::endl;
      continue;
    }
    if (fire && (mode == "partial" || mode == "partial-hang")) {
      std::cout << "{\"y\": 1" << std::flush;
      if (mode == "partial") std::exit(0);
      sleep_forever();
    }
    if (fire && mode == "huge") {
      const std::string chunk(1 << 20, '7');
      std::cout << "{\"y\": 1";
      for (int k = 0; k < 80; ++k) std::cout << chunk;
      std::cout << "}" << std::endl;
      continue;
    }
    char value[40];
    std::snprintf(value, sizeof value, "%.17g", y);
    log_line(point + value);
    if (fire && mode == "big") std::cout << "{\"y\": " << value << ", \"pad\": \"" << std::string(2 << 20, 'x') << "\"}" << std::endl;
    else std::cout << "{\"y\": " << value << "}" << std::endl;
    if (fire && mode == "between") return 0;
  }
  if (mode == "ignore-term") sleep_forever();
  return 0;
}
