// The environment's thread counts: whole numbers from 1 to 1024 pass (a list for
// OMP_NUM_THREADS), anything else is named with its variable and the bound.
#include "machine/thread_variables.hpp"

#include <gtest/gtest.h>

#include <map>

namespace runner::machine {
namespace {

std::optional<std::string> problem_with(const std::map<std::string, std::string>& environment) {
  return thread_variable_problem([&](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  });
}

TEST(ThreadVariables, CountsFromOneToTheBoundPass) {
  EXPECT_EQ(problem_with({}), std::nullopt);
  EXPECT_EQ(problem_with({{"OMP_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1024"}}),
            std::nullopt);
  EXPECT_EQ(problem_with({{"OMP_NUM_THREADS", "4,2"}}), std::nullopt);
  EXPECT_EQ(problem_with({{"MKL_NUM_THREADS", ""}}), std::nullopt);  // empty: unset
}

TEST(ThreadVariables, ACountOutOfRangeOrNotANumberIsNamed) {
  const std::string bound = ": a thread count must be a whole number from 1 to 1024";
  for (const char* value :
       {"100000", "0", "-1", "1025", "2.5", "four", "4,", "4,0", " 4", "99999999999999999999"})
    EXPECT_EQ(problem_with({{"OMP_NUM_THREADS", value}}),
              std::string("OMP_NUM_THREADS=") + value + bound);
  EXPECT_EQ(problem_with({{"OPENBLAS_NUM_THREADS", "4,2"}}),
            "OPENBLAS_NUM_THREADS=4,2" + bound);  // a list is OpenMP's alone
  EXPECT_EQ(problem_with({{"GOTO_NUM_THREADS", "0"}}), "GOTO_NUM_THREADS=0" + bound);
  EXPECT_EQ(problem_with({{"MKL_NUM_THREADS", std::string(50, '9')}}),
            "MKL_NUM_THREADS=" + std::string(40, '9') + "..." + bound);
}

}  // namespace
}  // namespace runner::machine
