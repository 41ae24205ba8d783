// Where the shipped experiment files are, for the tests that run them.
#pragma once

#include <string>

namespace runner::testing {

inline const std::string kExperiments = std::string(RUNNER_SOURCE_DIR) + "/experiments/";

}  // namespace runner::testing
