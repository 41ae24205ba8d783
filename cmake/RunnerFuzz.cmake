# runner_add_fuzzer(NAME SOURCES a.cpp [LIBRARIES x] [INCLUDES dir])
#
# A libFuzzer target (RUNNER_FUZZ=ON, clang only), built with the sanitizers of the build
# (RUNNER_SANITIZE) into <build>/fuzz. tools/sanitize_and_fuzz.sh runs each for a bounded time
# over its seed corpus and fails on a crash, a leak or a timeout.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "RUNNER_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
endif()

function(runner_add_fuzzer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;INCLUDES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_include_directories(${name} PRIVATE ${ARG_INCLUDES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
endfunction()
