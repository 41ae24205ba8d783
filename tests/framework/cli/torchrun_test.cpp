// The real torchrun (Debian's python3-torch: `python3 -m torch.distributed.run`, LibTorch 1.13's
// flags with underscores, which torchrun 2.x also takes) launching runner ranks: static
// rendezvous, whose agent serves the store on MASTER_PORT itself; c10d rendezvous, where rank 0
// serves it: each must follow the same run launched by runner itself (--nproc 2) step for
// step. And two nodes on one machine (two launchers, node ranks 0 and 1, on 127.0.0.2 and
// 127.0.0.3), which must follow 4 ranks of one node.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

namespace runner::testing {
namespace {

// Why torchrun cannot run here; empty when it can. Debian 13's PyTorch 2.6 is built without
// libuv, yet torchrun's rendezvous makes its stores with libuv's loop, and USE_LIBUV=0 reaches
// only some of them: its torchrun stops at start with "use_libuv was requested".
std::string torchrun_missing() {
  if (std::system(RUNNER_PYTHON " -c 'import torch.distributed.run' >/dev/null 2>&1") != 0)
    return "no torchrun: " RUNNER_PYTHON " lacks torch";
  if (std::system(RUNNER_PYTHON " -c 'import torch.distributed as d; "
                                "d.TCPStore(\"127.0.0.1\", 0, 1, True, wait_for_workers=False)' "
                                "2>&1 | grep -q 'use_libuv was requested'") == 0)
    return "torchrun cannot start: " RUNNER_PYTHON "'s PyTorch asks for libuv, which it lacks";
  return "";
}

// --redirects 2 --tee 2: the ranks' output as without them (stderr also kept in torchrun's log
// folder). Debian 12's torchrun (PyTorch 1.13 on Python 3.11) fails at start without them: it
// reads their default "0" as no setting at all.
std::string torchrun(const std::string& flags) {
  return "timeout 120 " RUNNER_PYTHON " -m torch.distributed.run " + flags +
         " --redirects 2 --tee 2 --no_python " RUNNER_BINARY_DIR "/bin/runner";
}

std::string experiment(const std::string& dir) {
  std::string text = blobs_experiment(dir + "/r.h5",
                                      "threads = 1\n[optimizer]\nname = \"sgd\"\n"
                                      "lr = 0.5\n[strategy]\nname = \"ddp\"\n"
                                      "timeout_s = 60\n");
  text.replace(text.find("epochs = 1"), 10, "epochs = 2");
  write_file(dir + "/exp.toml", text);
  return "--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml";
}

// Runs each command in the background and waits for all; their exit codes, in order.
std::vector<int> run_together(const std::vector<std::string>& commands, const std::string& dir) {
  std::string script;
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string n = std::to_string(i);
    script += "(" + commands[i] + " >" + dir + "/out" + n + " 2>&1; echo $? >" + dir + "/rc" + n +
              ") &\n";
  }
  write_file(dir + "/launch.sh", script + "wait\n");
  std::system(("sh " + dir + "/launch.sh").c_str());
  std::vector<int> codes;
  for (size_t i = 0; i < commands.size(); ++i)
    codes.push_back(std::atoi(read_file(dir + "/rc" + std::to_string(i)).c_str()));
  return codes;
}

std::vector<double> step_losses(const std::string& path) {
  const auto runs = results::read_runs(path);
  EXPECT_EQ(runs.size(), 1u);
  std::vector<double> losses;
  if (runs.empty()) return losses;
  EXPECT_EQ(runs[0].status, results::Status::completed) << runs[0].error;
  for (const auto& step : runs[0].steps) losses.push_back(step.loss);
  return losses;
}

// The same experiment launched by runner on 2 local ranks, in a folder of the test's own:
// CTest runs each test as a process of its own, side by side.
std::vector<double> local_launch_losses() {
  static const std::vector<double> losses = [] {
    const std::string dir =
        scratch_dir(std::string("torchrun_reference_") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    const Output out = run_runner(experiment(dir) + " --nproc 2");
    EXPECT_EQ(out.exit_code, 0) << out.err;
    return step_losses(dir + "/r.h5");
  }();
  return losses;
}

void expect_follows_local_launch(const std::string& dir, const std::vector<int>& codes) {
  for (size_t i = 0; i < codes.size(); ++i)
    EXPECT_EQ(codes[i], 0) << read_file(dir + "/out" + std::to_string(i));
  const std::vector<double> losses = step_losses(dir + "/r.h5");
  ASSERT_FALSE(losses.empty());
  EXPECT_EQ(losses, local_launch_losses());
}

TEST(Torchrun, StaticRendezvousRanksJoinTheAgentsStore) {
  if (const std::string why = torchrun_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = scratch_dir("torchrun_static");
  const std::string port = std::to_string(free_port());
  const auto codes = run_together({torchrun("--nnodes 1 --nproc_per_node 2 --master_addr "
                                            "127.0.0.1 --master_port " +
                                            port) +
                                   " " + experiment(dir)},
                                  dir);
  expect_follows_local_launch(dir, codes);
}

TEST(Torchrun, C10dRendezvousRanksServeTheirOwnStore) {
  if (const std::string why = torchrun_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = scratch_dir("torchrun_c10d");
  const std::string endpoint = "127.0.0.1:" + std::to_string(free_port());
  const auto codes = run_together(
      {torchrun("--nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_id runner_test "
                "--rdzv_endpoint " +
                endpoint) +
       " " + experiment(dir)},
      dir);
  expect_follows_local_launch(dir, codes);
}

// Two nodes of two ranks each on one machine, each node on a loopback address of its own
// (RUNNER_NODE_ADDR, which their ranks' Gloo binds), the rendezvous on the first: the same
// losses as 4 ranks of one node.
TEST(Torchrun, TwoNodesOnTheirOwnLoopbackAddressesTrainAsFourLocalRanks) {
  if (const std::string why = torchrun_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = scratch_dir("torchrun_two_nodes");
  const std::string port = std::to_string(free_port());
  std::vector<std::string> nodes;
  for (const char* node : {"0", "1"})
    nodes.push_back(std::string("RUNNER_NODE_ADDR=127.0.0.") + (node[0] == '0' ? "2 " : "3 ") +
                    torchrun(std::string("--nnodes 2 --nproc_per_node 2 --node_rank ") + node +
                             " --master_addr 127.0.0.2 --master_port " + port) +
                    " " + experiment(dir));
  const std::vector<int> codes = run_together(nodes, dir);
  for (size_t i = 0; i < codes.size(); ++i)
    EXPECT_EQ(codes[i], 0) << read_file(dir + "/out" + std::to_string(i));
  const std::vector<double> two_nodes = step_losses(dir + "/r.h5");
  ASSERT_FALSE(two_nodes.empty());

  const std::string one_node = scratch_dir("torchrun_four_local_ranks");
  const std::vector<int> one_node_codes = run_together(
      {torchrun("--nnodes 1 --nproc_per_node 4 --master_addr 127.0.0.1 --master_port " +
                std::to_string(free_port())) +
       " " + experiment(one_node)},
      one_node);
  ASSERT_EQ(one_node_codes[0], 0) << read_file(one_node + "/out0");
  EXPECT_EQ(two_nodes, step_losses(one_node + "/r.h5"));
}

}  // namespace
}  // namespace runner::testing
