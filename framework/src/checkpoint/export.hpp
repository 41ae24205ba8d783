// A checkpoint's model weights written where other tools read them: a state dict that
// Python's torch.load opens (LibTorch's pickle format, the one torch.save writes) and a
// safetensors file, both keyed by the model's parameter and buffer names.
#pragma once

#include <map>
#include <string>

#include <torch/torch.h>

namespace runner::checkpoint {

// The model's tensors of the checkpoint in `folder`, by parameter or buffer name, whole.
std::map<std::string, torch::Tensor> model_weights(const std::string& folder);

struct ExportedFiles {
  std::string state_dict;   // <stem>.pt
  std::string safetensors;  // <stem>.safetensors
};

// Writes both files of the checkpoint's weights. Throws DataError naming the file that cannot
// be written, or the checkpoint that cannot be read.
ExportedFiles export_weights(const std::string& folder, const std::string& stem);

}  // namespace runner::checkpoint
