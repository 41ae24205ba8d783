// Paths of the fixture plugins built by tests/fixtures/CMakeLists.txt.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace runner::testing {

inline std::string fixture_dir(const std::string& name) {
  return std::string(RUNNER_BINARY_DIR) + "/tests/fixtures/" + name;
}

inline std::string fixture_library(const std::string& name) {
  return fixture_dir(name) + "/" + (name == "no_entry" ? "no_entry" : "fixture_" + name) + ".so";
}

// A fresh empty folder under the system's temporary folder.
inline std::string fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("runner_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace runner::testing
