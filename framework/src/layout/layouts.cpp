// The layouts of a run on a set of devices, and the overrides that select each.
#include "layout/layouts.hpp"

#include <fmt/format.h>

namespace runner::layout {
namespace {

Layout data_parallel(const std::string& strategy, int devices) {
  Layout layout;
  layout.strategy = strategy;
  layout.data_parallel = devices;
  return layout;
}

std::vector<std::string> offloads(const Devices& devices) {
  if (devices.count == 1)
    return devices.cuda ? std::vector<std::string>{"cpu", "nvme"}
                        : std::vector<std::string>{"nvme"};
  return devices.cuda ? std::vector<std::string>{"none", "cpu", "nvme"}
                      : std::vector<std::string>{"none", "nvme"};
}

std::vector<Layout> zero_layouts(const Devices& devices) {
  std::vector<Layout> layouts;
  for (int stage = 1; stage <= 3; ++stage)
    for (const auto& offload : offloads(devices)) {
      Layout layout = data_parallel("zero", devices.count);
      layout.zero_stage = stage;
      layout.offload = offload;
      layout.keys = {{"stage", std::to_string(stage)}, {"offload", "\"" + offload + "\""}};
      layouts.push_back(layout);
    }
  return layouts;
}

std::vector<Layout> tensor_layouts(const Devices& devices) {
  std::vector<Layout> layouts;
  for (int degree = 2; degree <= devices.count; ++degree) {
    if (devices.count % degree != 0) continue;
    Layout layout = data_parallel("tensor", devices.count / degree);
    layout.tensor_degree = degree;
    layout.keys = {{"degree", std::to_string(degree)}};
    layouts.push_back(layout);
  }
  return layouts;
}

std::vector<Layout> pipeline_layouts(const Devices& devices) {
  std::vector<Layout> layouts;
  for (int stages = 2; stages <= devices.count; ++stages) {
    if (devices.count % stages != 0) continue;
    const int replicas = devices.count / stages;
    for (const char* schedule : {"1f1b", "gpipe"})
      for (int zero_stage = 0; zero_stage <= (replicas > 1 ? 1 : 0); ++zero_stage) {
        Layout layout = data_parallel("pipeline", replicas);
        layout.pipeline_stages = stages;
        layout.schedule = schedule;
        layout.zero_stage = zero_stage;
        layout.keys = {{"stages", std::to_string(stages)},
                       {"schedule", fmt::format("\"{}\"", schedule)},
                       {"zero_stage", std::to_string(zero_stage)}};
        layouts.push_back(layout);
      }
  }
  return layouts;
}

std::vector<Layout> strategy_layouts(const Devices& devices) {
  std::vector<Layout> layouts{data_parallel(devices.count == 1 ? "single" : "ddp", devices.count)};
  for (const auto& part :
       {zero_layouts(devices), tensor_layouts(devices), pipeline_layouts(devices)})
    layouts.insert(layouts.end(), part.begin(), part.end());
  if (devices.cuda && devices.count > 1) {
    Layout dp = data_parallel("dp", devices.count);
    std::string list;
    for (int d = 0; d < devices.count; ++d) list += (d ? ", " : "") + std::to_string(d);
    dp.keys = {{"devices", "[" + list + "]"}};
    layouts.push_back(dp);
  }
  return layouts;
}

// The micro-batch counts that divide a replica's share of the batch; 1 alone when the share is
// not whole (the run's checks then say why).
std::vector<int64_t> micro_batch_counts(int64_t batch_size, int replicas) {
  if (batch_size % replicas != 0) return {1};
  const int64_t share = batch_size / replicas;
  std::vector<int64_t> counts;
  for (int64_t m = 1; m <= share; ++m)
    if (share % m == 0) counts.push_back(m);
  return counts;
}

std::vector<Precision> precisions(const Devices& devices) {
  if (devices.cuda) return {Precision::fp32, Precision::bf16, Precision::fp16};
  return {Precision::fp32, Precision::bf16};
}

}  // namespace

std::string Layout::strategy_text() const {
  if (strategy == "zero")
    return fmt::format("zero stage {}{}", zero_stage,
                       offload == "none" ? "" : " offload " + offload);
  if (strategy == "tensor") return fmt::format("tensor degree {}", tensor_degree);
  if (strategy == "pipeline")
    return fmt::format("pipeline {} stages {}{}", pipeline_stages, schedule,
                       zero_stage ? " zero 1" : "");
  return strategy;
}

std::string Layout::label() const {
  return fmt::format("{}, {} micro-batch{}, {}{}", strategy_text(), micro_batches,
                     micro_batches == 1 ? "" : "es", precision_name(precision),
                     checkpoint_layers ? ", checkpointing" : "");
}

std::string Layout::label_without_offload(const Devices& devices) const {
  if (offload == "none") return label();
  Layout twin = *this;
  twin.offload = "none";
  if (devices.count == 1) twin.strategy = "single";
  return twin.label();
}

std::vector<std::string> Layout::strategy_overrides(const Devices& devices) const {
  std::vector<std::string> overrides;
  for (const auto& [key, value] : keys) overrides.push_back("strategy." + key + "=" + value);
  if (strategy != "single" && strategy != "dp")
    overrides.push_back("strategy.world_size=" + std::to_string(devices.count));
  return overrides;
}

std::vector<std::string> Layout::train_overrides() const {
  return {
      "train.micro_batches=" + std::to_string(micro_batches),
      fmt::format("train.precision=\"{}\"", precision_name(precision)),
      fmt::format("train.activation_checkpointing=\"{}\"", checkpoint_layers ? "layers" : "none")};
}

std::vector<Layout> enumerate_layouts(const Devices& devices, int64_t batch_size) {
  std::vector<Layout> layouts;
  for (const Layout& strategy : strategy_layouts(devices))
    // dp is one process: its micro-batches divide the whole batch.
    for (int64_t micro_batches :
         micro_batch_counts(batch_size, strategy.strategy == "dp" ? 1 : strategy.data_parallel))
      for (Precision precision : precisions(devices))
        for (bool checkpointing : {false, true}) {
          Layout layout = strategy;
          layout.micro_batches = micro_batches;
          layout.precision = precision;
          layout.checkpoint_layers = checkpointing;
          layouts.push_back(layout);
        }
  return layouts;
}

}  // namespace runner::layout
