// The library's entry: one model, "conv_stack".
#include <runner/plugin.hpp>

#include "conv_stack.hpp"

RUNNER_PLUGIN(plugin) { conv_stack::add_conv_stack_model(plugin); }
