// Which rank a process is, from runner's, torchrun's and Slurm's variables, and the one-line
// errors that name a malformed variable.
#include "ranks/rank_environment.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

using Variables = std::map<std::string, std::string>;

RankEnvironment read(const Variables& variables) {
  return read_rank_environment([&variables](const char* name) -> const char* {
    auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  });
}

std::string error_of(const Variables& variables) {
  try {
    read(variables);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

Variables torchrun() {
  return {{"RANK", "3"},
          {"WORLD_SIZE", "8"},
          {"LOCAL_RANK", "1"},
          {"LOCAL_WORLD_SIZE", "2"},
          {"MASTER_ADDR", "node7"},
          {"MASTER_PORT", "29400"}};
}

Variables slurm() {
  return {{"SLURM_PROCID", "5"},
          {"SLURM_NTASKS", "8"},
          {"SLURM_LOCALID", "1"},
          {"SLURM_NODEID", "1"},
          {"SLURM_TASKS_PER_NODE", "4(x2)"},
          {"SLURM_JOB_NODELIST", "node[01-03,07],gpu5"},
          {"SLURM_JOB_ID", "123456"}};
}

Variables with(Variables variables, const Variables& changes) {
  for (const auto& [name, value] : changes) variables[name] = value;
  return variables;
}

Variables without(Variables variables, const std::string& name) {
  variables.erase(name);
  return variables;
}

TEST(RankEnvironment, NoLauncherIsAOneRankWorld) {
  RankEnvironment ranks = read({{"HOME", "/root"}});
  EXPECT_EQ(ranks.launcher, Launcher::none);
  EXPECT_EQ(ranks.rank, 0);
  EXPECT_EQ(ranks.world_size, 1);
  EXPECT_EQ(ranks.local_rank, 0);
  EXPECT_EQ(ranks.local_world_size, 1);
  EXPECT_EQ(ranks.master_port, 0);
  EXPECT_EQ(ranks.run_index, -1);
  EXPECT_STREQ(launcher_name(ranks.launcher), "none");
}

TEST(RankEnvironment, ReadsTorchrunVariables) {
  RankEnvironment ranks = read(torchrun());
  EXPECT_EQ(ranks.launcher, Launcher::torchrun);
  EXPECT_STREQ(launcher_name(ranks.launcher), "torchrun");
  EXPECT_EQ(ranks.rank, 3);
  EXPECT_EQ(ranks.world_size, 8);
  EXPECT_EQ(ranks.local_rank, 1);
  EXPECT_EQ(ranks.local_world_size, 2);
  EXPECT_EQ(ranks.master_addr, "node7");
  EXPECT_EQ(ranks.master_port, 29400);
  EXPECT_EQ(ranks.run_index, -1);
  EXPECT_EQ(ranks.agent_store_prefix, "");
}

// torchrun's static rendezvous: its agent serves the store, and PyTorch's workers join it with
// their keys under /worker/attempt_<restart count>.
TEST(RankEnvironment, TorchrunsAgentStoreIsJoinedUnderItsAttempt) {
  EXPECT_EQ(read(with(torchrun(), {{"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                   {"TORCHELASTIC_RESTART_COUNT", "2"}}))
                .agent_store_prefix,
            "/worker/attempt_2");
  EXPECT_EQ(read(with(torchrun(), {{"TORCHELASTIC_USE_AGENT_STORE", "True"}})).agent_store_prefix,
            "/worker/attempt_0");
  EXPECT_EQ(read(with(torchrun(), {{"TORCHELASTIC_USE_AGENT_STORE", "False"},
                                   {"TORCHELASTIC_RESTART_COUNT", "2"}}))
                .agent_store_prefix,
            "");
  EXPECT_EQ(error_of(with(torchrun(), {{"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                       {"TORCHELASTIC_RESTART_COUNT", "x"}})),
            "TORCHELASTIC_RESTART_COUNT = \"x\" is not an integer (set by torchrun)");
}

TEST(RankEnvironment, TorchrunLocalDefaultsFollowTheMasterAddress) {
  Variables bare = without(without(torchrun(), "LOCAL_RANK"), "LOCAL_WORLD_SIZE");
  EXPECT_EQ(read(bare).local_rank, 0);
  EXPECT_EQ(read(bare).local_world_size, 1);  // a remote master: other hosts may hold ranks
  for (const char* loopback : {"localhost", "127.0.0.1", "127.1.2.3", "::1"})
    EXPECT_EQ(read(with(bare, {{"MASTER_ADDR", loopback}})).local_world_size, 8) << loopback;
}

TEST(RankEnvironment, AnEmptyVariableCountsAsUnset) {
  EXPECT_EQ(read(with(torchrun(), {{"LOCAL_RANK", ""}})).local_rank, 0);
  EXPECT_EQ(read({{"RANK", ""}, {"WORLD_SIZE", ""}}).launcher, Launcher::none);
  EXPECT_EQ(error_of(with(torchrun(), {{"MASTER_PORT", ""}})),
            "MASTER_PORT is not set (required since RANK and WORLD_SIZE are set)");
}

TEST(RankEnvironment, TorchrunNeedsItsMasterAndBothCounts) {
  EXPECT_EQ(error_of(without(torchrun(), "MASTER_ADDR")),
            "MASTER_ADDR is not set (required since RANK and WORLD_SIZE are set)");
  EXPECT_EQ(error_of(without(torchrun(), "MASTER_PORT")),
            "MASTER_PORT is not set (required since RANK and WORLD_SIZE are set)");
  EXPECT_EQ(error_of(without(torchrun(), "WORLD_SIZE")),
            "RANK is set but WORLD_SIZE is not (torchrun sets both)");
  EXPECT_EQ(error_of(without(torchrun(), "RANK")),
            "WORLD_SIZE is set but RANK is not (torchrun sets both)");
}

TEST(RankEnvironment, MalformedTorchrunValuesNameTheVariable) {
  const std::map<std::string, Variables> cases = {
      {"RANK = \"x\" is not an integer (set by torchrun)", {{"RANK", "x"}}},
      {"RANK = \"3 \" is not an integer (set by torchrun)", {{"RANK", "3 "}}},
      {"WORLD_SIZE = \"99999999999\" is not an integer (set by torchrun)",
       {{"WORLD_SIZE", "99999999999"}}},
      {"LOCAL_RANK = \"1.5\" is not an integer (set by torchrun)", {{"LOCAL_RANK", "1.5"}}},
      {"LOCAL_WORLD_SIZE = \"two\" is not an integer (set by torchrun)",
       {{"LOCAL_WORLD_SIZE", "two"}}},
      {"MASTER_PORT = \"29500x\" is not an integer (set by torchrun)", {{"MASTER_PORT", "29500x"}}},
      {"WORLD_SIZE = 0 is below 1 (set by torchrun)", {{"WORLD_SIZE", "0"}}},
      {"LOCAL_WORLD_SIZE = 0 is below 1 (set by torchrun)", {{"LOCAL_WORLD_SIZE", "0"}}},
      {"RANK = 8 is not below WORLD_SIZE = 8 (set by torchrun)", {{"RANK", "8"}}},
      {"RANK = -1 is negative (set by torchrun)", {{"RANK", "-1"}}},
      {"LOCAL_RANK = 2 is not below LOCAL_WORLD_SIZE = 2 (set by torchrun)", {{"LOCAL_RANK", "2"}}},
      {"MASTER_PORT = 0 is outside 1..65535 (set by torchrun)", {{"MASTER_PORT", "0"}}},
      {"MASTER_PORT = 65536 is outside 1..65535 (set by torchrun)", {{"MASTER_PORT", "65536"}}},
  };
  for (const auto& [message, changes] : cases)
    EXPECT_EQ(error_of(with(torchrun(), changes)), message);
}

TEST(RankEnvironment, TheDefaultLocalWorldIsNamedWhenALocalRankExceedsIt) {
  Variables remote = without(torchrun(), "LOCAL_WORLD_SIZE");
  EXPECT_EQ(error_of(remote),
            "LOCAL_RANK = 1 is not below the default LOCAL_WORLD_SIZE = 1 (set by torchrun)");
}

TEST(RankEnvironment, ReadsRunnersOwnLaunch) {
  RankEnvironment ranks =
      read(with(torchrun(), {{"RUNNER_RUN_INDEX", "4"}, {"RUNNER_RESULTS_GROUP", "runs/ab12"}}));
  EXPECT_EQ(ranks.launcher, Launcher::runner);
  EXPECT_STREQ(launcher_name(ranks.launcher), "runner");
  EXPECT_EQ(ranks.run_index, 4);
  EXPECT_EQ(ranks.results_group, "runs/ab12");
  EXPECT_EQ(ranks.rank, 3);
  EXPECT_EQ(ranks.world_size, 8);
  EXPECT_EQ(ranks.master_port, 29400);
  EXPECT_EQ(read(with(torchrun(), {{"RUNNER_RUN_INDEX", "0"}})).results_group, "");
}

TEST(RankEnvironment, MalformedRunnerValuesNameTheVariable) {
  Variables runner = with(torchrun(), {{"RUNNER_RUN_INDEX", "0"}});
  EXPECT_EQ(error_of(with(runner, {{"RUNNER_RUN_INDEX", "first"}})),
            "RUNNER_RUN_INDEX = \"first\" is not an integer (set by runner)");
  EXPECT_EQ(error_of(with(runner, {{"RUNNER_RUN_INDEX", "-2"}})),
            "RUNNER_RUN_INDEX = -2 is negative (set by runner)");
  EXPECT_EQ(error_of({{"RUNNER_RUN_INDEX", "first"}}),  // named before the missing RANK
            "RUNNER_RUN_INDEX = \"first\" is not an integer (set by runner)");
  EXPECT_EQ(error_of(with(runner, {{"RANK", "9"}})),
            "RANK = 9 is not below WORLD_SIZE = 8 (set by runner)");
  EXPECT_EQ(error_of(without(runner, "MASTER_PORT")),
            "MASTER_PORT is not set (required since RUNNER_RUN_INDEX is set)");
}

// A restarted rank learns it from its launcher's count: what [fault] attempt and the
// restart's resume read.
TEST(RankEnvironment, EachLaunchersRestartCountIsTheAttempt) {
  EXPECT_EQ(read(torchrun()).attempt, 0);
  EXPECT_EQ(read(with(torchrun(), {{"TORCHELASTIC_RESTART_COUNT", "2"}})).attempt, 2);
  EXPECT_EQ(read(with(slurm(), {{"SLURM_RESTART_COUNT", "1"}})).attempt, 1);
  EXPECT_EQ(read(with(torchrun(), {{"RUNNER_RUN_INDEX", "0"}, {"RUNNER_ATTEMPT", "3"}})).attempt,
            3);
  EXPECT_EQ(error_of(with(torchrun(), {{"TORCHELASTIC_RESTART_COUNT", "-1"}})),
            "TORCHELASTIC_RESTART_COUNT = -1 is negative (set by torchrun)");
  EXPECT_EQ(error_of(with(slurm(), {{"SLURM_RESTART_COUNT", "x"}})),
            "SLURM_RESTART_COUNT = \"x\" is not an integer (set by slurm)");
  EXPECT_EQ(error_of(with(torchrun(), {{"RUNNER_RUN_INDEX", "0"}, {"RUNNER_ATTEMPT", "-4"}})),
            "RUNNER_ATTEMPT = -4 is negative (set by runner)");
}

TEST(RankEnvironment, RunnerComesBeforeTorchrunBeforeSlurm) {
  Variables all = with(with(slurm(), torchrun()), {{"RUNNER_RUN_INDEX", "2"}});
  EXPECT_EQ(read(all).launcher, Launcher::runner);
  RankEnvironment torchrun_ranks = read(without(all, "RUNNER_RUN_INDEX"));
  EXPECT_EQ(torchrun_ranks.launcher, Launcher::torchrun);
  EXPECT_EQ(torchrun_ranks.rank, 3);  // torchrun's RANK, not SLURM_PROCID
  EXPECT_EQ(read(slurm()).launcher, Launcher::slurm);
}

TEST(RankEnvironment, EachLauncherReadsTheNodesAddress) {
  const Variables node = {{"RUNNER_NODE_ADDR", "127.0.0.3"}};
  for (const Variables& launch :
       {with(torchrun(), {{"RUNNER_RUN_INDEX", "0"}}), torchrun(), slurm()}) {
    EXPECT_EQ(read(with(launch, node)).node_addr, "127.0.0.3");
    EXPECT_EQ(read(launch).node_addr, "");
    EXPECT_EQ(read(with(launch, {{"RUNNER_NODE_ADDR", ""}})).node_addr, "");
  }
  EXPECT_EQ(read(node).launcher, Launcher::none);  // one rank: nothing binds it
  EXPECT_EQ(read(node).node_addr, "");
}

TEST(RankEnvironment, LoopbackHostsAreKnownByTheirText) {
  for (const char* loopback : {"localhost", "127.0.0.1", "127.0.0.3", "::1", "[::1]"})
    EXPECT_TRUE(is_loopback_host(loopback)) << loopback;
  for (const char* other : {"node7", "10.0.0.1", "128.0.0.1", "", "::2"})
    EXPECT_FALSE(is_loopback_host(other)) << other;
}

TEST(RankEnvironment, ReadsSlurmVariables) {
  RankEnvironment ranks = read(slurm());
  EXPECT_EQ(ranks.launcher, Launcher::slurm);
  EXPECT_STREQ(launcher_name(ranks.launcher), "slurm");
  EXPECT_EQ(ranks.rank, 5);
  EXPECT_EQ(ranks.world_size, 8);
  EXPECT_EQ(ranks.local_rank, 1);
  EXPECT_EQ(ranks.local_world_size, 4);
  EXPECT_EQ(ranks.master_addr, "node01");
  EXPECT_EQ(ranks.master_port, 29500 + 123456 % 1000);
}

TEST(RankEnvironment, SlurmLocalWorldIsThisNodesEntry) {
  Variables uneven = with(slurm(), {{"SLURM_NTASKS", "7"},
                                    {"SLURM_TASKS_PER_NODE", "3(x2),1"},
                                    {"SLURM_NODEID", "2"},
                                    {"SLURM_PROCID", "6"},
                                    {"SLURM_LOCALID", "0"}});
  EXPECT_EQ(read(uneven).local_world_size, 1);
  EXPECT_EQ(read(with(uneven, {{"SLURM_NODEID", "1"}})).local_world_size, 3);
  EXPECT_EQ(
      read(with(slurm(), {{"SLURM_NTASKS_PER_NODE", "2"}, {"SLURM_NODEID", "0"}})).local_world_size,
      2);  // --ntasks-per-node wins over the allocation's list
  Variables no_list = with(without(slurm(), "SLURM_TASKS_PER_NODE"), {{"SLURM_LOCALID", "0"}});
  EXPECT_EQ(read(no_list).local_world_size, 1);
  EXPECT_EQ(read(without(slurm(), "SLURM_NODEID")).local_world_size, 4);
}

TEST(RankEnvironment, SlurmMasterComesFromTheNodeListOrTheUser) {
  EXPECT_EQ(read(with(without(slurm(), "SLURM_JOB_NODELIST"), {{"SLURM_NODELIST", "gpu-[3-5]"}}))
                .master_addr,
            "gpu-3");
  RankEnvironment chosen = read(with(slurm(), {{"MASTER_ADDR", "head"}, {"MASTER_PORT", "12345"}}));
  EXPECT_EQ(chosen.master_addr, "head");
  EXPECT_EQ(chosen.master_port, 12345);
  EXPECT_EQ(read(without(slurm(), "SLURM_JOB_ID")).master_port, 29500);
  EXPECT_EQ(read(with(slurm(), {{"SLURM_JOB_ID", "4294967295"}})).master_port, 29500 + 295);
  EXPECT_EQ(read(with(slurm(), {{"SLURM_JOB_ID", "7"}})).master_port, 29507);
}

TEST(RankEnvironment, AOneTaskSlurmStepIsNoLauncher) {
  RankEnvironment ranks = read(with(slurm(), {{"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}}));
  EXPECT_EQ(ranks.launcher, Launcher::none);
  EXPECT_EQ(ranks.world_size, 1);
  EXPECT_EQ(read(without(slurm(), "SLURM_NTASKS")).launcher, Launcher::none);
}

TEST(RankEnvironment, MalformedSlurmValuesNameTheVariable) {
  const std::map<std::string, Variables> cases = {
      {"SLURM_PROCID = \"x\" is not an integer (set by slurm)", {{"SLURM_PROCID", "x"}}},
      {"SLURM_NTASKS = \"eight\" is not an integer (set by slurm)", {{"SLURM_NTASKS", "eight"}}},
      {"SLURM_NTASKS = 0 is below 1 (set by slurm)", {{"SLURM_NTASKS", "0"}}},
      {"SLURM_PROCID = 8 is not below SLURM_NTASKS = 8 (set by slurm)", {{"SLURM_PROCID", "8"}}},
      {"SLURM_LOCALID = 4 is not below this node's SLURM_TASKS_PER_NODE = 4 (set by slurm)",
       {{"SLURM_LOCALID", "4"}}},
      {"SLURM_TASKS_PER_NODE = \"4(x2\" is not a tasks-per-node list like \"2(x3),1\" "
       "(set by slurm)",
       {{"SLURM_TASKS_PER_NODE", "4(x2"}}},
      {"SLURM_TASKS_PER_NODE = \"4(x2)\" has no entry for SLURM_NODEID = 2 (set by slurm)",
       {{"SLURM_NODEID", "2"}}},
      {"SLURM_NODEID = -1 is negative (set by slurm)", {{"SLURM_NODEID", "-1"}}},
      {"SLURM_JOB_NODELIST = \"node[01-03\" has an unclosed \"[\" (set by slurm)",
       {{"SLURM_JOB_NODELIST", "node[01-03"}}},
      {"SLURM_JOB_ID = \"12a\" is not an integer (set by slurm)", {{"SLURM_JOB_ID", "12a"}}},
      {"MASTER_PORT = 99999 is outside 1..65535 (read under slurm)", {{"MASTER_PORT", "99999"}}},
      {"MASTER_PORT = \"p\" is not an integer (read under slurm)", {{"MASTER_PORT", "p"}}},
  };
  for (const auto& [message, changes] : cases) EXPECT_EQ(error_of(with(slurm(), changes)), message);
}

TEST(RankEnvironment, SlurmWithoutANodeListNeedsMasterAddr) {
  EXPECT_EQ(error_of(without(slurm(), "SLURM_JOB_NODELIST")),
            "SLURM_JOB_NODELIST is not set (required for the master address when "
            "SLURM_NTASKS > 1 and MASTER_ADDR is unset)");
  Variables chosen = with(without(slurm(), "SLURM_JOB_NODELIST"), {{"MASTER_ADDR", "head"}});
  EXPECT_EQ(read(chosen).master_addr, "head");
}

}  // namespace
}  // namespace runner::ranks
