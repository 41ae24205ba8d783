#include <gtest/gtest.h>

#include "distributed/store.hpp"
#include "runner/errors.hpp"

namespace runner::distributed {
namespace {

using std::chrono::milliseconds;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const RunError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Store, ServerOnPortZeroTakesAFreePortThatClientsReach) {
  int port = 0;
  auto server = serve_store({"127.0.0.1", 0}, milliseconds(5000), port);
  ASSERT_GT(port, 0);
  auto client = connect_store({"127.0.0.1", port}, milliseconds(5000));
  client->set("k", std::vector<uint8_t>{1, 2});
  EXPECT_EQ(server->get("k"), (std::vector<uint8_t>{1, 2}));
}

TEST(Store, APortInUseIsNamed) {
  int port = 0;
  auto first = serve_store({"127.0.0.1", 0}, milliseconds(5000), port);
  int again = 0;
  const std::string message = message_of([&] { serve_store({"127.0.0.1", port}, milliseconds(2000), again); });
  EXPECT_NE(message.find("port " + std::to_string(port) + " is in use"), std::string::npos)
      << message;
}

TEST(Store, NoServerFailsWithinTheTimeoutNamingTheAddress) {
  int port = 0;
  { auto gone = serve_store({"127.0.0.1", 0}, milliseconds(5000), port); }
  const auto start = std::chrono::steady_clock::now();
  const std::string message =
      message_of([&] { connect_store({"127.0.0.1", port}, milliseconds(1500)); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_NE(message.find("cannot reach the rendezvous store at 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << message;
}

TEST(Store, RunScopesKeepTheirKeysApart) {
  int port = 0;
  auto store = serve_store({"127.0.0.1", 0}, milliseconds(5000), port);
  auto one = run_scope(store, "run0");
  auto two = run_scope(store, "run1");
  one->set("joined/0", std::vector<uint8_t>{1});
  EXPECT_TRUE(one->check({"joined/0"}));
  EXPECT_FALSE(two->check({"joined/0"}));
}

}  // namespace
}  // namespace runner::distributed
