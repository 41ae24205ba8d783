// Hostile input of every class the runner has met, run through the binary: each ends with
// its exit code and a message that names the place at fault, never with a signal, and leaves
// any results file readable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "results/results.hpp"
#include "run_binary.hpp"

namespace runner::testing {
namespace {

struct BadInput {
  const char* name;
  // Writes what the case needs into `dir`; returns the arguments and the environment.
  std::function<std::pair<std::string, std::string>(const std::string& dir)> setup;
  int exit_code;
  const char* message;  // in stderr or stdout; "{dir}" stands for the case's folder
};

std::string plugins() { return "--plugin-path " + fixture_plugins() + " "; }

std::string experiment(const std::string& dir, const std::string& extra = "") {
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", extra));
  return dir + "/exp.toml";
}

std::string dotted_key(int levels) {
  std::string key = "a";
  for (int i = 1; i < levels; ++i) key += ".a";
  return key;
}

std::string sweep_of_five_by_100() {
  std::string sweep = "[sweep]\n";
  for (int k = 0; k < 5; ++k) {
    sweep += "\"train.k" + std::to_string(k) + "\" = [";
    for (int v = 1; v <= 100; ++v) sweep += (v > 1 ? ", " : "") + std::to_string(v);
    sweep += "]\n";
  }
  return sweep;
}

std::string truncated_plugin(const std::string& dir) {
  std::ifstream whole(fixture_plugins() + "/fixture_good.so", std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(whole), {});
  std::filesystem::create_directories(dir + "/plugins");
  std::ofstream(dir + "/plugins/cut.so", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  return dir + "/plugins";
}

const std::vector<BadInput> kCases = {
    {"op_that_throws",
     [](const std::string&) {
       return std::make_pair("--plugin-path " RUNNER_BINARY_DIR
                             "/tests/fixtures/throwing check-op fixture_refusing --repeat 1"
                             " --shapes 1x1x1x1",
                             "");
     },
     1, "refuses an input of 1 elements"},
    {"truncated_plugin",
     [](const std::string& dir) {
       return std::make_pair("--plugin-path " + truncated_plugin(dir) + " plugins", "");
     },
     3, "{dir}/plugins/cut.so: file too short"},
    {"deep_key",
     [](const std::string& dir) {
       return std::make_pair(plugins() + experiment(dir, dotted_key(50000) + " = 1\n"), "");
     },
     2, "{dir}/exp.toml:11: tables, keys and values nested"},
    {"dry_run_unbuildable",
     [](const std::string& dir) {
       return std::make_pair(plugins() + "--dry-run --set dataset.classes=5 " + experiment(dir),
                             "");
     },
     2, "dataset.dim must be >= dataset.classes"},
    {"plugin_path_file",
     [](const std::string& dir) {
       write_file(dir + "/x.so", "");
       return std::make_pair("--plugin-path " + dir + "/x.so plugins", "");
     },
     2, "{dir}/x.so is not a folder"},
    {"repeat_zero",
     [](const std::string&) { return std::make_pair("check-op relu --repeat 0", ""); }, 2,
     "--repeat: '0' is not a whole number of at least 1"},
    {"huge_sweep",
     [](const std::string& dir) {
       return std::make_pair(plugins() + experiment(dir, sweep_of_five_by_100()), "");
     },
     2, "[sweep] expands to 10000000000 runs"},
    {"bad_master_port",
     [](const std::string& dir) {
       return std::make_pair(plugins() + experiment(dir, "[strategy]\nname = \"ddp\"\n"
                                                         "world_size = 2\n"),
                             "MASTER_PORT=abc");
     },
     2, "MASTER_PORT = \"abc\" is not a port"},
    {"full_disk",
     [](const std::string& dir) {
       return std::make_pair(plugins() + "--set train.epochs=50 " + experiment(dir),
                             "LD_PRELOAD=" RUNNER_BINARY_DIR
                             "/tests/fixtures/full_disk/full_disk.so RUNNER_FULL_DISK_FILE=" +
                                 dir + "/r.h5 RUNNER_FULL_DISK_BYTES=40000");
     },
     4, "no space left on {dir}/r.h5"},
};

std::string with_dir(std::string text, const std::string& dir) {
  const size_t at = text.find("{dir}");
  if (at != std::string::npos) text.replace(at, 5, dir);
  return text;
}

TEST(BadInput, EachClassEndsWithItsCodeAndALocatedMessage) {
  for (const BadInput& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string dir = scratch_dir(std::string("bad_input_") + c.name);
    const auto [args, environment] = c.setup(dir);
    const Output o = run_runner(args, environment);
    EXPECT_LT(o.exit_code, 128) << "ended by a signal\n" << o.err;
    EXPECT_EQ(o.exit_code, c.exit_code) << o.out << o.err;
    const std::string message = with_dir(c.message, dir);
    EXPECT_NE((o.err + o.out).find(message), std::string::npos)
        << "'" << message << "' missing from\n" << o.err << o.out;
    if (std::filesystem::exists(dir + "/r.h5")) {
      EXPECT_NO_THROW(results::read_runs(dir + "/r.h5"));
      for (const auto& run : results::read_runs(dir + "/r.h5"))
        EXPECT_NE(run.status, results::Status::running) << "a run left running";
    }
  }
}

}  // namespace
}  // namespace runner::testing
