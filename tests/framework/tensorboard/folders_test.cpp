// The folders of the event files: names safe as one path component, a folder that cannot be
// made, and file names that sort in the order the files were made.
#include "tensorboard/folders.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "event_reading.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::tensorboard {
namespace {

using runner::testing::message_of;

TEST(PathPart, KeepsALabelReadableAndOnePathComponent) {
  EXPECT_EQ(path_part("train.batch_size=32 model.activation=relu"),
            "train.batch_size=32,model.activation=relu");
  EXPECT_EQ(path_part("strategy={name = \"zero\"}/x"), "strategy=_name,=,_zero___x");
  EXPECT_EQ(path_part(".."), "_..");
  EXPECT_EQ(path_part(""), "_");
  EXPECT_EQ(path_part(std::string(500, 'a')).size(), 120u);
}

TEST(Folders, AreTheExperimentThenLabelAndGroup) {
  EXPECT_EQ(experiment_folder("runs", "lenet sweep"), "runs/lenet,sweep");
  EXPECT_EQ(run_folder("runs/x", "optimizer.lr=0.1", "0123456789ab.2"),
            "runs/x/optimizer.lr=0.1-0123456789ab.2");
  EXPECT_EQ(run_folder("runs/x", "", "0123456789ab"), "runs/x/0123456789ab");
}

TEST(Folders, ThatCannotBeMadeAreADataErrorNamingThem) {
  const std::string scratch = testing::scratch_folder("in_the_way");
  std::ofstream(scratch + "/file") << "a file";
  const std::string folder = scratch + "/file/runs";
  const std::string message = message_of<DataError>([&] { create_folder(folder); });
  EXPECT_THAT(message, HasSubstr("cannot create the TensorBoard folder " + folder)) << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
  const std::string blocked = scratch + "/file";
  EXPECT_THAT(message_of<DataError>([&] { create_folder(blocked); }), HasSubstr(blocked));
}

TEST(EventFileNames, SortInTheOrderTheFilesWereMade) {
  const std::string folder = testing::scratch_folder("names");
  std::vector<std::string> made;
  for (int i = 0; i < 3; ++i) {
    made.push_back(new_event_file_path(folder));
    std::ofstream(made.back()) << i;
  }
  EXPECT_EQ(testing::event_files(folder), made);
  const std::string name = std::filesystem::path(made[0]).filename().string();
  EXPECT_EQ(name.rfind("events.out.tfevents.", 0), 0u) << name;
  EXPECT_EQ(name.substr(name.size() - 2), ".0") << name;
}

}  // namespace
}  // namespace runner::tensorboard
