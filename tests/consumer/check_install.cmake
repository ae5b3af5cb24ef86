# Run by the ctest "install_consumer" (see tests/install_consumer.cmake) as cmake -P with
# BUILD_DIR, WORK_DIR, CONSUMER_SOURCE_DIR, CONFIG, CXX_COMPILER, CXX_FLAGS, GENERATOR and the
# install layout BINDIR, LIBDIR, INCLUDEDIR (GNUInstallDirs of the build).
# 1. cmake --install into WORK_DIR/prefix and check what was installed;
# 2. configure and build the consumer against that prefix;  3. run it.
cmake_minimum_required(VERSION 3.25)

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  list(JOIN ARGV " " command)
  message(STATUS "install_consumer: ${command}")
  execute_process(COMMAND ${ARGV} COMMAND_ERROR_IS_FATAL ANY)
endfunction()

# 1. install
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
set(pkg_dir ${prefix}/${LIBDIR}/cmake/optimist)
foreach(f ${INCLUDEDIR}/optimist/core/optimizer.hpp ${INCLUDEDIR}/optimist/algorithms/registry.hpp
          ${LIBDIR}/liboptimist.a ${BINDIR}/optimist ${pkg_dir}/optimistConfig.cmake
          ${pkg_dir}/optimistConfigVersion.cmake ${pkg_dir}/optimistTargets.cmake)
  if(NOT IS_ABSOLUTE ${f})
    set(f ${prefix}/${f})
  endif()
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "install_consumer: ${f} was not installed")
  endif()
endforeach()
# Private dependencies (Boost, L-BFGS++) must not leak into the exported link interface.
file(GLOB targets_files ${pkg_dir}/optimistTargets*.cmake)
foreach(f IN LISTS targets_files)
  file(READ ${f} text)
  if(text MATCHES "Boost|LBFGS")
    message(FATAL_ERROR "install_consumer: ${f} mentions a private dependency:\n${text}")
  endif()
endforeach()
# The installed CLI runs.
execute_process(COMMAND ${prefix}/${BINDIR}/optimist --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR out STREQUAL "")
  message(FATAL_ERROR "install_consumer: '${prefix}/${BINDIR}/optimist --help' failed (${rc}):\n${out}")
endif()
message(STATUS "install_consumer: installed 'optimist --help' works")

# 2. configure and build the consumer against the installed package only
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
file(STRINGS ${consumer_build}/CMakeCache.txt found REGEX "^optimist_DIR:")
if(NOT found STREQUAL "optimist_DIR:PATH=${pkg_dir}")
  message(FATAL_ERROR "install_consumer: the consumer found ${found}, not ${pkg_dir}")
endif()
run(${CMAKE_COMMAND} --build ${consumer_build} --config ${CONFIG})

# 2b. a program using only optimist::optimist needs no database client: configured with SQLite and
#     pkg-config's modules hidden, and the study component is then said to be missing.
set(core_build ${WORK_DIR}/consumer-core-build)
set(core_configure ${CMAKE_COMMAND} -E env PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH=
    ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${core_build} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON)
execute_process(COMMAND ${core_configure} -DCONSUMER_REQUIRES_STUDY=ON RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "optimist::study needs SQLite3, libpqxx and libpq")
  message(FATAL_ERROR "install_consumer: a missing study component was not said (${rc}):\n${out}")
endif()
run(${core_configure} -DCONSUMER_REQUIRES_STUDY=OFF)
execute_process(COMMAND ${core_configure} -DCONSUMER_COMPONENT=bogus RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "unknown optimist component 'bogus'; valid: core, study")
  message(FATAL_ERROR "install_consumer: an unknown component was not named (${rc}):\n${out}")
endif()
run(${core_configure} -DCONSUMER_COMPONENT=)
message(STATUS "install_consumer: optimist::optimist is found without the database clients")

# 3. run it
set(consumer_exe ${consumer_build}/consumer)
if(NOT EXISTS ${consumer_exe})  # multi-config generators
  set(consumer_exe ${consumer_build}/${CONFIG}/consumer)
endif()
run(${consumer_exe})

# 4. a program built with AddressSanitizer against the installed (uninstrumented) library: Eigen
#    allocates differently there, which corrupted the heap at run time (and forcing one mode on
#    every user crashed programs that compiled some files without it). It is a link error now,
#    naming the mode (include/optimist/core/types.hpp).
if(CXX_FLAGS STREQUAL "")
  set(asan_build ${WORK_DIR}/consumer-asan-build)
  run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${asan_build} -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined"
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${asan_build} --config ${CONFIG} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(rc EQUAL 0 OR NOT out MATCHES "library_allocates_eigen_with_eigen_aligned_malloc")
    message(FATAL_ERROR "install_consumer: a program built with -fsanitize=address against the Release library "
                        "was not refused at link time naming Eigen's allocation mode (${rc}):\n${out}")
  endif()
  message(STATUS "install_consumer: a program built with -fsanitize=address against it is a link error naming why")

  # 5. a plain compiler command, as a Makefile would have it (no CMake, no exported definitions):
  #    it crashed in its first vector freed ("double free or corruption").
  #    OpenBLAS by the path the package names (the single-threaded build's folder, as the README says).
  file(STRINGS ${pkg_dir}/optimistConfig.cmake openblas_line REGEX "^set\\(optimist_OPENBLAS ")
  string(REGEX REPLACE "^set\\(optimist_OPENBLAS \"([^\"]*)\"\\)$" "\\1" openblas "${openblas_line}")
  get_filename_component(openblas_dir "${openblas}" DIRECTORY)
  set(plain_exe ${WORK_DIR}/consumer-plain)
  run(${CXX_COMPILER} -std=c++20 -O2 ${CONSUMER_SOURCE_DIR}/main.cpp ${CONSUMER_SOURCE_DIR}/physics.cpp
      -I${prefix}/${INCLUDEDIR} -I/usr/include/eigen3 -L${prefix}/${LIBDIR} -loptimist -L${openblas_dir} -lopenblas
      -pthread -o ${plain_exe})
  run(${plain_exe})
  message(STATUS "install_consumer: a program built by a plain compiler command runs against it")
endif()
message(STATUS "install_consumer: OK")
