// The layouts a run could train with on a set of devices: every strategy runner has, with its
// degrees, stages, schedules and ZeRO stages, times the micro-batch counts, precisions and
// activation checkpointing; each written as the overrides that make an experiment use it.
#pragma once

#include <runner/techniques.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace runner::layout {

struct Devices {
  int count = 1;
  bool cuda = false;
};

struct Layout {
  std::string strategy;  // single, ddp, zero, tensor, pipeline, dp
  // The strategy's keys as `--set` takes them: {"stage", "2"}, {"offload", "\"nvme\""}.
  std::vector<std::pair<std::string, std::string>> keys;
  int data_parallel = 1;  // replicas of the model, each on its share of the batch
  int tensor_degree = 1;
  int pipeline_stages = 1;
  int zero_stage = 0;  // zero's stage, or the pipeline's zero_stage over its replicas
  std::string offload = "none";
  std::string schedule;  // a pipeline's: gpipe or 1f1b
  int64_t micro_batches = 1;
  Precision precision = Precision::fp32;
  bool checkpoint_layers = false;

  // "zero stage 2 offload nvme", "pipeline 2 stages 1f1b", "ddp".
  std::string strategy_text() const;
  // strategy_text, then micro-batches, precision and checkpointing, comma-separated.
  std::string label() const;
  // "strategy.stage=2", ..., and the world size on `devices` where the strategy takes one.
  std::vector<std::string> strategy_overrides(const Devices& devices) const;
  // "train.micro_batches=4", "train.precision=\"bf16\"", "train.activation_checkpointing=...".
  std::vector<std::string> train_overrides() const;
  // The label of the same layout without its offload (single's on one device); its own label
  // when it offloads nothing.
  std::string label_without_offload(const Devices& devices) const;
};

// Every layout for a global batch of `batch_size` on `devices`, in a fixed order: the
// strategies (single or ddp first), then for each the micro-batch counts dividing a replica's
// share of the batch, the precisions (fp16 on CUDA only) and checkpointing off and on. On one
// device zero comes only with an offload (without one it trains as single does); `cpu`
// offload and dp only on CUDA.
std::vector<Layout> enumerate_layouts(const Devices& devices, int64_t batch_size);

}  // namespace runner::layout
