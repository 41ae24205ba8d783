// Hostile input of every class the runner has met (config, data, plugin, results, training
// fault, distributed fault, check-op), run through the binary: each ends with its exit code and
// a message that names the place at fault, never with a signal, leaves no process behind, and
// leaves any results file readable with every epoch that finished before the fault.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

struct BadInput {
  const char* name;
  // Writes what the case needs into `dir`; returns the arguments and the environment.
  std::function<std::pair<std::string, std::string>(const std::string& dir)> setup;
  int exit_code;
  const char* message;       // in stderr or stdout; "{dir}" stands for the case's folder
  int finished_epochs = -1;  // the epochs its one run must have recorded (-1: not checked)
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

// The two IDX files of one split: `images` images of 28x28 (of which only `pixels` bytes are
// written) and `images` labels.
void write_idx_split(const std::string& dir, const std::string& prefix, uint32_t images,
                     size_t pixels) {
  auto big_endian = [](uint32_t v) {
    return std::string{char(v >> 24), char(v >> 16 & 0xff), char(v >> 8 & 0xff), char(v & 0xff)};
  };
  write_file(dir + "/" + prefix + "-images-idx3-ubyte", big_endian(2051) + big_endian(images) +
                                                            big_endian(28) + big_endian(28) +
                                                            std::string(pixels, '\x7f'));
  write_file(dir + "/" + prefix + "-labels-idx1-ubyte",
             big_endian(2049) + big_endian(images) + std::string(images, '\x03'));
}

std::string mnist_with_truncated_images(const std::string& dir) {
  std::filesystem::create_directories(dir + "/mnist");
  write_idx_split(dir + "/mnist", "train", 10, 100);
  write_idx_split(dir + "/mnist", "t10k", 10, size_t{10} * 28 * 28);
  write_file(dir + "/exp.toml", "[experiment]\nname = \"bad_data\"\nresults = \"" + dir +
                                    "/r.h5\"\n[dataset]\nname = \"mnist\"\ndata_dir = \"" + dir +
                                    "/mnist\"\n[model]\nname = \"lenet5\"\n");
  return dir + "/exp.toml";
}

// One record of each CIFAR-10 file; the second record of data_batch_1.bin has label 10.
std::string cifar_with_a_bad_label(const std::string& dir) {
  const std::string folder = dir + "/cifar";
  std::filesystem::create_directories(folder);
  const std::string record = '\x01' + std::string(3072, '\x10');
  for (const char* name : {"data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
                           "data_batch_5.bin", "test_batch.bin"})
    write_file(folder + "/" + name, record);
  write_file(folder + "/data_batch_1.bin", record + '\x0a' + std::string(3072, '\x10'));
  write_file(dir + "/exp.toml", "[experiment]\nname = \"bad_data\"\nresults = \"" + dir +
                                    "/r.h5\"\n[dataset]\nname = \"cifar10\"\ndata_dir = \"" +
                                    folder + "\"\n[model]\nname = \"lenet5\"\n");
  return dir + "/exp.toml";
}

std::string copy_of(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to);
  return to;
}

// 512 samples in batches of 32: 16 steps an epoch, so step 20 falls in the second epoch.
std::string failing_in_epoch_2(const std::string& dir, const std::string& how,
                               const std::string& strategy) {
  std::string text = blobs_experiment(dir + "/r.h5", "threads = 1\n" + strategy);
  text.replace(text.find("epochs = 1"), 10, "epochs = 3");
  text.replace(
      text.find("name = \"linear_probe\"\n"), 22,
      "name = \"linear_probe\"\nfail_at_step = 20\nfail_on_rank = 1\nfail_how = \"" + how + "\"\n");
  write_file(dir + "/exp.toml", text);
  return plugins() + dir + "/exp.toml";
}

std::string fifo_experiment(const std::string& dir) {
  EXPECT_EQ(mkfifo((dir + "/exp.toml").c_str(), 0600), 0);
  return plugins() + dir + "/exp.toml";
}

