// What loading a library that must be refused says: a plugin error (exit 3) of one line.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "plugin_host/library.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {

inline std::string load_error(const std::string& path) {
  try {
    plugin_host::Library::load(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 3) << e.what();
    EXPECT_THAT(std::string(e.what()), Not(HasSubstr("\n"))) << "one line: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error loading " << path;
  return "";
}

}  // namespace runner::testing
