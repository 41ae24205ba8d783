// load_experiment(): the same as parse_experiment, from a file on disk.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "config/experiment_file.hpp"
#include "config/load_experiment.hpp"
#include "test_support.hpp"

namespace runner::config {
namespace {

namespace fs = std::filesystem;
using test::Contains;

class LoadExperiment : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("runner_config_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  fs::path dir_;
  test::FakeSchemas schemas_;
};

TEST_F(LoadExperiment, ReadsTheFileAndNamesTheExperimentAfterIt) {
  const std::string path = write("quickstart.toml", test::kMinimal + "[train]\nepochs = 2\n");
  const Experiment e = load_experiment(path, {"train.batch_size=32"}, schemas_);
  EXPECT_EQ(e.name, "quickstart");
  EXPECT_EQ(e.file, path);
  ASSERT_EQ(e.runs.size(), 1u);
  EXPECT_EQ(e.runs[0].train.epochs, 2);
  EXPECT_EQ(e.runs[0].train.batch_size, 32);
  EXPECT_EQ(e.runs[0].id, load_experiment(path, {"train.batch_size=32"}, schemas_).runs[0].id);
}

TEST_F(LoadExperiment, ErrorsNameTheFilesPath) {
  const std::string path = write("broken.toml", test::kMinimal + "[train]\nepoch = 2\n");
  try {
    load_experiment(path, {}, schemas_);
    ADD_FAILURE() << "no error for an unknown key";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(Contains(e.what(), path + ":7:1: unknown key train.epoch; did you mean 'epochs'?"));
  }
}

TEST_F(LoadExperiment, AMissingFileIsAConfigErrorNamingIt) {
  const std::string path = (dir_ / "absent.toml").string();
  try {
    load_experiment(path, {}, schemas_);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(Contains(e.what(), path + ": the experiment file does not exist"));
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST_F(LoadExperiment, AFolderIsNotAnExperimentFile) {
  try {
    load_experiment(dir_.string(), {}, schemas_);
    ADD_FAILURE() << "no error for a folder";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": is a folder, not a file");
  }
}

// The error of loading `path`, which must come well under a second. A FIFO once blocked the
// open forever: should the load block, a writer opens the FIFO and closes it, which ends the
// read, so that the test fails instead of hanging.
std::string quick_error(const std::string& path, const SchemaSource& schemas) {
  auto load = std::async(std::launch::async, [&] {
    try {
      load_experiment(path, {}, schemas);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  });
  if (load.wait_for(std::chrono::milliseconds(500)) == std::future_status::timeout) {
    ADD_FAILURE() << "loading " << path << " took over half a second";
    ::close(::open(path.c_str(), O_WRONLY | O_NONBLOCK));
  }
  return load.get();
}

TEST_F(LoadExperiment, AFifoIsRefusedWithoutOpeningIt) {
  const std::string path = (dir_ / "fifo.toml").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(quick_error(path, schemas_), path + ": is a FIFO, not a file");
}

TEST_F(LoadExperiment, ADeviceIsRefusedWithoutReadingIt) {
  EXPECT_EQ(quick_error("/dev/zero", schemas_), "/dev/zero: is a character device, not a file");
}

TEST_F(LoadExperiment, AFileOverTheSizeLimitIsRefusedBeforeItIsRead) {
  const std::string path = write("huge.toml", "");
  fs::resize_file(path, kMaxExperimentFileBytes + 1);  // sparse: no disk is written
  EXPECT_EQ(quick_error(path, schemas_),
            path + ": is " + std::to_string(kMaxExperimentFileBytes + 1) +
                " bytes, more than the " + std::to_string(kMaxExperimentFileBytes) +
                " an experiment file may have");
}

TEST_F(LoadExperiment, AFileAtTheSizeLimitIsRead) {
  const std::string path = write("zeros.toml", "");
  fs::resize_file(path, kMaxExperimentFileBytes);
  try {
    load_experiment(path, {}, schemas_);
    ADD_FAILURE() << "no error for a file of zero bytes";
  } catch (const ConfigError& e) {
    // Read, and refused by the TOML parser at its first byte.
    EXPECT_TRUE(Contains(e.what(), path + ":1:1: "));
  }
}

}  // namespace
}  // namespace runner::config
