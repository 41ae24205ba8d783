// Slurm's compressed lists: node lists ("node[01-03,07],gpu5") and tasks per node ("2(x3),1").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace runner::ranks {

// What is wrong with a node list ("has an unclosed \"[\""), or "" when it is well formed.
std::string nodelist_problem(const std::string& nodelist);

// `tasks` tasks on each of `nodes` consecutive nodes: "2(x3)" is {2, 3}, "1" is {1, 1}.
struct TaskGroup {
  int tasks = 0;
  int nodes = 0;
};

// The first host of a Slurm node list: "node[01-03,07],gpu5" -> "node01",
// "gpu-[3-5]" -> "gpu-3", "a,b" -> "a", "solo" -> "solo". Throws ConfigError on a malformed
// list (empty, unbalanced or nested brackets, a range that is not digits).
std::string first_slurm_host(const std::string& nodelist);

// "2(x3),1" -> {{2, 3}, {1, 1}}; nullopt when malformed.
std::optional<std::vector<TaskGroup>> parse_tasks_per_node(const std::string& list);

// The task count of node `node` (0-based), or nullopt past the list's last node.
std::optional<int> tasks_on_node(const std::vector<TaskGroup>& groups, int node);

}  // namespace runner::ranks
