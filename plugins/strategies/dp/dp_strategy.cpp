// DpStrategy: skips runs the machine cannot hold, picks the devices, hands steps to DataParallel.
#include "dp_strategy.hpp"

#include "device_selection.hpp"

namespace runner::strategies {
namespace {

const char* const kNeeds = "strategy dp needs at least 2 CUDA devices";

std::string devices_text(int64_t count) {
  return std::to_string(count) + (count == 1 ? " CUDA device" : " CUDA devices");
}

// Everything that makes the run impossible on this machine, checked before anything is built.
void skip_unless_runnable(torch::Device device, int64_t visible) {
  if (visible < 2)
    throw RunSkipped(std::string(kNeeds) + "; this machine has " + devices_text(visible),
                     "run it on a machine with several GPUs, or use strategy single");
  if (!device.is_cuda())
    throw RunSkipped(std::string(kNeeds) + " and train.device is " + device.str() +
                         "; this machine has " + devices_text(visible),
                     "set train.device = \"cuda\"");
}

}  // namespace

DpStrategy::DpStrategy(std::vector<int64_t> requested) : requested_(std::move(requested)) {}

void DpStrategy::setup(const StrategyContext& context) {
  const int64_t visible = static_cast<int64_t>(torch::cuda::device_count());
  skip_unless_runnable(context.device, visible);
  // "cuda" without an index is the current device, 0 unless something changed it.
  const int64_t first = context.device.has_index() ? context.device.index() : 0;
  std::vector<torch::Device> devices = select_cuda_devices(requested_, visible, first);
  if (devices.size() < 2)
    throw RunSkipped(std::string(kNeeds) +
                         "; strategy.devices = " + value_to_string(Value(requested_)) +
                         " selects " + devices_text(static_cast<int64_t>(devices.size())),
                     "list at least two devices, or [] for all " + devices_text(visible));
  parallel_ = std::make_unique<DataParallel>(std::move(devices), context);
}

StepResult DpStrategy::train_step(const Batch& batch) { return parallel_->train_step(batch); }

StepResult DpStrategy::eval_step(const Batch& batch) { return parallel_->eval_step(batch); }

void DpStrategy::set_learning_rate(double lr) { parallel_->set_learning_rate(lr); }

std::shared_ptr<Strategy> make_dp_strategy(const Options& options) {
  return std::make_shared<DpStrategy>(requested_devices(options));
}

}  // namespace runner::strategies
