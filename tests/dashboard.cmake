# `optimist dashboard` in a real browser: headless Chromium driven by Selenium (Debian's chromium,
# chromium-driver, python3-selenium; scripts/install-deps.sh installs them). Screenshots and the
# measured load times go to the build tree, dashboard-test/.
# In the ASan build too (the `optimist` they start is the sanitized CLI, which finds the sanitizer
# runtime by its rpath; Chromium and Python run uninstrumented). Not under TSan: the server's
# threads are covered there by the DashboardServer unit tests.
if(OPTIMIST_TSAN)
  return()
endif()
foreach(case live large study)
  add_test(NAME dashboard_browser_${case}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/test_dashboard_browser.py
                   --optimist $<TARGET_FILE:optimist_cli> --out ${PROJECT_BINARY_DIR}/dashboard-test ${case})
  set_tests_properties(dashboard_browser_${case} PROPERTIES TIMEOUT 300)
endforeach()

# The page's JavaScript on its own (node's test runner; node comes with npm, which
# scripts/install-deps.sh installs). Once, in the main build: it does not run the C++ code.
if(NOT OPTIMIST_SANITIZE)
  find_program(OPTIMIST_NODE NAMES node nodejs REQUIRED)
  add_test(NAME dashboard_js_trial_store
           COMMAND ${OPTIMIST_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/trial_store.test.mjs)
  set_tests_properties(dashboard_js_trial_store PROPERTIES TIMEOUT 60)
  add_test(NAME dashboard_js_format COMMAND ${OPTIMIST_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/format.test.mjs)
  set_tests_properties(dashboard_js_format PROPERTIES TIMEOUT 60)
  add_test(NAME dashboard_js_charts COMMAND ${OPTIMIST_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/charts.test.mjs)
  set_tests_properties(dashboard_js_charts PROPERTIES TIMEOUT 60)
  add_test(NAME dashboard_js_pacing COMMAND ${OPTIMIST_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/pacing.test.mjs)
  set_tests_properties(dashboard_js_pacing PROPERTIES TIMEOUT 60)
  add_test(NAME dashboard_js_brush COMMAND ${OPTIMIST_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/brush.test.mjs)
  set_tests_properties(dashboard_js_brush PROPERTIES TIMEOUT 60)
endif()
