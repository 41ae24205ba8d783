// Tests of the store: free ports, loopback or not, a port in use, timeouts, run scopes apart.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "distributed/bind_address.hpp"
#include "distributed/store.hpp"
#include "proc_net_tcp.hpp"
#include "runner/errors.hpp"

using ::testing::HasSubstr;

namespace runner::distributed {
namespace {

using testing::listening_addresses;

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
  auto server = serve_store({"127.0.0.1", 0}, milliseconds(5000), port, true);
  ASSERT_GT(port, 0);
  auto client = connect_store({"127.0.0.1", port}, milliseconds(5000));
  client->set("k", std::vector<uint8_t>{1, 2});
  EXPECT_EQ(server->get("k"), (std::vector<uint8_t>{1, 2}));
}

// 127.0.0.1 itself, or as an IPv4-mapped IPv6 address (::ffff:127.0.0.1).
TEST(Store, ALocalStoreListensOnLoopbackOnly) {
  int port = 0;
  auto server = serve_store({"127.0.0.1", 0}, milliseconds(5000), port, true);
  const std::vector<std::string> addresses = listening_addresses(port);
  ASSERT_EQ(addresses.size(), 1u);
  EXPECT_TRUE(addresses[0] == "0100007F" || addresses[0] == "0000000000000000FFFF00000100007F")
      << addresses[0];
  auto client = connect_store({"127.0.0.1", port}, milliseconds(5000));
  client->set("k", std::vector<uint8_t>{7});
  EXPECT_EQ(server->get("k"), std::vector<uint8_t>{7});
}

TEST(Store, AStoreForOtherMachinesIsNeverOnLoopback) {
  int port = 0;
  const std::string message = message_of([&] {
    serve_store({"127.0.0.1", 0}, milliseconds(5000), port, false);
  });
  EXPECT_THAT(message, HasSubstr("no address of this machine that the other machines can reach"))
      << message;
  EXPECT_THAT(message_of([&] {
                serve_store({"no-such-host.invalid", 0}, milliseconds(5000), port, false);
              }),
              HasSubstr("does not resolve"));
}

TEST(Store, AddressesOfThisMachineAreKnown) {
  for (const char* here : {"localhost", "127.0.0.1", "127.0.0.3"})
    EXPECT_TRUE(is_address_of_this_machine(here)) << here;
  // 192.0.2.0/24 is for documentation only (RFC 5737): no machine has it.
  for (const char* elsewhere : {"192.0.2.1", "no-such-host.invalid", ""})
    EXPECT_FALSE(is_address_of_this_machine(elsewhere)) << elsewhere;
}

TEST(Store, APortInUseIsNamed) {
  int port = 0;
  auto first = serve_store({"127.0.0.1", 0}, milliseconds(5000), port, true);
  int again = 0;
  const std::string message = message_of([&] {
    serve_store({"127.0.0.1", port}, milliseconds(2000), again, true);
  });
  EXPECT_THAT(message, HasSubstr("port " + std::to_string(port) + " is in use")) << message;
}

TEST(Store, NoServerFailsWithinTheTimeoutNamingTheAddress) {
  int port = 0;
  { auto gone = serve_store({"127.0.0.1", 0}, milliseconds(5000), port, true); }
  const auto start = std::chrono::steady_clock::now();
  const std::string message = message_of([&] {
    connect_store({"127.0.0.1", port}, milliseconds(1500));
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_THAT(message,
              HasSubstr("cannot reach the rendezvous store at 127.0.0.1:" + std::to_string(port)))
      << message;
}

TEST(Store, RunScopesKeepTheirKeysApart) {
  int port = 0;
  auto store = serve_store({"127.0.0.1", 0}, milliseconds(5000), port, true);
  auto one = run_scope(store, "run0");
  auto two = run_scope(store, "run1");
  one->set("joined/0", std::vector<uint8_t>{1});
  EXPECT_TRUE(one->check({"joined/0"}));
  EXPECT_FALSE(two->check({"joined/0"}));
}

}  // namespace
}  // namespace runner::distributed
