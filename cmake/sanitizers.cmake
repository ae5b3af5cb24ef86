# Sanitizer and fuzzing builds (docs/reliability.md).
#
#   OPTIMIST_SANITIZE  AddressSanitizer + UndefinedBehaviorSanitizer, every target (make asan).
#   OPTIMIST_TSAN      ThreadSanitizer, every target (make tsan).
#   OPTIMIST_FUZZ      with clang: the code is also instrumented for libFuzzer's coverage
#                      (-fsanitize=fuzzer-no-link) and fuzz/ builds its libFuzzer programs.
#
# The ASan runtime is linked as a shared library (GCC's default; -shared-libsan with clang) so that the
# Python extension can be loaded by Debian's python3 with that library in LD_PRELOAD:
# OPTIMIST_SANITIZER_PRELOAD names it and the Python tests set it. Child processes (the CLI run by
# a test, objective commands) inherit LD_PRELOAD; with one shared runtime that is harmless.

if(OPTIMIST_SANITIZE AND OPTIMIST_TSAN)
  message(FATAL_ERROR "OPTIMIST_SANITIZE (ASan) and OPTIMIST_TSAN exclude each other: use two build folders")
endif()
if(OPTIMIST_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "OPTIMIST_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
endif()

set(OPTIMIST_SANITIZER_PRELOAD "")
set(_optimist_san "")
if(OPTIMIST_SANITIZE)
  set(_optimist_san address,undefined)
elseif(OPTIMIST_TSAN)
  set(_optimist_san thread)
endif()

set(OPTIMIST_SANITIZER_FLAGS "")
if(_optimist_san)
  set(OPTIMIST_SANITIZER_FLAGS "-fsanitize=${_optimist_san} -fno-omit-frame-pointer")
  add_compile_options(-fsanitize=${_optimist_san} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${_optimist_san})
  if(OPTIMIST_SANITIZE)
    # UB aborts the program (a test fails) instead of printing and going on.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND OPTIMIST_TSAN)
    # clang 14's shared TSan runtime crashes at startup (even a two-line program) on this kernel;
    # the static one works. The TSan build has no Python extension, so nothing needs a preload.
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-resource-dir OUTPUT_VARIABLE _resource
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(_rt_dir ${_resource}/lib/linux)
    add_link_options(-shared-libsan LINKER:-rpath,${_rt_dir})
    set(OPTIMIST_SANITIZER_PRELOAD ${_rt_dir}/libclang_rt.asan-x86_64.so)
  else()
    set(_lib libasan.so)
    if(OPTIMIST_TSAN)
      set(_lib libtsan.so)
    endif()
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_lib} OUTPUT_VARIABLE OPTIMIST_SANITIZER_PRELOAD
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  if(OPTIMIST_SANITIZER_PRELOAD AND NOT EXISTS "${OPTIMIST_SANITIZER_PRELOAD}")
    message(WARNING "sanitizer runtime '${OPTIMIST_SANITIZER_PRELOAD}' not found: the Python package is not built")
    set(OPTIMIST_SANITIZER_PRELOAD "")
  endif()
endif()

if(OPTIMIST_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# The environment of tests that run Debian's python3 against this build.
set(OPTIMIST_SANITIZER_ENV "")
if(OPTIMIST_SANITIZER_PRELOAD)
  # The interpreter itself leaks by design (interned objects at exit): no leak report for it.
  set(OPTIMIST_SANITIZER_ENV "LD_PRELOAD=${OPTIMIST_SANITIZER_PRELOAD};ASAN_OPTIONS=detect_leaks=0")
endif()
