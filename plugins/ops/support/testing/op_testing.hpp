// Helpers the op plugins' tests share for the errors an op throws.
#pragma once

#include <gtest/gtest.h>
#include <runner_testing/error_message.hpp>

#include <string>

namespace op_testing {

// The message of the `E` that a call throws; a test failure when it throws none.
using runner::testing::message_of;

}  // namespace op_testing
