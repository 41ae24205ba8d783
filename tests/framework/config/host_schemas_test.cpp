// Tests of the host's schemas: every key documented with a valid default, as the docs list them.
#include "config/host_schemas.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace runner::config {
namespace {

std::vector<const Schema*> host_schemas() {
  return {&experiment_schema(), &train_schema(),      &optimizer_schema(),
          &schedule_schema(),   &checkpoint_schema(), &fault_schema()};
}

bool within_bounds(double v, const KeySpec& spec) {
  return (!spec.min || v >= *spec.min) && (!spec.max || v <= *spec.max);
}

// A default the validation would refuse would make every experiment file fail.
bool default_is_valid(const KeySpec& spec) {
  const Value& v = *spec.default_value;
  if (value_type(v) != spec.type) return false;
  if (const auto* i = std::get_if<int64_t>(&v)) return within_bounds(static_cast<double>(*i), spec);
  if (const auto* d = std::get_if<double>(&v)) return within_bounds(*d, spec);
  if (const auto* ds = std::get_if<std::vector<double>>(&v))
    return std::all_of(ds->begin(), ds->end(), [&](double x) { return within_bounds(x, spec); });
  if (const auto* s = std::get_if<std::string>(&v))
    return spec.choices.empty() ||
           std::find(spec.choices.begin(), spec.choices.end(), *s) != spec.choices.end();
  return true;
}

TEST(HostSchemas, EveryKeyHasADocAndAValidDefault) {
  for (const Schema* schema : host_schemas())
    for (const auto& spec : schema->keys()) {
      EXPECT_FALSE(spec.doc.empty()) << spec.name;
      ASSERT_TRUE(spec.default_value.has_value()) << spec.name;
      EXPECT_TRUE(default_is_valid(spec)) << spec.name;
    }
}

TEST(HostSchemas, DeclareTheDocumentedKeys) {
  EXPECT_EQ(experiment_schema().names(),
            (std::vector<std::string>{"name", "description", "seed", "results", "tensorboard",
                                      "plugin_path", "table", "plan_step_s"}));
  EXPECT_EQ(train_schema().names(), (std::vector<std::string>{"epochs",
                                                              "batch_size",
                                                              "test_batch_size",
                                                              "device",
                                                              "threads",
                                                              "precision",
                                                              "micro_batches",
                                                              "activation_checkpointing",
                                                              "grad_clip_norm",
                                                              "memory_budget",
                                                              "peak_tflops",
                                                              "loss_scale",
                                                              "loss_scale_growth_interval",
                                                              "loss_scale_backoff",
                                                              "num_workers",
                                                              "prefetch",
                                                              "pin_memory",
                                                              "log_every",
                                                              "max_steps_per_epoch",
                                                              "max_eval_steps",
                                                              "deterministic",
                                                              "collective_ledger",
                                                              "max_restarts",
                                                              "stall_timeout_s",
                                                              "check_collectives",
                                                              "backend_conv"}));
  EXPECT_EQ(optimizer_schema().names(),
            (std::vector<std::string>{"name", "lr", "momentum", "nesterov", "weight_decay", "betas",
                                      "eps"}));
  EXPECT_EQ(schedule_schema().names(),
            (std::vector<std::string>{"name", "step_size", "gamma", "min_lr", "max_lr", "pct_start",
                                      "warmup_steps"}));
  EXPECT_EQ(fault_schema().names(), (std::vector<std::string>{"kind", "rank", "step", "seconds",
                                                              "factor", "in", "attempt"}));
}

TEST(HostSchemas, DefaultsAndChoicesAreTheDocumentedOnes) {
  EXPECT_EQ(std::get<int64_t>(*train_schema().find("batch_size")->default_value), 64);
  EXPECT_EQ(std::get<int64_t>(*train_schema().find("test_batch_size")->default_value), 1000);
  EXPECT_EQ(train_schema().find("device")->choices,
            (std::vector<std::string>{"cpu", "cuda", "auto"}));
  EXPECT_EQ(std::get<double>(*optimizer_schema().find("lr")->default_value), 1e-3);
  EXPECT_EQ(std::get<std::vector<double>>(*optimizer_schema().find("betas")->default_value),
            (std::vector<double>{0.9, 0.999}));
  EXPECT_EQ(optimizer_schema().find("name")->choices,
            (std::vector<std::string>{"sgd", "adam", "adamw"}));
  EXPECT_EQ(schedule_schema().find("name")->choices,
            (std::vector<std::string>{"constant", "step", "cosine", "one_cycle"}));
  EXPECT_EQ(*schedule_schema().find("pct_start")->max, 1.0);
  EXPECT_EQ(train_schema().find("threads")->max, 1024.0);
}

}  // namespace
}  // namespace runner::config
