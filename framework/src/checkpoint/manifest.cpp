// manifest.json to and from a Manifest, refusing other checkpoint format versions.
#include "checkpoint/manifest.hpp"

#include <fstream>
#include <sstream>

#include "common/file_kind.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

using nlohmann::json;

json shard_json(const ShardRecord& shard) {
  return {{"rank", shard.rank},
          {"file", shard.file},
          {"bytes", shard.digest.bytes},
          {"crc32", shard.digest.crc32}};
}

ShardRecord shard_of(const json& item) {
  return {item.at("rank").get<int>(),
          item.at("file").get<std::string>(),
          {item.at("bytes").get<uint64_t>(), item.at("crc32").get<uint32_t>()}};
}

// Where training stood, as any run could have stood: an epoch from 1, steps from 0, and no more
// steps in the epoch than in the run.
void check_progress(const Progress& p, const std::string& path) {
  const auto refuse = [&](const std::string& what) {
    throw DataError(path + ": " + what + " is impossible", "the manifest was edited or damaged");
  };
  if (p.epoch < 1) refuse("progress.epoch = " + std::to_string(p.epoch));
  if (p.step_in_epoch < 0) refuse("progress.step_in_epoch = " + std::to_string(p.step_in_epoch));
  if (p.global_step < p.step_in_epoch)
    refuse("progress.global_step = " + std::to_string(p.global_step) +
           " below step_in_epoch = " + std::to_string(p.step_in_epoch));
}

Manifest manifest_of(const json& j, const std::string& path) {
  Manifest m;
  m.format_version = j.at("format_version").get<int>();
  if (m.format_version != kFormatVersion)
    throw DataError(path + " is a checkpoint of format " + std::to_string(m.format_version) +
                        " (written by runner " + j.value("runner_version", "?") +
                        "); this runner reads format " + std::to_string(kFormatVersion),
                    "resume it with the runner that wrote it, or start the run afresh");
  m.runner_version = j.at("runner_version").get<std::string>();
  m.experiment = j.at("experiment").get<std::string>();
  m.run_id = j.at("run_id").get<std::string>();
  m.model = j.at("model").get<std::string>();
  m.strategy = j.at("strategy").get<std::string>();
  m.world_size = j.at("world_size").get<int>();
  const json& p = j.at("progress");
  m.progress = {p.at("global_step").get<int64_t>(), p.at("epoch").get<int64_t>(),
                p.at("step_in_epoch").get<int64_t>()};
  m.engine = j.at("engine");
  m.weights_only = j.value("weights_only", false);  // absent before final weights were kept
  check_progress(m.progress, path);
  for (const auto& item : j.at("shards")) {
    m.shards.push_back(shard_of(item));
    const ShardRecord& shard = m.shards.back();
    if (shard.file.empty() || shard.file.find('/') != std::string::npos || shard.file[0] == '.')
      throw DataError(path + " names a shard outside its folder: \"" + shard.file + "\"");
    if (shard.rank != static_cast<int>(m.shards.size()) - 1)
      throw DataError(path + " lists rank " + std::to_string(shard.rank) + "'s shard in place " +
                      std::to_string(m.shards.size() - 1) + ": shards are listed by rank");
  }
  m.written_at = j.value("written_at", "");
  if (m.world_size < 1 || static_cast<int>(m.shards.size()) != m.world_size)
    throw DataError(path + " lists " + std::to_string(m.shards.size()) + " shards for " +
                    std::to_string(m.world_size) + " ranks");
  return m;
}

}  // namespace

std::string manifest_text(const Manifest& m) {
  json shards = json::array();
  for (const auto& shard : m.shards) shards.push_back(shard_json(shard));
  const json j = {{"format", "runner-checkpoint"},
                  {"format_version", m.format_version},
                  {"runner_version", m.runner_version},
                  {"experiment", m.experiment},
                  {"run_id", m.run_id},
                  {"model", m.model},
                  {"strategy", m.strategy},
                  {"world_size", m.world_size},
                  {"progress",
                   {{"global_step", m.progress.global_step},
                    {"epoch", m.progress.epoch},
                    {"step_in_epoch", m.progress.step_in_epoch}}},
                  {"engine", m.engine},
                  {"weights_only", m.weights_only},
                  {"shards", shards},
                  {"written_at", m.written_at}};
  return j.dump(2) + "\n";
}

Manifest read_manifest(const std::string& path) {
  refuse_special_input(path, "a checkpoint manifest");
  std::ifstream in(path);
  if (!in) throw DataError("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    const json j = json::parse(text.str());
    if (j.value("format", "") != "runner-checkpoint")
      throw DataError(path + " is not a runner checkpoint manifest");
    return manifest_of(j, path);
  } catch (const json::exception& e) {
    throw DataError(path + " is damaged: " + e.what());
  }
}

}  // namespace runner::checkpoint
