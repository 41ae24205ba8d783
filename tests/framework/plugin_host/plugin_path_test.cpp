// Tests of the plugin path: its order of sources, and the default folder under the host program's
// prefix.
#include <gtest/gtest.h>

#include "plugin_host/plugin_path.hpp"

namespace runner::plugin_host {
namespace {

TEST(PluginPath, OrderIsCommandLineEnvironmentExperimentDefault) {
  PluginPathSources sources;
  sources.command_line = {"/cli"};
  sources.environment = "/env1::/env2";
  sources.experiment = {"/exp"};
  sources.executable = "/opt/runner/libexec/runner/runner";
  EXPECT_EQ(plugin_search_path(sources),
            (std::vector<std::string>{"/cli", "/env1", "/env2", "/exp",
                                      "/opt/runner/lib/runner/plugins"}));
}

TEST(PluginPath, DefaultFolderIsThePrefixOfTheHostProgram) {
  EXPECT_EQ(default_plugin_folder("/usr/local/libexec/runner/runner"),
            "/usr/local/lib/runner/plugins");
}

}  // namespace
}  // namespace runner::plugin_host
