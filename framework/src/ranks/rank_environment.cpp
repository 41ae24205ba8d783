// This process's rank read from runner's, torchrun's or Slurm's variables.
#include "ranks/rank_environment.hpp"

#include <algorithm>

#include "ranks/environment_reader.hpp"
#include "ranks/slurm_lists.hpp"
#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

// torchrun's own default port; a Slurm job adds SLURM_JOB_ID % 1000, so that two jobs sharing
// a node rarely collide on it.
constexpr int default_master_port = 29500;

// Names of the variables a world was read from, for error messages.
struct WorldNames {
  std::string rank, world, local_rank, local_world;
};

void check_at_least_one(const EnvironmentReader& env, const std::string& name, int value) {
  if (value < 1) env.fail(name, std::to_string(value), "is below 1");
}

void check_index(const EnvironmentReader& env, const std::string& name, int value,
                 const std::string& bound_name, int bound) {
  if (value < 0) env.fail(name, std::to_string(value), "is negative");
  if (value >= bound)
    env.fail(name, std::to_string(value),
             "is not below " + bound_name + " = " + std::to_string(bound));
}

void check_world(const EnvironmentReader& env, const WorldNames& names,
                 const RankEnvironment& ranks) {
  check_at_least_one(env, names.world, ranks.world_size);
  check_at_least_one(env, names.local_world, ranks.local_world_size);
  check_index(env, names.rank, ranks.rank, names.world, ranks.world_size);
  check_index(env, names.local_rank, ranks.local_rank, names.local_world, ranks.local_world_size);
}

void check_port(const EnvironmentReader& env, const std::string& name, int port) {
  if (port < 1 || port > 65535) env.fail(name, std::to_string(port), "is outside 1..65535");
}

bool is_set(const EnvironmentLookup& get, const char* name) {
  const char* value = get(name);
  return value != nullptr && *value != '\0';
}

// torchrun's variables; runner's own launch sets the same ones.
RankEnvironment read_torchrun_variables(const EnvironmentReader& env, Launcher launcher,
                                        const std::string& why_required) {
  RankEnvironment ranks;
  ranks.launcher = launcher;
  ranks.rank = env.required_integer("RANK", why_required);
  ranks.world_size = env.required_integer("WORLD_SIZE", why_required);
  ranks.local_rank = env.integer("LOCAL_RANK").value_or(0);
  ranks.master_addr = env.required_text("MASTER_ADDR", why_required);
  ranks.master_port = env.required_integer("MASTER_PORT", why_required);
  check_port(env, "MASTER_PORT", ranks.master_port);
  std::optional<int> local_world = env.integer("LOCAL_WORLD_SIZE");
  // Without LOCAL_WORLD_SIZE, a loopback master means every rank is on this host.
  ranks.local_world_size =
      local_world.value_or(is_loopback_host(ranks.master_addr) ? ranks.world_size : 1);
  check_world(env,
              {"RANK", "WORLD_SIZE", "LOCAL_RANK",
               local_world ? "LOCAL_WORLD_SIZE" : "the default LOCAL_WORLD_SIZE"},
              ranks);
  return ranks;
}

// How many times the launcher started this run's ranks before (0 when unset).
int restart_count(const EnvironmentReader& env, const char* name) {
  const int restarts = env.integer(name).value_or(0);
  if (restarts < 0) env.fail(name, std::to_string(restarts), "is negative");
  return restarts;
}

RankEnvironment read_runner(const EnvironmentLookup& get) {
  EnvironmentReader env(get, "set by runner");
  int run_index = *env.integer("RUNNER_RUN_INDEX");
  if (run_index < 0) env.fail("RUNNER_RUN_INDEX", std::to_string(run_index), "is negative");
  RankEnvironment ranks = read_torchrun_variables(env, Launcher::runner, "RUNNER_RUN_INDEX is set");
  ranks.run_index = run_index;
  ranks.results_group = env.text("RUNNER_RESULTS_GROUP").value_or("");
  ranks.resume_from = env.text("RUNNER_RESUME_FROM").value_or("");
  ranks.attempt = restart_count(env, "RUNNER_ATTEMPT");
  return ranks;
}

