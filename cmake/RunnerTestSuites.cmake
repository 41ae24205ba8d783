# Run after each test program links (cmake -P): lists its GoogleTest suites and writes OUTPUT,
# a CTest file with one test per suite, named "Suite.* (PROGRAM)" and running
# `PROGRAM --gtest_filter=Suite.*`. A process per suite rather than per test: each test
# program's start (LibTorch's static registrations) costs 0.7-1.0 s of CPU, a third of the
# suite's time when each of its 1283 tests ran alone (tools/bench/README.md).
#   -D PROGRAM=path -D LABEL=name -D WORKING_DIRECTORY=dir -D OUTPUT=file
set(ENV{OPENBLAS_NUM_THREADS} 1)
execute_process(COMMAND "${PROGRAM}" --gtest_list_tests
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${status}): ${errors}")
endif()

string(REPLACE "\n" ";" lines "${listing}")
set(tests "")
foreach(line IN LISTS lines)
  # A suite's line: "Suite." or "Prefix/Suite.  # TypeParam = ..."; its tests are indented.
  if(NOT line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    continue()
  endif()
  set(suite "${CMAKE_MATCH_1}")
  set(name "${suite}.* (${LABEL})")
  string(APPEND tests
    "add_test([=[${name}]=] [=[${PROGRAM}]=] [=[--gtest_filter=${suite}.*]=])\n"
    "set_tests_properties([=[${name}]=] PROPERTIES LABELS [=[${LABEL}]=]"
    " WORKING_DIRECTORY [=[${WORKING_DIRECTORY}]=] ENVIRONMENT OPENBLAS_NUM_THREADS=1"
    " SKIP_RETURN_CODE 77)\n")
endforeach()
if(tests STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} lists no test suite")
endif()
file(WRITE "${OUTPUT}" "${tests}")
