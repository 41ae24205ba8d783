// Which rank this process is, read from the environment its launcher left: runner's own local
// launch (--nproc), torchrun, or Slurm's srun. A process started by hand is a one-rank world.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>

namespace runner::ranks {

enum class Launcher { none, runner, torchrun, slurm };

// "none", "runner", "torchrun", "slurm".
const char* launcher_name(Launcher launcher);

struct RankEnvironment {
  Launcher launcher = Launcher::none;
  int rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  std::string master_addr;  // host of the c10d TCP store
  int master_port = 0;      // 0 when not set (a local launch then picks a free one)
  int run_index = -1;       // runner's own launch: RUNNER_RUN_INDEX, the run of the sweep to train
  std::string results_group;  // runner's own launch: RUNNER_RESULTS_GROUP ("" when unset)
  std::string resume_from;    // runner's own launch: RUNNER_RESUME_FROM, the checkpoint to load
                              // ("" when unset: from the start)
  // Starts of this run's ranks before this one, after failures: RUNNER_ATTEMPT,
  // TORCHELASTIC_RESTART_COUNT or SLURM_RESTART_COUNT (0 when unset).
  int attempt = 0;
  // torchrun whose agent serves the store at MASTER_ADDR:MASTER_PORT itself
  // (TORCHELASTIC_USE_AGENT_STORE=True): every rank joins it under this prefix of keys,
  // "/worker/attempt_<TORCHELASTIC_RESTART_COUNT>", as PyTorch's own workers do. "" when rank 0
  // serves the store.
  std::string agent_store_prefix;
  // RUNNER_NODE_ADDR, under any launcher: the address of this node that its ranks' Gloo groups
  // bind and the other nodes reach them at ("" when unset: Gloo's own choice). Nodes that share
  // one machine (a test of a multi-node launch) each take a loopback address of their own.
  std::string node_addr;
};

// Whether `host` names this machine's loopback: "localhost", 127.x.y.z or ::1 (by its text).
bool is_loopback_host(const std::string& host);

// getenv by default; tests pass a map.
using EnvironmentLookup = std::function<const char*(const char*)>;

// The first launcher whose variables are set, in this order:
//   runner    RUNNER_RUN_INDEX, then the torchrun variables below, read the same way, and
//             RUNNER_RESULTS_GROUP, RUNNER_RESUME_FROM and RUNNER_ATTEMPT.
//   torchrun  RANK and WORLD_SIZE (one without the other is an error); LOCAL_RANK (default 0);
//             LOCAL_WORLD_SIZE (default: WORLD_SIZE when MASTER_ADDR is a loopback address,
//             since every rank is then on this host, else 1); MASTER_ADDR and MASTER_PORT are
//             required; TORCHELASTIC_USE_AGENT_STORE and TORCHELASTIC_RESTART_COUNT (default 0).
//   slurm     SLURM_PROCID and SLURM_NTASKS with SLURM_NTASKS > 1 (`srun -n1` is a one-rank
//             world: none). Local rank SLURM_LOCALID; local world this node's entry
//             (SLURM_NODEID, default 0) of SLURM_NTASKS_PER_NODE, else of
//             SLURM_TASKS_PER_NODE ("2(x3),1"), else 1; SLURM_RESTART_COUNT (default 0);
//             MASTER_ADDR, else the first host of
//             SLURM_JOB_NODELIST (or SLURM_NODELIST); MASTER_PORT, else
//             29500 + SLURM_JOB_ID % 1000, else 29500.
// Under each of them, RUNNER_NODE_ADDR (see RankEnvironment::node_addr).
// Throws ConfigError naming the variable and its value when one is malformed or out of range.
RankEnvironment read_rank_environment(const EnvironmentLookup& get = ::getenv);

}  // namespace runner::ranks
