// Everything a plugin author may include: every SDK header and all of LibTorch's C++ API
// (<torch/torch.h>). Each SDK header includes only the LibTorch headers it needs; a plugin that
// includes those it uses, and LibTorch's for what it calls (<torch/nn/modules/linear.h>), builds
// in a fraction of the time (docs/writing-a-plugin.md, "Build time").
#pragma once

#include <torch/torch.h>

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
#include "runner/tensor_parallel.hpp"
#include "runner/tensor_split.hpp"
#include "runner/training_state.hpp"
#include "runner/version.hpp"
