// The HParams events: the experiment's swept keys and final metrics, and each run's start and end.
#include "tensorboard/hparams.hpp"

#include <algorithm>
#include <set>

#include "runner/options.hpp"
#include "tensorboard/proto/hparams.pb.h"

namespace runner::tensorboard {
namespace {

constexpr const char* kPlugin = "hparams";
constexpr const char* kExperimentTag = "_hparams_/experiment";
constexpr const char* kSessionStartTag = "_hparams_/session_start_info";
constexpr const char* kSessionEndTag = "_hparams_/session_end_info";

struct FinalMetric {
  const char* tag;
  proto::DatasetType dataset;
  double (*of)(const results::Summary&);
};

double largest(const std::vector<double>& values) {
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

const std::vector<FinalMetric>& final_metrics() {
  static const std::vector<FinalMetric> metrics = {
      {"final/test_accuracy", proto::DATASET_VALIDATION,
       [](const results::Summary& s) { return s.final_test_accuracy; }},
      {"final/test_loss", proto::DATASET_VALIDATION,
       [](const results::Summary& s) { return s.final_test_loss; }},
      {"final/train_loss", proto::DATASET_TRAINING,
       [](const results::Summary& s) { return s.final_train_loss; }},
      {"final/total_time_s", proto::DATASET_UNKNOWN,
       [](const results::Summary& s) { return s.total_time_s; }},
      {"final/peak_memory_bytes", proto::DATASET_UNKNOWN,
       [](const results::Summary& s) { return largest(s.peak_memory_per_rank_bytes); }},
      {"final/tflops", proto::DATASET_UNKNOWN, [](const results::Summary& s) { return s.tflops; }},
  };
  return metrics;
}

std::string text_of(const results::SweepValue& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const auto* integer = std::get_if<int64_t>(&value)) return std::to_string(*integer);
  if (const auto* number = std::get_if<double>(&value)) return value_to_string(Value(*number));
  return std::get<std::string>(value);
}

HParamType type_of(const results::SweepValue& value) {
  if (std::holds_alternative<bool>(value)) return HParamType::boolean;
  if (std::holds_alternative<std::string>(value)) return HParamType::text;
  return HParamType::number;
}

google::protobuf::Value value_of(const results::SweepValue& value, HParamType type) {
  google::protobuf::Value out;
  if (type == HParamType::boolean)
    out.set_bool_value(std::get<bool>(value));
  else if (type == HParamType::text)
    out.set_string_value(text_of(value));
  else if (const auto* integer = std::get_if<int64_t>(&value))
    out.set_number_value(static_cast<double>(*integer));
  else
    out.set_number_value(std::get<double>(value));
  return out;
}

proto::DataType data_type(HParamType type) {
  if (type == HParamType::boolean) return proto::DATA_TYPE_BOOL;
  if (type == HParamType::number) return proto::DATA_TYPE_FLOAT64;
  return proto::DATA_TYPE_STRING;
}

proto::Event hparams_event(const char* tag, const proto::HParamsPluginData& data, int64_t step,
                           double wall_time) {
  return plugin_event(tag, kPlugin, data.SerializeAsString(), step, wall_time);
}

// Each key's values in sweep order, once each.
std::map<std::string, std::vector<results::SweepValue>> domains(
    const std::vector<SweepPoint>& points) {
  std::map<std::string, std::vector<results::SweepValue>> values;
  for (const auto& point : points)
    for (const auto& [key, value] : point) {
      auto& seen = values[key];
      if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
    }
  return values;
}

}  // namespace

HParamTypes hparam_types(const std::vector<SweepPoint>& points) {
  HParamTypes types;
  for (const auto& [key, values] : domains(points)) {
    std::set<HParamType> seen;
    for (const auto& value : values) seen.insert(type_of(value));
    types[key] = seen.size() == 1 ? *seen.begin() : HParamType::text;
  }
  return types;
}

std::vector<Scalar> final_scalars(const results::Summary& summary) {
  std::vector<Scalar> scalars;
  for (const auto& metric : final_metrics()) scalars.push_back({metric.tag, metric.of(summary)});
  return scalars;
}

proto::Event experiment_event(const std::string& name, const std::vector<SweepPoint>& points,
                              double wall_time) {
  proto::HParamsPluginData data;
  auto* experiment = data.mutable_experiment();
  experiment->set_name(name);
  experiment->set_time_created_secs(wall_time);
  const HParamTypes types = hparam_types(points);
  for (const auto& [key, values] : domains(points)) {
    auto* info = experiment->add_hparam_infos();
    info->set_name(key);
    info->set_type(data_type(types.at(key)));
    for (const auto& value : values)
      *info->mutable_domain_discrete()->add_values() = value_of(value, types.at(key));
  }
  for (const auto& metric : final_metrics()) {
    auto* info = experiment->add_metric_infos();
    info->mutable_name()->set_tag(metric.tag);
    info->set_dataset_type(metric.dataset);
  }
  return hparams_event(kExperimentTag, data, 0, wall_time);
}

proto::Event session_start_event(const SweepPoint& point, const HParamTypes& types,
                                 const std::string& group, double wall_time) {
  proto::HParamsPluginData data;
  auto* start = data.mutable_session_start_info();
  for (const auto& [key, value] : point) {
    const auto type = types.find(key);
    (*start->mutable_hparams())[key] =
        value_of(value, type == types.end() ? type_of(value) : type->second);
  }
  start->set_group_name(group);
  start->set_start_time_secs(wall_time);
  return hparams_event(kSessionStartTag, data, 0, wall_time);
}

proto::Event session_end_event(results::Status status, int64_t step, double wall_time) {
  proto::HParamsPluginData data;
  auto* end = data.mutable_session_end_info();
  end->set_status(status == results::Status::completed ? proto::STATUS_SUCCESS
                  : status == results::Status::failed  ? proto::STATUS_FAILURE
                                                       : proto::STATUS_UNKNOWN);
  end->set_end_time_secs(wall_time);
  return hparams_event(kSessionEndTag, data, step, wall_time);
}

}  // namespace runner::tensorboard
