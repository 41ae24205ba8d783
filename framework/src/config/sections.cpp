// Splitting dotted keys, the known sections, and which host schema owns a section.
#include "config/sections.hpp"

#include <algorithm>

#include "config/experiment.hpp"
#include "config/host_schemas.hpp"

namespace runner::config {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = text.find(separator, start)) != std::string::npos; start = end + 1)
    parts.push_back(text.substr(start, end - start));
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::optional<DottedKey> split_dotted_key(const std::string& dotted) {
  std::vector<std::string> parts = split(dotted, '.');
  for (const auto& part : parts)
    if (part.empty()) return std::nullopt;
  if (parts[0] == "ops" && parts.size() == 3) return DottedKey{"ops." + parts[1], parts[2]};
  if (parts[0] != "ops" && parts.size() == 2) return DottedKey{parts[0], parts[1]};
  return std::nullopt;
}

const std::vector<std::string>& known_sections() {
  static const std::vector<std::string> sections = {"experiment", "train", "optimizer", "schedule",
                                                    "checkpoint", "fault", "dataset",   "model",
                                                    "strategy",   "ops",   "sweep"};
  return sections;
}

bool is_augment_key(const std::string& dotted) {
  const std::string augment = "dataset.augment";
  return dotted.rfind(augment, 0) == 0 &&
         (dotted.size() == augment.size() || dotted[augment.size()] == '.' ||
          dotted[augment.size()] == '[');
}

bool is_op_section(const std::string& section) {
  return section.rfind("ops.", 0) == 0 && section.size() > 4;
}

std::string op_of_section(const std::string& section) { return section.substr(4); }

bool is_settings_section(const std::string& section) {
  if (is_op_section(section)) return true;
  return section != "ops" && section != "sweep" &&
         std::find(known_sections().begin(), known_sections().end(), section) !=
             known_sections().end();
}

const Schema* host_schema(const std::string& section) {
  if (section == "experiment") return &experiment_schema();
  if (section == "train") return &train_schema();
  if (section == "optimizer") return &optimizer_schema();
  if (section == "schedule") return &schedule_schema();
  if (section == "checkpoint") return &checkpoint_schema();
  if (section == "fault") return &fault_schema();
  return nullptr;
}

std::string header(const std::string& section) { return "[" + section + "]"; }

}  // namespace runner::config
