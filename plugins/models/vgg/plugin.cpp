// The library's entry: one model, "vgg".
#include <runner/plugin.hpp>

#include "vgg.hpp"

RUNNER_PLUGIN(plugin) { vgg::add_vgg_model(plugin); }
