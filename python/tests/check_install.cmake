# Run by the ctest "python_install" as cmake -P with BUILD_DIR, WORK_DIR, PYTHON and PACKAGE_DIR (the
# install destination relative to the prefix): installs the component "python" into a prefix under
# WORK_DIR and imports the installed package, not the build tree's, from another folder.
cmake_minimum_required(VERSION 3.25)
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/elsewhere)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component python --prefix ${prefix}
                COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
set(check [=[
import os, sys, optimist
where = os.path.dirname(optimist.__file__)
assert where.startswith(os.environ["EXPECTED"]), (where, os.environ["EXPECTED"])
res = optimist.minimize(lambda p: (p["x"] - 1) ** 2, {"x": optimist.Float(-3, 3)}, budget=12, seed=0)
assert abs(res.x["x"] - 1) < 0.1, res
import optimist.integration
print("installed optimist", optimist.__version__, "at", where)
]=])
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH PYTHONPATH=${prefix}/${PACKAGE_DIR}
                        EXPECTED=${prefix}/${PACKAGE_DIR}/optimist PYTHONDONTWRITEBYTECODE=1 ${PYTHON} -c "${check}"
                WORKING_DIRECTORY ${WORK_DIR}/elsewhere RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python_install: the installed package does not work (${rc}):\n${out}")
endif()
message(STATUS "python_install: ${out}")
