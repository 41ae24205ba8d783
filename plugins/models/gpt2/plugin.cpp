// The library's entry: one model, "gpt2".
#include <runner/plugin.hpp>

#include "gpt2.hpp"

RUNNER_PLUGIN(plugin) { gpt2::add_gpt2_model(plugin); }
