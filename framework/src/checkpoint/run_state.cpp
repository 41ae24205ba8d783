// The engine fields of a checkpoint's manifest checked against their types and its progress.
#include "checkpoint/run_state.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

using nlohmann::json;

using TypeCheck = bool (json::*)() const noexcept;

// Each field run_checkpoints.cpp writes, and its JSON type.
const std::vector<std::pair<const char*, TypeCheck>>& engine_fields() {
  static const std::vector<std::pair<const char*, TypeCheck>> fields{
      {"epochs_recorded", &json::is_number_integer},
      {"steps_recorded", &json::is_number_integer},
      {"elapsed_s", &json::is_number},
      {"train_compute_s", &json::is_number},
      {"train_samples", &json::is_number_integer},
      {"per_class", &json::is_array},
      {"peak_memory_per_rank", &json::is_array},
      {"tensor_peak_per_rank", &json::is_array},
      {"state_memory_per_rank", &json::is_array},
      {"config", &json::is_string}};
  return fields;
}

[[noreturn]] void refuse(const std::string& folder, const std::string& what) {
  throw DataError("checkpoint " + folder + ": " + what,
                  "its manifest was edited, or written by another runner");
}

bool null_or_object(const json& j) { return j.is_null() || j.is_object(); }

}  // namespace

std::string rank_entry(int rank, const std::string& name) {
  return fmt::format("engine/rank{}/{}", rank, name);
}

void check_engine_state(const CheckpointReader& reader) {
  const Manifest& m = reader.manifest();
  const std::string& folder = reader.folder();
  const json& engine = m.engine;
  for (const auto& [key, is_type] : engine_fields())
    if (!engine.contains(key) || !(engine.at(key).*is_type)())
      refuse(folder, fmt::format("engine.{} is missing or of another type", key));
  for (const char* key : {"last_epoch", "pass"})
    if (!engine.contains(key) || !null_or_object(engine.at(key)))
      refuse(folder, fmt::format("engine.{} is missing or of another type", key));
  const auto epochs_recorded = engine.at("epochs_recorded").get<int64_t>();
  if (epochs_recorded != m.progress.epoch - 1)
    refuse(folder, fmt::format("engine.epochs_recorded = {} before epoch {}", epochs_recorded,
                               m.progress.epoch));
  const json& pass = engine.at("pass");
  if (pass.is_null() != (m.progress.step_in_epoch == 0))
    refuse(folder, fmt::format("step {} of its epoch {} the epoch's pass so far",
                               m.progress.step_in_epoch, pass.is_null() ? "without" : "with"));
  const int64_t pass_steps =
      pass.is_null() || !pass.contains("steps") ? 0 : static_cast<int64_t>(pass["steps"].size());
  const auto steps_recorded = engine.at("steps_recorded").get<int64_t>();
  if (steps_recorded < 0 || steps_recorded + pass_steps != m.progress.global_step)
    refuse(folder, fmt::format("engine.steps_recorded = {} and {} steps in its pass do not make "
                               "global step {}",
                               steps_recorded, pass_steps, m.progress.global_step));
  const auto require = [&](int rank, const std::string& entry) {
    if (!reader.contains(rank_entry(rank, entry)))
      refuse(folder,
             fmt::format("its shards hold no {} of rank {} of its {}", entry, rank, m.world_size));
  };
  for (int rank = 0; rank < m.world_size; ++rank) {
    require(rank, "rng_cpu");
    if (!pass.is_null()) require(rank, "pass_metrics");
  }
}

void check_progress_fits(const Manifest& m, const std::string& folder, int64_t epochs,
                         std::optional<int64_t> steps_per_epoch) {
  const Progress& p = m.progress;
  if (p.epoch > epochs + 1)
    refuse(folder,
           fmt::format("it stands at epoch {}, past this run's {} epochs", p.epoch, epochs));
  if (!steps_per_epoch) return;
  if (p.step_in_epoch > *steps_per_epoch)
    refuse(folder, fmt::format("it stands at step {} of an epoch of {} steps", p.step_in_epoch,
                               *steps_per_epoch));
  if (p.global_step > epochs * *steps_per_epoch)
    refuse(folder, fmt::format("it stands at global step {}, past this run's {} epochs of {} "
                               "steps",
                               p.global_step, epochs, *steps_per_epoch));
}

}  // namespace runner::checkpoint
