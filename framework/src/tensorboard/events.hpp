// The events runner writes, as TensorBoard's protobuf messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorboard/proto/event.pb.h"

namespace runner::tensorboard {

inline constexpr const char* kFileVersion = "brain.Event:2";

// Seconds since the Unix epoch, with the clock's fraction.
double wall_time_now();

struct Scalar {
  std::string tag;
  double value = 0;  // stored as float32, TensorBoard's simple_value
};

// The first event of every file.
proto::Event file_version_event(double wall_time);

// The run (re)starts at `step`: TensorBoard drops what it read of this run at `step` or later.
proto::Event start_event(int64_t step, double wall_time);

proto::Event scalars_event(const std::vector<Scalar>& scalars, int64_t step, double wall_time);

// One value of a plugin's own data: `content` is the plugin's serialized message.
proto::Event plugin_event(const std::string& tag, const std::string& plugin,
                          const std::string& content, int64_t step, double wall_time);

}  // namespace runner::tensorboard
