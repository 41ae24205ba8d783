// Everything a plugin author includes.
#pragma once

#include "runner/communicator.hpp"
#include "runner/compat.hpp"
#include "runner/cpu_capability.hpp"
#include "runner/dataset.hpp"
#include "runner/distributed.hpp"
#include "runner/errors.hpp"
#include "runner/gradcheck.hpp"
#include "runner/kind.hpp"
#include "runner/layer.hpp"
#include "runner/model.hpp"
#include "runner/op.hpp"
#include "runner/options.hpp"
#include "runner/plan.hpp"
#include "runner/plugin.hpp"
#include "runner/strategy.hpp"
#include "runner/version.hpp"
