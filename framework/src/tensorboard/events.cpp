// The Events runner writes: the file version, a start marker, scalars and plugin summaries.
#include "tensorboard/events.hpp"

#include <chrono>

namespace runner::tensorboard {

double wall_time_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

proto::Event file_version_event(double wall_time) {
  proto::Event event;
  event.set_wall_time(wall_time);
  event.set_file_version(kFileVersion);
  return event;
}

proto::Event start_event(int64_t step, double wall_time) {
  proto::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  event.mutable_session_log()->set_status(proto::SessionLog::START);
  return event;
}

proto::Event scalars_event(const std::vector<Scalar>& scalars, int64_t step, double wall_time) {
  proto::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  for (const auto& scalar : scalars) {
    auto* value = event.mutable_summary()->add_value();
    value->set_tag(scalar.tag);
    value->set_simple_value(static_cast<float>(scalar.value));
  }
  return event;
}

proto::Event plugin_event(const std::string& tag, const std::string& plugin,
                          const std::string& content, int64_t step, double wall_time) {
  proto::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  auto* value = event.mutable_summary()->add_value();
  value->set_tag(tag);
  auto* plugin_data = value->mutable_metadata()->mutable_plugin_data();
  plugin_data->set_plugin_name(plugin);
  plugin_data->set_content(content);
  return event;
}

}  // namespace runner::tensorboard
