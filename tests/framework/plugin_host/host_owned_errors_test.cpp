// An error thrown by plugin code, once copied, is readable after its library is unloaded.
#include "plugin_host/host_owned_errors.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "plugin_host/registry.hpp"

namespace runner::plugin_host {
namespace {

using runner::testing::fixture_dir;

// The op's forward throws a RunError whose vtable and type information are the library's.
void call_refusing_op_and_unload() {
  Registry registry;
  registry.load_directories({fixture_dir("throwing")});
  std::shared_ptr<Op> op = registry.make_op("fixture_refusing", Options("ops.fixture_refusing"));
  with_host_owned_errors([&] { return op->forward({torch::ones({2, 2})}, {}); });
}

TEST(HostOwnedErrors, AnErrorFromPluginCodeOutlivesItsLibrary) {
  try {
    call_refusing_op_and_unload();
    FAIL() << "the op did not throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "fixture_refusing: refuses an input of 4 elements");
    EXPECT_EQ(e.exit_code(), 5);
  }
}

TEST(HostOwnedErrors, KeepsTheClassAndHintOfARunnerError) {
  try {
    with_host_owned_errors([]() -> int { throw DataError("x.gz is truncated", "download it"); });
    FAIL() << "nothing thrown";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x.gz is truncated");
    EXPECT_EQ(e.hint(), "download it");
    EXPECT_EQ(e.exit_code(), 4);
  }
}

TEST(HostOwnedErrors, AnyOtherExceptionIsARuntimeErrorOfOneLine) {
  try {
    with_host_owned_errors([]() -> int { throw std::runtime_error("first\nsecond"); });
    FAIL() << "nothing thrown";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "first");
    EXPECT_EQ(e.exit_code(), 5);
  }
}

}  // namespace
}  // namespace runner::plugin_host
