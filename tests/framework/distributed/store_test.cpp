// Tests of the store: free ports, loopback or not, a port in use, timeouts, run scopes apart.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "distributed/store.hpp"
#include "runner/errors.hpp"

using ::testing::HasSubstr;

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
  auto server = serve_store({"127.0.0.1", 0}, milliseconds(5000), port, true);
  ASSERT_GT(port, 0);
  auto client = connect_store({"127.0.0.1", port}, milliseconds(5000));
  client->set("k", std::vector<uint8_t>{1, 2});
  EXPECT_EQ(server->get("k"), (std::vector<uint8_t>{1, 2}));
}

// The local addresses ("0100007F" is 127.0.0.1) of the sockets listening on `port`, from
// the kernel's table of IPv4 and IPv6 TCP sockets.
std::vector<std::string> listening_addresses(int port) {
  char hex_port[8];
  std::snprintf(hex_port, sizeof hex_port, "%04X", port);
  std::vector<std::string> addresses;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the column names
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const size_t colon = local.find(':');
      if (state == "0A" && local.substr(colon + 1) == hex_port)
        addresses.push_back(local.substr(0, colon));
    }
  }
  return addresses;
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
