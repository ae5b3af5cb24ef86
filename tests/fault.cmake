# Fault injection (tests/fault/, docs/reliability.md "Fault matrix"): real `optimist` processes
# against a misbehaving objective command (fault_objective), killed workers, a stopped database
# server, a full disk, cut and concurrently resumed traces. The study tests use the same objective
# for their kill loops.
add_executable(optimist_fault_objective ${CMAKE_CURRENT_LIST_DIR}/fault/fault_objective.cpp)
target_link_libraries(optimist_fault_objective PRIVATE nlohmann_json::nlohmann_json)
target_compile_options(optimist_fault_objective PRIVATE ${OPTIMIST_WARNINGS})

file(GLOB OPTIMIST_FAULT_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fault/test_*.cpp)
add_executable(optimist_fault_tests ${OPTIMIST_FAULT_TEST_SOURCES} ${CMAKE_CURRENT_LIST_DIR}/fault/fault_support.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/study/study_backends.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/study/postgres_server.cpp)
target_link_libraries(optimist_fault_tests PRIVATE optimist optimist_study PkgConfig::PQXX GTest::gtest GTest::gtest_main)
target_include_directories(optimist_fault_tests PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_LIST_DIR})
target_compile_options(optimist_fault_tests PRIVATE ${OPTIMIST_WARNINGS})
target_compile_definitions(optimist_fault_tests PRIVATE OPTIMIST_CLI_PATH="$<TARGET_FILE:optimist_cli>")
foreach(t optimist_fault_tests optimist_study_tests)
  target_compile_definitions(${t} PRIVATE OPTIMIST_FAULT_OBJECTIVE="$<TARGET_FILE:optimist_fault_objective>")
  add_dependencies(${t} optimist_cli optimist_fault_objective)
endforeach()
gtest_discover_tests(optimist_fault_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED postgres
                     ENVIRONMENT OPTIMIST_TEST_POSTGRES=${OPTIMIST_TEST_POSTGRES_FILE})
