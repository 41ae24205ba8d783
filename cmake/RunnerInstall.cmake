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
