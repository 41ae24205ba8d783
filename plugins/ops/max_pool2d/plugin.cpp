// The library's entry: the op max_pool2d.
#include <runner/plugin.hpp>

#include "max_pool2d_op.hpp"

RUNNER_PLUGIN(plugin) { max_pool2d::add_max_pool2d_op(plugin); }
