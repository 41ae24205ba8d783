// The library's entry: one model, "lenet5".
#include <runner/plugin.hpp>

#include "lenet5.hpp"

RUNNER_PLUGIN(plugin) { lenet5::add_lenet5_model(plugin); }
