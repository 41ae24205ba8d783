// Versions the host and a plugin must agree on. CMake reads RUNNER_VERSION from this line.
#pragma once

#define RUNNER_VERSION "0.6.0"

// Bump when any SDK type a plugin hands to the host changes layout or meaning.
#define RUNNER_ABI_VERSION 10u
