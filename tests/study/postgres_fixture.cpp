// The ctest fixture's PostgreSQL server: `optimist_test_postgres start FOLDER_FILE` starts one
// and writes its folder into FOLDER_FILE; `stop FOLDER_FILE` stops it and removes the folder.
#include <cstdio>
#include <fstream>
#include <string>

#include "study/postgres_server.hpp"

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "start" && std::string(argv[1]) != "stop")) {
    std::fprintf(stderr, "usage: optimist_test_postgres start|stop FOLDER_FILE\n");
    return 2;
  }
  try {
    if (std::string(argv[1]) == "start") {
      optimist::testing::PostgresServer server;
      std::ofstream(argv[2]) << server.folder().string();
      std::printf("PostgreSQL test server on 127.0.0.1:%d in %s\n", server.port(), server.folder().c_str());
      server.release();  // keeps running after this process exits, until `stop`
      return 0;
    }
    std::ifstream in(argv[2]);
    std::string folder;
    if (!std::getline(in, folder) || folder.empty()) {
      std::printf("no PostgreSQL test server recorded in %s\n", argv[2]);
      return 0;
    }
    optimist::testing::PostgresServer(folder).destroy();
    std::remove(argv[2]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "optimist_test_postgres %s: %s\n", argv[1], e.what());
    return 1;
  }
}
