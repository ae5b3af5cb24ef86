# ctest "install_consumer": installs this build into a prefix under the build tree, then builds
# and runs tests/consumer against the installed package (tests/consumer/check_install.cmake).
# Not in the sanitizer builds (docs/reliability.md, "What CI runs"): it checks packaging, the same
# in every build. (Were it run there, the consumer gets the sanitizer flags: the static library
# needs the sanitizer runtime at link time.)
if(OPTIMIST_SANITIZE OR OPTIMIST_TSAN)
  return()
endif()
set(_optimist_consumer_flags "${OPTIMIST_SANITIZER_FLAGS}")
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install_consumer
    -DCONSUMER_SOURCE_DIR=${CMAKE_CURRENT_LIST_DIR}/consumer
    -DCONFIG=$<CONFIG>
    -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
    "-DCXX_FLAGS=${_optimist_consumer_flags}"
    -DGENERATOR=${CMAKE_GENERATOR}
    -DBINDIR=${CMAKE_INSTALL_BINDIR} -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
    -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
    -P ${CMAKE_CURRENT_LIST_DIR}/consumer/check_install.cmake)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
