// Helpers the op plugins' tests share for the errors an op throws.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace op_testing {

// The message of the `E` that `call` throws; a test failure when it throws none.
template <typename E>
std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected class";
  return {};
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace op_testing
