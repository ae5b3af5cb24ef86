# The numpy/scipy ports of BoTorch's GP-EI and the reference TuRBO-1 (bench/reference/): their
# analytic gradients against finite differences, Thompson draws against the closed form, the
# Latin hypercube. Debian's python3-scipy comes with python3-sklearn (scripts/install-deps.sh).
# Not in the sanitizer builds (docs/reliability.md, "What CI runs"): Python code only, no C++ of ours.
if(OPTIMIST_SANITIZE OR OPTIMIST_TSAN)
  return()
endif()
if(EXISTS /usr/bin/python3)
  foreach(port botorch_ei_port turbo1_port)
    add_test(NAME reference_${port}_self_test
             COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/bench/reference/${port}.py --self-test)
    set_tests_properties(reference_${port}_self_test PROPERTIES TIMEOUT 120)
  endforeach()
endif()
