# runner_add_test(NAME SOURCES ... [LIBRARIES ...] [TORCH])
# One GoogleTest executable, registered with CTest one suite at a time ("Suite.* (NAME)", see
# RunnerTestSuites.cmake) and labelled NAME (`ctest -L NAME` runs one executable's tests; one
# test: `build/tests/NAME --gtest_filter=Suite.Test`).
find_package(GTest REQUIRED)
set(RUNNER_TEST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/RunnerTestSuites.cmake)

set(RUNNER_TEST_OUTPUT_DIR ${CMAKE_BINARY_DIR}/tests)

# A test's own code runs once per run of the suite: optimized less, its unit compiles in 0.8
# of the time at -O3 (tools/bench/README.md); the code under test keeps the build's level. GCC
# 13 and later keep the level's target settings in a precompiled header (-mvzeroupper,
# -munroll-only-small-loops) and refuse it at another level: there tests keep the build's.
set(RUNNER_TEST_OPTIMIZATION "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  set(RUNNER_TEST_OPTIMIZATION "$<$<NOT:$<CONFIG:Debug>>:-O1>")
endif()

function(runner_add_test name)
  cmake_parse_arguments(ARG "TORCH" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gmock GTest::gtest runner_test_main Threads::Threads
                        ${ARG_LIBRARIES})
  if(ARG_TORCH)
    runner_use_torch_pch(${name})
  endif()
  target_compile_options(${name} PRIVATE ${RUNNER_TEST_OPTIMIZATION})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${RUNNER_TEST_OUTPUT_DIR})
  target_compile_definitions(${name} PRIVATE
    RUNNER_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    RUNNER_BINARY_DIR="${CMAKE_BINARY_DIR}"
    RUNNER_PLUGIN_DIR="${RUNNER_PLUGIN_OUTPUT_DIR}")
  runner_add_test_suites(${name})
endfunction()

# Each time the program links, its suites are listed into a CTest file that ctest includes;
# before the first build ctest shows NAME_NOT_BUILT, as GoogleTest's own discovery does.
function(runner_add_test_suites name)
  set(suites_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_suites.cmake)
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D PROGRAM=$<TARGET_FILE:${name}> -D LABEL=${name}
            -D WORKING_DIRECTORY=${CMAKE_CURRENT_BINARY_DIR} -D OUTPUT=${suites_file}
            -P ${RUNNER_TEST_SUITES_SCRIPT}
    BYPRODUCTS ${suites_file}
    VERBATIM)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_include.cmake)
  file(WRITE ${include_file}
    "if(EXISTS \"${suites_file}\")\n  include(\"${suites_file}\")\n"
    "else()\n  add_test(${name}_NOT_BUILT ${name}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

# runner_add_plugin_tests(PROGRAM SOURCES ... [LIBRARIES ...] [DEFINITIONS ...])
# A plugin's tests join PROGRAM, the one test program of its kind (model_plugins_test, ...),
# which plugins/CMakeLists.txt makes. A kind's tests compile as one unit: each plugin's tests
# as a program of their own cost 14-25 s a unit, nearly all of it the precompiled torch.h's
# load and the instantiations of LibTorch's and GoogleTest's templates every unit repeats,
# while the 7 model plugins' tests take 24 s as one (tools/bench/README.md). Each plugin's
# tests keep a namespace of their own, since they share the unit.
function(runner_add_plugin_tests program)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;DEFINITIONS" ${ARGN})
  list(TRANSFORM ARG_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  target_sources(${program} PRIVATE ${ARG_SOURCES})
  target_link_libraries(${program} PRIVATE ${ARG_LIBRARIES})
  target_compile_definitions(${program} PRIVATE ${ARG_DEFINITIONS})
endfunction()