RankEnvironment read_torchrun(const EnvironmentLookup& get) {
  for (auto [set, unset] : {std::pair{"RANK", "WORLD_SIZE"}, std::pair{"WORLD_SIZE", "RANK"}})
    if (!is_set(get, unset))
      throw ConfigError(std::string(set) + " is set but " + unset + " is not (torchrun sets both)",
                        std::string("unset ") + set + ", or launch with torchrun");
  EnvironmentReader env(get, "set by torchrun");
  RankEnvironment ranks =
      read_torchrun_variables(env, Launcher::torchrun, "RANK and WORLD_SIZE are set");
  ranks.attempt = restart_count(env, "TORCHELASTIC_RESTART_COUNT");
  if (env.text("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True") {
    ranks.agent_store_prefix = "/worker/attempt_" + std::to_string(ranks.attempt);
  }
  return ranks;
}

// A local world size and the variable it came from, for error messages.
struct LocalWorld {
  int size = 1;
  std::string source = "the default local world size";
};

// This node's entry of the tasks-per-node list Slurm gives, or 1 without one.
LocalWorld slurm_local_world(const EnvironmentReader& slurm) {
  int node = slurm.integer("SLURM_NODEID").value_or(0);
  if (node < 0) slurm.fail("SLURM_NODEID", std::to_string(node), "is negative");
  for (const char* name : {"SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}) {
    std::optional<std::string> list = slurm.text(name);
    if (!list) continue;
    std::optional<std::vector<TaskGroup>> groups = parse_tasks_per_node(*list);
    if (!groups) slurm.fail(name, quoted(*list), "is not a tasks-per-node list like \"2(x3),1\"");
    std::optional<int> tasks = tasks_on_node(*groups, node);
    if (!tasks)
      slurm.fail(name, quoted(*list), "has no entry for SLURM_NODEID = " + std::to_string(node));
    return {*tasks, std::string("this node's ") + name};
  }
  return {};
}

std::string slurm_master_addr(const EnvironmentReader& slurm, const EnvironmentReader& user) {
  if (std::optional<std::string> addr = user.text("MASTER_ADDR")) return *addr;
  for (const char* name : {"SLURM_JOB_NODELIST", "SLURM_NODELIST"}) {
    std::optional<std::string> nodelist = slurm.text(name);
    if (!nodelist) continue;
    std::string problem = nodelist_problem(*nodelist);
    if (!problem.empty()) slurm.fail(name, quoted(*nodelist), problem);
    return first_slurm_host(*nodelist);
  }
  throw ConfigError(
      "SLURM_JOB_NODELIST is not set (required for the master address when "
      "SLURM_NTASKS > 1 and MASTER_ADDR is unset)",
      "set MASTER_ADDR to the host of rank 0");
}

int slurm_master_port(const EnvironmentReader& slurm, const EnvironmentReader& user) {
  if (std::optional<int> port = user.integer("MASTER_PORT")) {
    check_port(user, "MASTER_PORT", *port);
    return *port;
  }
  std::optional<std::string> job = slurm.text("SLURM_JOB_ID");
  if (!job) return default_master_port;
  // Job ids may pass INT_MAX; their last three digits are the id % 1000.
  if (!std::all_of(job->begin(), job->end(), [](char c) { return c >= '0' && c <= '9'; }))
    slurm.fail("SLURM_JOB_ID", quoted(*job), "is not an integer");
  std::string last_digits = job->substr(job->size() > 3 ? job->size() - 3 : 0);
  return default_master_port + std::stoi(last_digits);
}

// A one-task step (`srun -n1`) is a one-rank world: Launcher::none.
RankEnvironment read_slurm(const EnvironmentLookup& get) {
  EnvironmentReader slurm(get, "set by slurm");
  EnvironmentReader user(get, "read under slurm");
  RankEnvironment ranks;
  ranks.world_size = *slurm.integer("SLURM_NTASKS");
  check_at_least_one(slurm, "SLURM_NTASKS", ranks.world_size);
  if (ranks.world_size == 1) return {};
  ranks.launcher = Launcher::slurm;
  ranks.rank = *slurm.integer("SLURM_PROCID");
  ranks.local_rank = slurm.integer("SLURM_LOCALID").value_or(0);
  LocalWorld local_world = slurm_local_world(slurm);
  ranks.local_world_size = local_world.size;
  check_world(slurm, {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", local_world.source}, ranks);
  ranks.master_addr = slurm_master_addr(slurm, user);
  ranks.master_port = slurm_master_port(slurm, user);
  ranks.attempt = restart_count(slurm, "SLURM_RESTART_COUNT");
  return ranks;
}

}  // namespace

const char* launcher_name(Launcher launcher) {
  switch (launcher) {
    case Launcher::none: return "none";
    case Launcher::runner: return "runner";
    case Launcher::torchrun: return "torchrun";
    case Launcher::slurm: return "slurm";
  }
  return "unknown";
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]";
}

RankEnvironment read_rank_environment(const EnvironmentLookup& get) {
  RankEnvironment ranks;
  if (is_set(get, "RUNNER_RUN_INDEX"))
    ranks = read_runner(get);
  else if (is_set(get, "RANK") || is_set(get, "WORLD_SIZE"))
    ranks = read_torchrun(get);
  else if (is_set(get, "SLURM_PROCID") && is_set(get, "SLURM_NTASKS"))
    ranks = read_slurm(get);
  if (ranks.launcher != Launcher::none)
    ranks.node_addr = EnvironmentReader(get, "this node's").text("RUNNER_NODE_ADDR").value_or("");
  return ranks;
}

}  // namespace runner::ranks
