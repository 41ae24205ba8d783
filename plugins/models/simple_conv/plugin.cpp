// The library's entry: one model, "simple_conv".
#include <runner/plugin.hpp>

#include "simple_conv.hpp"

RUNNER_PLUGIN(plugin) { simple_conv::add_simple_conv_model(plugin); }