// A swept value of 1 MiB: its message quotes 200 characters of it.
std::string megabyte_device(const std::string& dir) {
  return plugins() +
         experiment(dir, "[sweep]\n\"train.device\" = [\"" + std::string(1 << 20, 'x') + "\"]\n");
}

// GPT-2 tiny cut into more pipeline stages than it has layers.
std::string pipeline_deeper_than_the_model(const std::string& dir) {
  write_file(dir + "/exp.toml",
             "[experiment]\nname = \"deep_pipeline\"\nresults = \"" + dir +
                 "/r.h5\"\n[dataset]\nname = \"random_tokens\"\nsize = 64\ntest_size = 16\n"
                 "seq_len = 16\nvocab_size = 64\n[model]\nname = \"gpt2\"\npreset = \"tiny\"\n"
                 "[strategy]\nname = \"pipeline\"\nworld_size = 64\nstages = 64\n");
  return "--dry-run " + dir + "/exp.toml";
}

// A plugin folder holding a symbolic link to itself named like a library.
std::string plugin_folder_with_a_link_loop(const std::string& dir) {
  std::filesystem::create_directories(dir + "/plugins");
  std::filesystem::create_symlink("loop.so", dir + "/plugins/loop.so");
  return "--plugin-path " + dir + "/plugins plugins";
}

