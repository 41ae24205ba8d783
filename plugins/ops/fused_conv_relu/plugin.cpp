// The library's entry: the op fused_conv_relu.
#include <runner/plugin.hpp>

#include "fused_conv_relu_op.hpp"

RUNNER_PLUGIN(plugin) { fused_conv_relu::add_fused_conv_relu_op(plugin); }
