// load_experiment(): the same as parse_experiment, from a file on disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
  EXPECT_EQ(e.runs[0].train.get_int("epochs"), 2);
  EXPECT_EQ(e.runs[0].train.get_int("batch_size"), 32);
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
    EXPECT_TRUE(Contains(e.what(), dir_.string() + ": the experiment file is not a regular file"));
  }
}

}  // namespace
}  // namespace runner::config
