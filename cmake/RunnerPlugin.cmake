# A plugin's sources spend most of their compile time in LibTorch's headers. In this tree every
# plugin reuses the host's precompiled <torch/torch.h>. An installed runner ships
# <runner/plugin.hpp> precompiled with the compiler, standard and build type it was built with
# (Runner_PLUGIN_PCH, from RunnerConfig.cmake), and by Clang where it found one at install time
# (Runner_CLANG_PLUGIN_PCH); a plugin project built with either, the same build type, includes
# it first, so none of its sources parses the SDK's LibTorch headers again. GCC says so
# (-Winvalid-pch) and parses the header instead where the precompiled one does not fit; Clang
# refuses one that does not fit, so it is used only with the very version that made it.
function(runner_reuse_plugin_pch target)
  if(TARGET runner_pch)
    target_precompile_headers(${target} REUSE_FROM runner_pch)
    return()
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type)
  if(NOT build_type STREQUAL Runner_PCH_BUILD_TYPE)
    return()
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND Runner_CLANG_PCH_VERSION AND
     CMAKE_CXX_COMPILER_VERSION VERSION_EQUAL Runner_CLANG_PCH_VERSION AND
     EXISTS "${Runner_CLANG_PLUGIN_PCH}")
    set(flags -include-pch "${Runner_CLANG_PLUGIN_PCH}")
  elseif(Runner_PLUGIN_PCH AND EXISTS "${Runner_PLUGIN_PCH}.gch" AND
         CMAKE_CXX_COMPILER_ID STREQUAL Runner_PCH_COMPILER_ID AND
         CMAKE_CXX_COMPILER_VERSION VERSION_EQUAL Runner_PCH_COMPILER_VERSION)
    set(flags -Winvalid-pch -include "${Runner_PLUGIN_PCH}")
  else()
    return()
  endif()
  set_target_properties(${target} PROPERTIES
    CXX_STANDARD ${Runner_PCH_CXX_STANDARD}
    CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF
    POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${target} PRIVATE ${flags})
endfunction()

# GCC collects its heap's garbage from a few hundred MB on; a LibTorch unit grows past 1 GB and
# spends 12% of its time collecting (-ftime-report on a unity batch). Collecting from 2 GB on
# takes 10-14% off each unit for 7-10% more memory (tools/bench/README.md). This tree sets them
# on all its targets; an out-of-tree plugin gets them on its own.
set(RUNNER_GCC_HEAP_OPTIONS
    "$<$<COMPILE_LANG_AND_ID:CXX,GNU>:--param=ggc-min-expand=400;--param=ggc-min-heapsize=2097152>")

# runner_add_plugin(NAME SOURCES a.cpp b.cpp [LIBRARIES x y])
# runner_add_plugin(NAME LIBRARY lib)
#
# Builds a plugin library NAME.so that the runner loads from its plugin path. The same call
# works in this tree and in an out-of-tree project after find_package(Runner). The library goes
# to RUNNER_PLUGIN_OUTPUT_DIR, by default <build>/plugins; it is installed only when
# RUNNER_PLUGIN_INSTALL_DIR is set, as in this tree, so an out-of-tree project installs nothing
# into the runner's prefix unless it asks to.
# With LIBRARY, the plugin is made of the objects of a runner_add_plugin_library whose sources
# hold the RUNNER_PLUGIN entry: the entry then compiles in the classes' unity batch instead of
# a unit of its own, which cost 9 s for six lines (the precompiled header's load and the SDK's
# registration templates; tools/bench/README.md).
function(runner_add_plugin name)
  cmake_parse_arguments(ARG "" "LIBRARY" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES AND NOT ARG_LIBRARY)
    message(FATAL_ERROR "runner_add_plugin(${name}): give SOURCES or a LIBRARY")
  endif()
  set(target runner_plugin_${name})
  if(ARG_LIBRARY)
    add_library(${target} MODULE ${ARG_SOURCES} $<TARGET_OBJECTS:${ARG_LIBRARY}>)
  else()
    add_library(${target} MODULE ${ARG_SOURCES})
  endif()
  target_link_libraries(${target} PRIVATE Runner::sdk ${ARG_LIBRARY} ${ARG_LIBRARIES})
  if(ARG_SOURCES)
    runner_reuse_plugin_pch(${target})
    if(NOT TARGET runner_pch)
      target_compile_options(${target} PRIVATE "${RUNNER_GCC_HEAP_OPTIONS}")
    endif()
  endif()
  if(NOT DEFINED RUNNER_PLUGIN_OUTPUT_DIR)
    set(RUNNER_PLUGIN_OUTPUT_DIR ${CMAKE_BINARY_DIR}/plugins)
  endif()
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name}
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${RUNNER_PLUGIN_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED RUNNER_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${RUNNER_PLUGIN_INSTALL_DIR})
    # cmake --install needs these built (tests/install builds them first).
    set_property(GLOBAL APPEND PROPERTY RUNNER_INSTALLED_PLUGINS ${target})
  endif()
endfunction()

# runner_add_plugin_library(TARGET SOURCES a.cpp [LIBRARIES x])
#
# A static library of a plugin's classes, compiled as the plugin is (hidden symbols, the
# shared precompiled header in this tree), so its tests can link the classes directly while
# the plugin itself links the library and only registers.
function(runner_add_plugin_library target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC Runner::sdk ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  runner_reuse_plugin_pch(${target})
  if(NOT TARGET runner_pch)
    target_compile_options(${target} PRIVATE "${RUNNER_GCC_HEAP_OPTIONS}")
  endif()
endfunction()

# runner_add_cpu_kernels(TARGET SOURCES kernel.cpp ...)
#
# Compiles each source once per CPU capability, as ATen compiles its own kernels: DEFAULT and,
# on x86-64, AVX2 and AVX512. Each copy is built with CPU_CAPABILITY set to its name, so
# at::vec::Vectorized has the matching width and a source that wraps its functions in
# `namespace CPU_CAPABILITY` gets one namespace per copy. The copies go into TARGET, which picks
# one at run time with runner::cpu_capability() (runner/cpu_capability.hpp). The copies are
# compiled with OpenMP: at::parallel_for is inline, and without it runs on one thread.
function(runner_add_cpu_kernels target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(flags_DEFAULT "")
  set(flags_AVX2 -mavx2 -mfma)
  # GCC takes the _mm512_undefined_* that at::vec's AVX-512 code starts from for a read of an
  # uninitialized value.
  set(flags_AVX512 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -Wno-maybe-uninitialized)
  find_package(OpenMP REQUIRED COMPONENTS CXX)
  set(capabilities DEFAULT)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    list(APPEND capabilities AVX2 AVX512)
  endif()
  foreach(capability ${capabilities})
    set(objects ${target}_${capability})
    add_library(${objects} OBJECT ${ARG_SOURCES})
    target_link_libraries(${objects} PRIVATE Runner::sdk OpenMP::OpenMP_CXX)
    target_compile_definitions(${objects} PRIVATE CPU_CAPABILITY=${capability}
                                                  CPU_CAPABILITY_${capability})
    target_compile_options(${objects} PRIVATE ${flags_${capability}})
    set_target_properties(${objects} PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${objects}>)
  endforeach()
  # ATen's vectorized math calls SLEEF, which LibTorch links but does not re-export.
  find_library(RUNNER_SLEEF_LIBRARY sleef REQUIRED)
  # Only the runtime for the target itself: -fopenmp on its other sources would not match the
  # precompiled header they share.
  target_link_libraries(${target} PUBLIC ${RUNNER_SLEEF_LIBRARY} ${OpenMP_CXX_LIBRARIES})
endfunction()
