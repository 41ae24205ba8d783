// Writing a resolved run as TOML, tables in order with augment after [dataset], and its run id.
#include "config/resolved_toml.hpp"

#include <cctype>
#include <cstdio>
#include <map>
#include <set>

namespace runner::config {
namespace {

struct TableView {
  const std::string* component;  // the component's name; nullptr for the host's sections
  const Options* options;
  std::set<std::string> left_out = {};  // keys not written
};

// Where a run's outputs go and how they are shown, not what it trains: no part of its id.
// A run's predicted step is how `runner plan` saw it, not what it trains.
const std::set<std::string> kExperimentOutputs = {"description", "plan_step_s", "results", "table",
                                                  "tensorboard"};
// What ids left out before: files written then hold ids with the others (plan_step_s came
// later than those ids and was never in them).
const std::set<std::string> kEarlierExperimentOutputs = {"plan_step_s", "tensorboard"};

// [train] keys added after ids were defined, with the value every run had before them: at it,
// they leave a run's id as it was, so files written before still resume.
const std::map<std::string, int64_t> kLaterTrainKeys = {{"max_eval_steps", 0},
                                                        {"collective_ledger", 4096}};

// [train] keys of how a run survives failures, not of what it trains: no part of its id.
const std::set<std::string> kTrainRecoveryKeys = {"max_restarts", "stall_timeout_s"};

// The [train] keys an id leaves out.
std::set<std::string> train_keys_left_out_of_id(const Options& train) {
  std::set<std::string> left_out = kTrainRecoveryKeys;
  for (const auto& [key, value] : kLaterTrainKeys)
    if (train.has(key) && train.get_int(key) == value) left_out.insert(key);
  // A later flag, off in every run before it.
  if (train.has("check_collectives") && !train.get_bool("check_collectives"))
    left_out.insert("check_collectives");
  return left_out;
}

std::string toml_key(const std::string& key) {
  bool bare = !key.empty();
  for (unsigned char c : key) bare = bare && (std::isalnum(c) || c == '_' || c == '-');
  return bare ? key : detail::quoted(key);
}

// `header` with its brackets: "[train]", "[[dataset.augment]]".
void write_table(std::string& out, const std::string& header, const TableView& table) {
  out += (out.empty() ? "" : "\n") + header + "\n";
  if (table.component) out += "name = " + value_to_string(Value(*table.component)) + "\n";
  for (const auto& [key, value] : table.options->values())
    if (!table.left_out.count(key)) out += toml_key(key) + " = " + value_to_string(value) + "\n";
}

// In file order, right after [dataset]: their order is part of the config.
void write_augment(std::string& out, const std::vector<AugmentConfig>& augment) {
  for (const auto& transform : augment)
    write_table(out, "[[dataset.augment]]", {&transform.name, &transform.options});
}

// A run with a fault injected is another study than the same run without (its times differ,
// a sweep may compare them): [fault] is in its id, unless its kind is "none", so ids of runs
// without one stay as they were before [fault] existed.
bool injects_a_fault(const RunConfig& run) {
  return run.fault.has("kind") && run.fault.get_string("kind") != "none";
}

// [fault] keys added after faults were part of ids, at the value every fault had before them:
// they leave the id of a run with a fault as it was.
std::set<std::string> fault_keys_left_out_of_id(const Options& fault) {
  if (fault.has("in") && fault.get_string("in") == "step") return {"in"};
  return {};
}

// `experiment_left_out`: [experiment] keys not written; `whole`: every key and [checkpoint]
// written (else what the run's id hashes).
std::string toml_of(const RunConfig& run, const std::set<std::string>& experiment_left_out,
                    bool whole) {
  std::map<std::string, TableView> tables = {
      {"experiment", {nullptr, &run.experiment, experiment_left_out}},
      {"train",
       {nullptr, &run.train.keys,
        whole ? std::set<std::string>{} : train_keys_left_out_of_id(run.train.keys)}},
      {"optimizer", {nullptr, &run.optimizer}},
      {"schedule", {nullptr, &run.schedule}},
      {"dataset", {&run.dataset.name, &run.dataset.options}},
      {"model", {&run.model.name, &run.model.options}},
      {"strategy", {&run.strategy.name, &run.strategy.options}},
  };
  if (whole) tables["checkpoint"] = {nullptr, &run.checkpoint};
  if (whole || injects_a_fault(run))
    tables["fault"] = {nullptr, &run.fault,
                       whole ? std::set<std::string>{} : fault_keys_left_out_of_id(run.fault)};
  for (const auto& [op, options] : run.ops) tables["ops." + toml_key(op)] = {nullptr, &options};
  std::string out;
  for (const auto& [header, table] : tables) {
    write_table(out, "[" + header + "]", table);
    if (header == "dataset") write_augment(out, run.augment);
  }
  return out;
}

}  // namespace

std::string resolved_toml(const RunConfig& run) { return toml_of(run, {}, true); }

std::string id_text(const RunConfig& run) { return toml_of(run, kExperimentOutputs, false); }

std::string earlier_id_text(const RunConfig& run) {
  return toml_of(run, kEarlierExperimentOutputs, false);
}

std::string run_id(const std::string& resolved) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : resolved) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[13];
  std::snprintf(hex, sizeof hex, "%012llx", static_cast<unsigned long long>(hash >> 16));
  return hex;
}

}  // namespace runner::config
