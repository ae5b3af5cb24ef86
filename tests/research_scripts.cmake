# The research scripts under scripts/ that docs/ cite for their figures: scripts/continue_run.py
# splices two algorithms' traces and continues them with `optimist run --resume`; its self-test runs
# a small sweep and checks that a continued run keeps the first evaluations it was given and
# reproduces either algorithm's own run at the two ends. Python driving the Release CLI only: not
# in the sanitizer builds (the CLI's resume is tested there by the C++ tests).
if(OPTIMIST_SANITIZE OR OPTIMIST_TSAN)
  return()
endif()
if(EXISTS /usr/bin/python3)
  add_test(NAME research_continue_run_self_test
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/continue_run.py --self-test
                   --optimist $<TARGET_FILE:optimist_cli>)
  set_tests_properties(research_continue_run_self_test PROPERTIES TIMEOUT 120)
endif()
