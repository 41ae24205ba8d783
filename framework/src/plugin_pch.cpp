// Carrier of the precompiled <runner/plugin.hpp> that an installed runner ships for plugin
// projects (cmake/RunnerInstall.cmake).
#include <runner/plugin.hpp>
