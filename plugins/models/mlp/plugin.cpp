// The library's entry: one model, "mlp".
#include <runner/plugin.hpp>

#include "mlp.hpp"

RUNNER_PLUGIN(plugin) { mlp::add_mlp_model(plugin); }