const char* const kResultsCorpus = RUNNER_SOURCE_DIR "/tests/fuzz/corpus/results/";

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
    {"dry_run_more_stages_than_layers",
     [](const std::string& dir) { return std::make_pair(pipeline_deeper_than_the_model(dir), ""); },
     2, "strategy.stages: 64 pipeline stages need at least as many layers; the model lists"},
    {"gpt2_beyond_any_machine",
     [](const std::string& dir) {
       return std::make_pair("--set model.layers=1000000000 " + pipeline_deeper_than_the_model(dir),
                             "");
     },
     2, "has 5e+13 parameters, more than the 1e12 any machine here can hold"},
    {"plugin_symlink_loop",
     [](const std::string& dir) { return std::make_pair(plugin_folder_with_a_link_loop(dir), ""); },
     3, "{dir}/plugins/loop.so: Too many levels of symbolic links"},
    {"plugin_path_file",
     [](const std::string& dir) {
       write_file(dir + "/x.so", "");
       return std::make_pair("--plugin-path " + dir + "/x.so plugins", "");
     },
     2, "{dir}/x.so is not a folder"},
    {"experiment_fifo",
     [](const std::string& dir) { return std::make_pair(fifo_experiment(dir), ""); }, 2,
     "{dir}/exp.toml: is a FIFO, not a file"},
    {"experiment_dev_zero",
     [](const std::string&) { return std::make_pair(plugins() + "/dev/zero", ""); }, 2,
     "/dev/zero: is a character device, not a file"},
    {"threads_beyond_any_machine",
     [](const std::string& dir) {
       return std::make_pair(plugins() + "--set train.threads=100000 " + experiment(dir), "");
     },
     2, "train.threads = 100000 is out of range: it must be between 0 and 1024"},
    {"megabyte_value",
     [](const std::string& dir) { return std::make_pair(megabyte_device(dir), ""); }, 2,
     "... (1048576 characters) is not one of cpu, cuda, auto"},
    {"repeat_zero",
     [](const std::string&) { return std::make_pair("check-op relu --repeat 0", ""); }, 2,
     "--repeat: '0' is not a whole number from 1 to 100000"},
    {"nproc_not_a_number",
     [](const std::string& dir) {
       return std::make_pair(plugins() + "--nproc abc " + experiment(dir), "");
     },
     2, "--nproc: 'abc' is not a whole number from 1 to 4096"},
    {"resume_empty_folder",
     [](const std::string& dir) {
       std::filesystem::create_directories(dir + "/empty");
       return std::make_pair(plugins() + experiment(dir) + " --resume " + dir + "/empty", "");
     },
     2,
     "--resume {dir}/empty: the folder holds no checkpoint (no manifest.json) and no "
     "checkpoints of this experiment's runs"},
    {"resume_system_folder",
     [](const std::string& dir) {
       return std::make_pair(plugins() + experiment(dir) + " --resume /etc", "");
     },
     2, "--resume /etc: the folder holds no checkpoint"},
    {"huge_sweep",
     [](const std::string& dir) {
       return std::make_pair(plugins() + experiment(dir, sweep_of_five_by_100()), "");
     },
     2, "[sweep] expands to 10000000000 runs"},
    {"bad_master_port",
     [](const std::string& dir) {
       return std::make_pair(plugins() + experiment(dir,
                                                    "[strategy]\nname = \"ddp\"\n"
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
    {"data_truncated_idx",
     [](const std::string& dir) { return std::make_pair(mnist_with_truncated_images(dir), ""); }, 4,
     "{dir}/mnist/train-images-idx3-ubyte: truncated: the header declares 10 x 28 x 28 = 7840 "
     "bytes of data, found 100"},
    {"data_cifar_label",
     [](const std::string& dir) { return std::make_pair(cifar_with_a_bad_label(dir), ""); }, 4,
     "{dir}/cifar/data_batch_1.bin: record 1 (byte 3073) has label 10"},
    {"results_not_hdf5",
     [](const std::string& dir) {
       return std::make_pair(
           "report " + copy_of(std::string(kResultsCorpus) + "not_hdf5.bin", dir + "/old.h5"), "");
     },
     4, "{dir}/old.h5: not an HDF5 file"},
    {"results_damaged_heap",
     [](const std::string& dir) {
       return std::make_pair(
           "report " + copy_of(std::string(kResultsCorpus) + "hdf5_heap_loop.h5", dir + "/old.h5"),
           "");
     },
     4, "{dir}/old.h5: damaged: the global heap at byte"},
    {"training_fault",
     [](const std::string& dir) {
       return std::make_pair(failing_in_epoch_2(dir, "throw",
                                                "[strategy]\nworld_size = 2\n"
                                                "name = \"ddp\"\n"),
                             "");
     },
     3, "rank 1 failed: training step 20 failed", 1},
    {"distributed_killed_rank",
     [](const std::string& dir) {
       return std::make_pair(failing_in_epoch_2(dir, "kill",
                                                "[strategy]\nworld_size = 2\n"
                                                "name = \"ddp\"\ntimeout_s = 20\n"),
                             "");
     },
     5, "rank 1 was killed by signal 9 (SIGKILL)", 1},
};

std::string with_dir(std::string text, const std::string& dir) {
  const size_t at = text.find("{dir}");
  if (at != std::string::npos) text.replace(at, 5, dir);
  return text;
}

// No process whose command line names the case's folder may outlive the command. The bracket
// keeps the pattern from matching the shell that runs pgrep, whose command line holds it.
bool processes_left(const std::string& dir) {
  const std::string pattern = "[" + dir.substr(0, 1) + "]" + dir.substr(1);
  return std::system(("pgrep -f '" + pattern + "' >/dev/null").c_str()) == 0;
}

void expect_results_readable(const std::string& path, int finished_epochs) {
  if (!std::filesystem::exists(path)) {
    EXPECT_EQ(finished_epochs, -1) << "no results file, though epochs had finished";
    return;
  }
  std::vector<results::RunRecord> runs;
  ASSERT_NO_THROW(runs = results::read_runs(path));
  for (const auto& run : runs) EXPECT_NE(run.status, results::Status::running) << "left running";
  if (finished_epochs < 0) return;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].epochs.size(), static_cast<size_t>(finished_epochs));
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
    EXPECT_THAT((o.err + o.out), HasSubstr(message)) << "'" << message << "' missing from\n"
                                                     << o.err << o.out;
    EXPECT_FALSE(processes_left(dir));
    expect_results_readable(dir + "/r.h5", c.finished_epochs);
  }
}

TEST(BadInput, AMegabyteValueIsQuotedInAFewHundredCharacters) {
  const std::string dir = scratch_dir("bad_input_megabyte_quote");
  const Output o = run_runner(megabyte_device(dir), "");
  EXPECT_EQ(o.exit_code, 2) << o.err.substr(0, 2000);
  EXPECT_LT(o.err.size(), 2000u) << o.err.substr(0, 2000);
}

}  // namespace
}  // namespace runner::testing
