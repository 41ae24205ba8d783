// Slurm's compressed node and tasks-per-node lists.
#include "ranks/slurm_lists.hpp"

#include <gtest/gtest.h>

#include <string>

#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

TEST(FirstSlurmHost, ExpandsTheFirstEntryOfTheFirstHost) {
  EXPECT_EQ(first_slurm_host("node[01-03,07],gpu5"), "node01");
  EXPECT_EQ(first_slurm_host("gpu-[3-5]"), "gpu-3");
  EXPECT_EQ(first_slurm_host("a,b"), "a");
  EXPECT_EQ(first_slurm_host("solo"), "solo");
  EXPECT_EQ(first_slurm_host("node[7,1-3]"), "node7");  // Slurm's order, not the smallest
  EXPECT_EQ(first_slurm_host("rack[2-3]-n[010-012]"), "rack2-n010");
  EXPECT_EQ(first_slurm_host("[4-5]x,y"), "4x");
  EXPECT_EQ(first_slurm_host("gpu5,node[01-02]"), "gpu5");
}

TEST(FirstSlurmHost, RejectsMalformedListsNamingTheList) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "is empty"},
      {"node[01-03", "has an unclosed \"[\""},
      {"node[1[2]]", "has an unclosed \"[\""},
      {"node01]", "has a \"]\" without its \"[\""},
      {"a,,b", "has an empty host"},
      {",a", "has an empty host"},
      {"a,", "has an empty host"},
      {"node[]", "has a bracket that is not numbers and ranges: \"[]\""},
      {"node[a-b]", "has a bracket that is not numbers and ranges: \"[a-b]\""},
      {"node[1-]", "has a bracket that is not numbers and ranges: \"[1-]\""},
      {"node[1,,2]", "has a bracket that is not numbers and ranges: \"[1,,2]\""},
  };
  for (const auto& [nodelist, problem] : cases) {
    EXPECT_EQ(nodelist_problem(nodelist), problem) << nodelist;
    try {
      first_slurm_host(nodelist);
      ADD_FAILURE() << "no error for " << nodelist;
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.what(), "Slurm node list \"" + std::string(nodelist) + "\" " + problem);
    }
  }
  EXPECT_EQ(nodelist_problem("node[01-03,07],gpu5"), "");
}

TEST(TasksPerNode, ExpandsRepeatsPerNode) {
  std::optional<std::vector<TaskGroup>> groups = parse_tasks_per_node("2(x3),1,4");
  ASSERT_TRUE(groups);
  const int expected[] = {2, 2, 2, 1, 4};
  for (int node = 0; node < 5; ++node) EXPECT_EQ(tasks_on_node(*groups, node), expected[node]);
  EXPECT_EQ(tasks_on_node(*groups, 5), std::nullopt);
  EXPECT_EQ(tasks_on_node(*parse_tasks_per_node("8"), 0), 8);
}

TEST(TasksPerNode, RejectsMalformedLists) {
  for (const char* list : {"", "2(x3", "2(3)", "(x3)", "2(x)", "a", "2,,1", "-2", "2(x-1)", "2 "})
    EXPECT_EQ(parse_tasks_per_node(list), std::nullopt) << list;
}

}  // namespace
}  // namespace runner::ranks
