// The message of an expected exception, so that a test can check that it names the file, key
// or rank at fault, not only the exception's type.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <typeinfo>

namespace runner::testing {

// What the `E` that `action` throws says; a test failure, and "", when it throws none.
template <typename E, typename Action>
std::string message_of(Action&& action) {
  try {
    action();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception of type " << typeid(E).name();
  return "";
}

}  // namespace runner::testing
