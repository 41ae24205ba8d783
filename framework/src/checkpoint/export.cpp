// export_weights: a checkpoint's whole model tensors as a torch.load state dict and safetensors.
#include "checkpoint/export.hpp"

#include "checkpoint/reader.hpp"
#include "checkpoint/safetensors.hpp"
#include "common/output_path.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

constexpr const char* kModelPrefix = "model/";

void write_state_dict(const std::string& path,
                      const std::map<std::string, torch::Tensor>& weights) {
  c10::Dict<std::string, torch::Tensor> state_dict;
  for (const auto& [name, tensor] : weights) state_dict.insert(name, tensor);
  const std::vector<char> bytes = torch::pickle_save(state_dict);
  write_file_whole(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace

std::map<std::string, torch::Tensor> model_weights(const std::string& folder) {
  verify(folder);
  CheckpointReader reader(folder);
  std::map<std::string, torch::Tensor> weights;
  const std::string prefix = kModelPrefix;
  for (const auto& name : reader.names())
    if (name.rfind(prefix, 0) == 0) weights[name.substr(prefix.size())] = reader.whole(name);
  if (weights.empty()) throw DataError("checkpoint " + folder + " holds no model weights");
  return weights;
}

ExportedFiles export_weights(const std::string& folder, const std::string& stem) {
  const auto weights = model_weights(folder);
  ExportedFiles files{stem + ".pt", stem + ".safetensors"};
  write_state_dict(files.state_dict, weights);
  std::vector<NamedTensor> tensors;
  for (const auto& [name, tensor] : weights) tensors.push_back({name, tensor});
  write_safetensors(files.safetensors, tensors, {{"format", "pt"}});
  return files;
}

}  // namespace runner::checkpoint
