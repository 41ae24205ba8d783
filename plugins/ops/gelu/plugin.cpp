// The library's entry: the hand-written gelu op.
#include <runner/plugin.hpp>

#include "gelu_op.hpp"

RUNNER_PLUGIN(plugin) { gelu::add_gelu_op(plugin); }
