# <runner/plugin.hpp> precompiled by Clang for plugin projects built with Clang. GCC redoes a
# precompiled header's pending template instantiations in every unit (4-5 s of the example
# plugin's 8 s); Clang can do them once, in the header (-fpch-instantiate-templates), and the
# example then compiles in 2.5 s (tools/bench/README.md). A Clang precompiled header names the
# files it was made from and refuses to load once they moved, so it is made at install time from
# the installed header, with the flags an out-of-tree plugin compiles with
# (runner_add_plugin()): the build type's, position-independent, hidden symbols, LibTorch's
# definitions and include folders. Where clang++ fails, the install goes on without it. Off with -DRUNNER_CLANG_PLUGIN_PCH=OFF; nothing is made
# where no clang++ is found, no build type is set, or DESTDIR stages the install elsewhere.
option(RUNNER_CLANG_PLUGIN_PCH "install <runner/plugin.hpp> precompiled by clang++ too" ON)
set(RUNNER_CLANG_PCH_VERSION "")
if(RUNNER_CLANG_PLUGIN_PCH AND CMAKE_BUILD_TYPE)
  find_program(RUNNER_CLANGXX NAMES clang++ DOC "clang++ that precompiles <runner/plugin.hpp>")
endif()
if(RUNNER_CLANGXX)
  execute_process(COMMAND ${RUNNER_CLANGXX} -dumpversion OUTPUT_VARIABLE RUNNER_CLANG_PCH_VERSION
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _runner_clang_status)
  if(NOT _runner_clang_status EQUAL 0)
    set(RUNNER_CLANG_PCH_VERSION "")
  endif()
endif()

if(RUNNER_CLANG_PCH_VERSION)
  set(_runner_flags ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${RUNNER_PCH_BUILD_TYPE}})
  separate_arguments(_runner_flags UNIX_COMMAND "${_runner_flags}")
  separate_arguments(_runner_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  list(APPEND _runner_flags -std=c++${CMAKE_CXX_STANDARD} -fPIC -fvisibility=hidden
       -fvisibility-inlines-hidden -fpch-instantiate-templates ${_runner_torch_flags})
  foreach(_runner_dir IN LISTS TORCH_INCLUDE_DIRS)
    if(NOT _runner_dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      list(APPEND _runner_flags -isystem ${_runner_dir})
    endif()
  endforeach()
  # LibTorch's definitions (USE_DISTRIBUTED and the like), as its imported targets give them.
  set(_runner_definitions "$<TARGET_PROPERTY:runner_sdk,INTERFACE_COMPILE_DEFINITIONS>")
  set(_runner_flags_file ${PROJECT_BINARY_DIR}/clang_plugin_pch_flags.txt)
  file(GENERATE OUTPUT ${_runner_flags_file}
       CONTENT "${_runner_flags};$<$<BOOL:${_runner_definitions}>:-D$<JOIN:${_runner_definitions},;-D>>")
  install(CODE "
    if(DEFINED ENV{DESTDIR} AND NOT \"\$ENV{DESTDIR}\" STREQUAL \"\")
      message(STATUS \"Not precompiling <runner/plugin.hpp> for Clang: DESTDIR stages the install\")
      return()
    endif()
    set(_include \"\${CMAKE_INSTALL_PREFIX}/include\")
    set(_dir \"\${_include}/runner/precompiled\")
    file(MAKE_DIRECTORY \"\${_dir}\")
    # One made for headers an earlier install left would no longer load.
    file(REMOVE \"\${_dir}/plugin.hpp.pch\")
    file(READ \"${_runner_flags_file}\" _flags)
    message(STATUS \"Precompiling: \${_dir}/plugin.hpp.pch (${RUNNER_CLANGXX} ${RUNNER_CLANG_PCH_VERSION})\")
    execute_process(COMMAND \"${RUNNER_CLANGXX}\" \${_flags} -isystem \"\${_include}\"
                            -x c++-header \"\${_include}/runner/plugin.hpp\" -o \"\${_dir}/plugin.hpp.pch.tmp\"
                    RESULT_VARIABLE _status)
    if(_status EQUAL 0)
      file(RENAME \"\${_dir}/plugin.hpp.pch.tmp\" \"\${_dir}/plugin.hpp.pch\")
    else()
      file(REMOVE \"\${_dir}/plugin.hpp.pch.tmp\")
      message(WARNING \"clang++ could not precompile \${_include}/runner/plugin.hpp: Clang plugin projects build without it\")
    endif()
  ")
endif()
