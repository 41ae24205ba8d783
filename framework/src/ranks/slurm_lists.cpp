// Parsing Slurm's compressed node lists and tasks per node.
#include "ranks/slurm_lists.hpp"

#include <cctype>

#include "ranks/environment_reader.hpp"
#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos;
       at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// "01-03" or "07".
bool is_range(const std::string& range) {
  std::size_t dash = range.find('-');
  if (dash == std::string::npos) return all_digits(range);
  return all_digits(range.substr(0, dash)) && all_digits(range.substr(dash + 1));
}

// The inside of a bracket: "01-03,07".
bool is_range_list(const std::string& ranges) {
  for (const std::string& range : split(ranges, ','))
    if (!is_range(range)) return false;
  return true;
}

// One pass over a node list: its first host, or what is wrong with it.
struct NodelistScan {
  std::string first_host;
  std::string problem;
};

NodelistScan scan_nodelist(const std::string& nodelist) {
  if (nodelist.empty()) return {"", "is empty"};
  std::vector<std::string> hosts(1);
  for (std::size_t at = 0; at < nodelist.size(); ++at) {
    char c = nodelist[at];
    if (c == ']') return {"", "has a \"]\" without its \"[\""};
    if (c == ',') {
      if (hosts.back().empty()) return {"", "has an empty host"};
      hosts.emplace_back();
    } else if (c == '[') {
      std::size_t close = nodelist.find_first_of("[]", at + 1);
      if (close == std::string::npos || nodelist[close] == '[')
        return {"", "has an unclosed \"[\""};
      std::string ranges = nodelist.substr(at + 1, close - at - 1);
      if (!is_range_list(ranges))
        return {"", "has a bracket that is not numbers and ranges: \"[" + ranges + "]\""};
      hosts.back() += ranges.substr(0, ranges.find_first_of(",-"));
      at = close;
    } else {
      hosts.back() += c;
    }
  }
  if (hosts.back().empty()) return {"", "has an empty host"};
  return {hosts.front(), ""};
}

// A count as Slurm writes it: digits only.
std::optional<int> parse_count(const std::string& text) {
  if (!all_digits(text)) return std::nullopt;
  return parse_int(text);
}

// "2(x3)" -> {2, 3}, "1" -> {1, 1}.
std::optional<TaskGroup> parse_task_group(const std::string& item) {
  std::size_t open = item.find("(x");
  if (open == std::string::npos) {
    std::optional<int> tasks = parse_count(item);
    if (!tasks) return std::nullopt;
    return TaskGroup{*tasks, 1};
  }
  if (item.back() != ')') return std::nullopt;
  std::optional<int> tasks = parse_count(item.substr(0, open));
  std::optional<int> nodes = parse_count(item.substr(open + 2, item.size() - open - 3));
  if (!tasks || !nodes) return std::nullopt;
  return TaskGroup{*tasks, *nodes};
}

}  // namespace

std::string nodelist_problem(const std::string& nodelist) {
  return scan_nodelist(nodelist).problem;
}

std::string first_slurm_host(const std::string& nodelist) {
  NodelistScan scan = scan_nodelist(nodelist);
  if (!scan.problem.empty())
    throw ConfigError("Slurm node list " + quoted(nodelist) + " " + scan.problem);
  return scan.first_host;
}

std::optional<std::vector<TaskGroup>> parse_tasks_per_node(const std::string& list) {
  std::vector<TaskGroup> groups;
  for (const std::string& item : split(list, ',')) {
    std::optional<TaskGroup> group = parse_task_group(item);
    if (!group) return std::nullopt;
    groups.push_back(*group);
  }
  return groups;
}

std::optional<int> tasks_on_node(const std::vector<TaskGroup>& groups, int node) {
  for (const TaskGroup& group : groups) {
    if (node < group.nodes) return group.tasks;
    node -= group.nodes;
  }
  return std::nullopt;
}

}  // namespace runner::ranks
