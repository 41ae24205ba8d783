// Messages: a tensor sent as a header of its sizes and type then its data, and received likewise.
#include "messages.hpp"

#include <runner/errors.hpp>

namespace runner::strategies {
namespace {

constexpr int64_t kMostDimensions = 6;

// (8) int64: the dimension count, up to 6 sizes, the scalar type.
torch::Tensor header_of(const torch::Tensor& tensor) {
  RUNNER_CHECK(tensor.dim() <= kMostDimensions, "a pipeline message of more than 6 dimensions");
  torch::Tensor header = torch::zeros({kMostDimensions + 2}, torch::kInt64);
  header[0] = tensor.dim();
  for (int64_t d = 0; d < tensor.dim(); ++d) header[d + 1] = tensor.size(d);
  header[kMostDimensions + 1] = static_cast<int64_t>(tensor.scalar_type());
  return header;
}

}  // namespace

void Messages::send(const torch::Tensor& tensor, int to, const std::string& words) {
  torch::Tensor data = tensor.detach().contiguous();
  pipeline_->describe_next("pipeline sends the shape of " + words);
  sends_.push_back(pipeline_->start_send(header_of(data).to(device_), to));
  pipeline_->describe_next("pipeline sends " + words);
  sends_.push_back(pipeline_->start_send(data, to));
}

torch::Tensor Messages::receive(int from, const std::string& words) {
  torch::Tensor header = torch::empty({kMostDimensions + 2}, torch::kInt64).to(device_);
  pipeline_->describe_next("pipeline receives the shape of " + words);
  pipeline_->receive(header, from);
  header = header.cpu();
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < header[0].item<int64_t>(); ++d)
    sizes.push_back(header[d + 1].item<int64_t>());
  const auto type = static_cast<c10::ScalarType>(header[kMostDimensions + 1].item<int64_t>());
  torch::Tensor data = torch::empty(sizes, torch::TensorOptions().dtype(type).device(device_));
  pipeline_->describe_next("pipeline receives " + words);
  pipeline_->receive(data, from);
  return data;
}

void Messages::wait_for_sends() {
  for (auto& send : sends_) send->wait();
  sends_.clear();
}

}  // namespace runner::strategies
