// What loading a library that must be refused says: a plugin error (exit 3) of one line.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "plugin_host/library.hpp"

namespace runner::testing {

inline std::string load_error(const std::string& path) {
  try {
    plugin_host::Library::load(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 3) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error loading " << path;
  return "";
}

}  // namespace runner::testing
