# `optimist dashboard`: the HTTP server and JSON API (src/dashboard/, cpp-httplib from Debian's
# libcpp-httplib-dev) and the web page (web/dashboard/) with its chart library, Apache ECharts,
# which scripts/install-deps.sh installs from npm (web/package-lock.json) into web/node_modules.
# The page is assembled in the build tree, share/optimist/dashboard/, laid out as it is installed.

find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
find_package(ZLIB REQUIRED)  # gzip for the page's files and the API's answers (zlib1g-dev)

file(GLOB OPTIMIST_DASHBOARD_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/dashboard/*.cpp)
add_library(optimist_dashboard STATIC ${OPTIMIST_DASHBOARD_SOURCES})
target_include_directories(optimist_dashboard PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(optimist_dashboard PUBLIC optimist optimist_study PRIVATE PkgConfig::HTTPLIB ZLIB::ZLIB)
target_compile_options(optimist_dashboard PRIVATE ${OPTIMIST_WARNINGS})

# The chart library: where the setup step put it, or a path given with -DOPTIMIST_ECHARTS_JS=.
set(OPTIMIST_WEB_DIR ${PROJECT_SOURCE_DIR}/web)
if(OPTIMIST_ECHARTS_JS AND NOT EXISTS "${OPTIMIST_ECHARTS_JS}")
  unset(OPTIMIST_ECHARTS_JS CACHE)  # found before, removed since
endif()
find_file(OPTIMIST_ECHARTS_JS echarts.min.js
          PATHS ${OPTIMIST_WEB_DIR}/node_modules/echarts/dist /usr/share/javascript/echarts NO_DEFAULT_PATH
          DOC "Apache ECharts' echarts.min.js, served by the dashboard")
if(NOT OPTIMIST_ECHARTS_JS)
  # A checkout that never ran the setup step (e.g. a new worktree): install the locked version now.
  find_program(OPTIMIST_NPM npm)
  if(OPTIMIST_NPM)
    message(STATUS "dashboard: installing the chart library (npm ci in web/)")
    execute_process(COMMAND ${OPTIMIST_NPM} ci --ignore-scripts --no-audit --no-fund --loglevel=error
                    WORKING_DIRECTORY ${OPTIMIST_WEB_DIR} RESULT_VARIABLE npm_result)
    find_file(OPTIMIST_ECHARTS_JS echarts.min.js PATHS ${OPTIMIST_WEB_DIR}/node_modules/echarts/dist NO_DEFAULT_PATH)
  endif()
  if(NOT OPTIMIST_ECHARTS_JS)
    message(WARNING "dashboard: echarts.min.js not found; the page will draw no plots and its browser test "
                    "fails. Run scripts/install-deps.sh (it runs 'npm ci' in web/), then re-run cmake.")
  endif()
endif()

set(OPTIMIST_DASHBOARD_BUILD_DIR ${PROJECT_BINARY_DIR}/share/optimist/dashboard)
file(GLOB_RECURSE OPTIMIST_DASHBOARD_WEB_FILES CONFIGURE_DEPENDS RELATIVE ${OPTIMIST_WEB_DIR}/dashboard
     ${OPTIMIST_WEB_DIR}/dashboard/*)
set(dashboard_outputs)
foreach(f IN LISTS OPTIMIST_DASHBOARD_WEB_FILES)
  add_custom_command(OUTPUT ${OPTIMIST_DASHBOARD_BUILD_DIR}/${f}
                     COMMAND ${CMAKE_COMMAND} -E copy ${OPTIMIST_WEB_DIR}/dashboard/${f} ${OPTIMIST_DASHBOARD_BUILD_DIR}/${f}
                     DEPENDS ${OPTIMIST_WEB_DIR}/dashboard/${f} VERBATIM)
  list(APPEND dashboard_outputs ${OPTIMIST_DASHBOARD_BUILD_DIR}/${f})
endforeach()
if(OPTIMIST_ECHARTS_JS)
  add_custom_command(OUTPUT ${OPTIMIST_DASHBOARD_BUILD_DIR}/vendor/echarts.min.js
                     COMMAND ${CMAKE_COMMAND} -E copy ${OPTIMIST_ECHARTS_JS} ${OPTIMIST_DASHBOARD_BUILD_DIR}/vendor/echarts.min.js
                     DEPENDS ${OPTIMIST_ECHARTS_JS} VERBATIM)
  list(APPEND dashboard_outputs ${OPTIMIST_DASHBOARD_BUILD_DIR}/vendor/echarts.min.js)
  install(FILES ${OPTIMIST_ECHARTS_JS} DESTINATION ${CMAKE_INSTALL_DATADIR}/optimist/dashboard/vendor)
endif()
add_custom_target(optimist_dashboard_web ALL DEPENDS ${dashboard_outputs})
install(DIRECTORY ${OPTIMIST_WEB_DIR}/dashboard/ DESTINATION ${CMAKE_INSTALL_DATADIR}/optimist/dashboard)

target_link_libraries(optimist_cli_lib PUBLIC optimist_dashboard)
add_dependencies(optimist_cli optimist_dashboard_web)
target_compile_definitions(optimist_cli_lib PRIVATE OPTIMIST_BUILD_DASHBOARD_DIR="${OPTIMIST_DASHBOARD_BUILD_DIR}")
