// The library's entry: the built-in activation ops.
#include <runner/plugin.hpp>

#include "activations.hpp"

RUNNER_PLUGIN(plugin) { activations::add_activation_ops(plugin); }
