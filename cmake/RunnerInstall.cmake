# Installed layout: bin/runner, lib/runner/plugins/*.so, include/runner/*.hpp,
# lib/cmake/Runner/ (find_package(Runner) gives Runner::sdk and runner_add_plugin()).
# The runner and the plugins install themselves (framework/src/cli, runner_add_plugin());
# this file installs what an out-of-tree plugin project needs.
include(CMakePackageConfigHelpers)

set(RUNNER_CONFIG_INSTALL_DIR lib/cmake/Runner)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/runner DESTINATION include)

# Exported as Runner::sdk, the name plugins link to in this tree too.
set_target_properties(runner_sdk PROPERTIES EXPORT_NAME sdk)
install(TARGETS runner_sdk EXPORT RunnerTargets)
install(EXPORT RunnerTargets NAMESPACE Runner:: DESTINATION ${RUNNER_CONFIG_INSTALL_DIR})

# <runner/plugin.hpp> precompiled as a plugin project's sources compile: a plugin's flags
# (position-independent, hidden symbols), this build's compiler, standard and build type, which
# RunnerConfig.cmake records so that runner_add_plugin() uses it only where they match. GCC
# only (its .gch beside the header it stands for).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_BUILD_TYPE)
  add_library(runner_plugin_pch OBJECT ${PROJECT_SOURCE_DIR}/framework/src/plugin_pch.cpp)
  target_link_libraries(runner_plugin_pch PRIVATE runner_sdk)
  set_target_properties(runner_plugin_pch PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_precompile_headers(runner_plugin_pch PRIVATE <runner/plugin.hpp>)
  set(_runner_pch_dir ${PROJECT_BINARY_DIR}/CMakeFiles/runner_plugin_pch.dir)
  install(FILES ${_runner_pch_dir}/cmake_pch.hxx DESTINATION include/runner/precompiled
          RENAME plugin.hpp)
  install(FILES ${_runner_pch_dir}/cmake_pch.hxx.gch DESTINATION include/runner/precompiled
          RENAME plugin.hpp.gch)
  set(RUNNER_PLUGIN_PCH_INSTALLED ON)
else()
  set(RUNNER_PLUGIN_PCH_INSTALLED OFF)
endif()
string(TOUPPER "${CMAKE_BUILD_TYPE}" RUNNER_PCH_BUILD_TYPE)
include(${CMAKE_CURRENT_LIST_DIR}/RunnerClangPluginPch.cmake)

# The config records Torch_DIR and looks there for LibTorch first: the host refuses a plugin
# built against another LibTorch than its own.
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/RunnerConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RunnerConfig.cmake
  INSTALL_DESTINATION ${RUNNER_CONFIG_INSTALL_DIR}
  PATH_VARS RUNNER_PLUGIN_INSTALL_DIR)
# The host checks the plugin ABI itself at load time; this only keeps a plugin project on the
# SDK release line (major.minor) it asked for.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RunnerConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/RunnerConfig.cmake
  ${PROJECT_BINARY_DIR}/RunnerConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/RunnerPlugin.cmake
  ${PROJECT_SOURCE_DIR}/cmake/RunnerTorchCheck.cmake
  DESTINATION ${RUNNER_CONFIG_INSTALL_DIR})
