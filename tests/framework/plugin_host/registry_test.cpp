// Tests of the registry: components by kind and name, duplicates, factories that throw.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "plugin_host/op_library.hpp"
#include "plugin_host/registry.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::plugin_host {
namespace {

using runner::testing::fixture_dir;
using runner::testing::fixture_library;

Options blobs_options() {
  Options o("dataset");
  o.set("train_size", int64_t{32});
  o.set("test_size", int64_t{8});
  o.set("classes", int64_t{3});
  o.set("dim", int64_t{3});
  o.set("read_delay_ms", int64_t{0});
  return o;
}

config::ComponentConfig component(const std::string& name, Options options) {
  return {name, std::move(options)};
}

TEST(Registry, FindsComponentsOfAFolderByKindAndName) {
  Registry registry;
  registry.load_directories({fixture_dir("good"), "/no/such/folder"});
  EXPECT_NE(registry.find(Kind::dataset, "blobs"), nullptr);
  EXPECT_EQ(registry.find(Kind::model, "blobs"), nullptr);
  EXPECT_EQ(registry.names(Kind::model),
            (std::vector<std::string>{"layered_probe", "linear_probe", "sized_probe"}));
  ASSERT_NE(registry.schema(Kind::dataset, "blobs"), nullptr);
  EXPECT_NE(registry.schema(Kind::dataset, "blobs")->find("train_size"), nullptr);
}

TEST(Registry, OnlyAModelThatRegisteredTensorParallelismHasASplitter) {
  Registry registry;
  registry.load_directories({fixture_dir("good")});
  EXPECT_TRUE(registry.tensor_splitter(component("layered_probe", Options("model"))));
  EXPECT_FALSE(registry.tensor_splitter(component("linear_probe", Options("model"))));
  // layered_probe splits without an estimate of its split: the plan cannot size it.
  EXPECT_FALSE(
      registry.estimate_split(component("layered_probe", Options("model")), ModelContext{}));
}

TEST(Registry, TheSameFolderTwiceIsReadOnce) {
  Registry registry;
  registry.load_directories({fixture_dir("good"), fixture_dir("good") + "/."});
  EXPECT_EQ(registry.folders().size(), 1u);
}

// A copy of the good fixture library in a fresh folder, with the folder's and the copy's modes.
std::string good_library_copy(const std::string& name, std::filesystem::perms folder_mode,
                              std::filesystem::perms library_mode) {
  namespace fs = std::filesystem;
  const std::string folder = runner::testing::fresh_dir(name);
  const std::string library = folder + "/fixture_good.so";
  fs::copy_file(fixture_library("good"), library);
  fs::permissions(library, library_mode);
  fs::permissions(folder, folder_mode);
  return folder;
}

TEST(Registry, AFolderEveryUserMayWriteIsSaidBeforeItsLibrariesLoad) {
  namespace fs = std::filesystem;
  const std::string folder = good_library_copy("open_folder", fs::perms::all, fs::perms(0644));
  Registry registry;
  std::vector<std::string> said;
  bool loaded_when_said = true;
  registry.set_warning_sink([&](const std::string& warning) {
    said.push_back(warning);
    loaded_when_said = registry.find(Kind::dataset, "blobs") != nullptr;
  });
  registry.load_directories({folder});
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0], "plugin folder " + fs::canonical(folder).string() +
                         " is writable by every user: code anyone puts there runs as you when "
                         "runner loads it");
  EXPECT_FALSE(loaded_when_said);
  EXPECT_EQ(registry.open_to_everyone(), said);
  EXPECT_NE(registry.find(Kind::dataset, "blobs"), nullptr) << "a warning, not a refusal";
}

TEST(Registry, ALibraryEveryUserMayWriteIsSaidAndAPrivateOneIsNot) {
  namespace fs = std::filesystem;
  const std::string open = good_library_copy("open_library", fs::perms(0755), fs::perms(0666));
  Registry open_registry;
  open_registry.load_directories({open});
  ASSERT_EQ(open_registry.open_to_everyone().size(), 1u);
  EXPECT_THAT(open_registry.open_to_everyone()[0],
              HasSubstr("plugin library " + fs::canonical(open).string() +
                        "/fixture_good.so is writable by every user"));

  const std::string closed = good_library_copy("closed_library", fs::perms(0755), fs::perms(0644));
  Registry closed_registry;
  closed_registry.load_directories({closed});
  EXPECT_TRUE(closed_registry.open_to_everyone().empty());
}

TEST(Registry, AnUnknownNameIsAConfigErrorWithASuggestion) {
  Registry registry;
  registry.load_directories({fixture_dir("good")});
  try {
    registry.get(Kind::model, "linear_prob");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_THAT(std::string(e.what()), HasSubstr("did you mean 'linear_probe'"));
    EXPECT_THAT(e.hint(), HasSubstr("linear_probe"));
  }
}

TEST(Registry, ANameRegisteredTwiceNamesBothLibraries) {
  Registry registry;
  try {
    registry.load_directories({fixture_dir("good"), fixture_dir("duplicate")});
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(e.exit_code(), 3);
    EXPECT_THAT(message, HasSubstr("dataset 'blobs' is registered twice")) << message;
    EXPECT_THAT(message, HasSubstr(fixture_library("good"))) << message;
    EXPECT_THAT(message, HasSubstr(fixture_library("duplicate"))) << message;
  }
}

TEST(Registry, AThrowingFactoryBecomesAPluginErrorNamingComponentAndLibrary) {
  Registry registry;
  registry.load_directories({fixture_dir("throwing")});
  for (const std::string name : {"exploding", "torch_error"}) {
    try {
      registry.make_model(component(name, Options("model")), ModelContext{});
      FAIL() << "no error from " << name;
    } catch (const Error& e) {
      std::string message = e.what();
      EXPECT_EQ(e.exit_code(), 3);
      EXPECT_THAT(message, HasSubstr("model '" + name + "'")) << message;
      EXPECT_THAT(message, HasSubstr(fixture_library("throwing"))) << message;
      EXPECT_THAT(message, Not(HasSubstr("\n"))) << "one line: " << message;
    }
  }
}

TEST(Registry, ARunnerErrorFromAFactoryKeepsItsClass) {
  Registry registry;
  registry.load_directories({fixture_dir("good")});
  Options o = blobs_options();
  o.set("dim", int64_t{2});
  try {
    registry.make_dataset(component("blobs", o), DatasetContext{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_THAT(std::string(e.what()), HasSubstr("dataset 'blobs'"));
  }
}

TEST(Registry, ObjectsOutliveTheRegistryThatMadeThem) {
  std::shared_ptr<Dataset> dataset;
  std::shared_ptr<Model> model;
  {
    Registry registry;
    registry.load_directories({fixture_dir("good")});
    dataset = registry.make_dataset(component("blobs", blobs_options()), DatasetContext{3});
    RegistryOpLibrary ops(registry, {});
    Options probe =
        default_options(registry.get(Kind::model, "linear_probe").component->schema, "model");
    model =
        registry.make_model(component("linear_probe", probe), ModelContext{dataset->info(), &ops});
  }
  Batch batch = dataset->get_batch(Split::train, torch::arange(4));
  EXPECT_EQ(model->forward(batch.inputs).sizes(), (std::vector<int64_t>{4, 3}));
}

TEST(OpLibrary, AnUnknownOpListsTheKnownOnes) {
  Registry registry;
  registry.load_directories({fixture_dir("good")});
  RegistryOpLibrary ops(registry, {});
  try {
    ops.get("fixture_identiti");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_THAT(std::string(e.what()), HasSubstr("did you mean 'fixture_identity'"));
    EXPECT_THAT(e.hint(), HasSubstr("fixture_identity"));
  }
  EXPECT_EQ(ops.get("fixture_identity"), ops.get("fixture_identity"));
}

TEST(OpLibrary, DefaultOptionsNeedEveryKeyToHaveADefault) {
  Schema schema;
  schema.number("alpha", 0.5, "a").text("mode", std::nullopt, "required");
  try {
    default_options(schema, "ops.x");
    ADD_FAILURE() << "a key without a default got one";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("[ops.x] needs a value for 'mode'")) << e.what();
  }
  Schema ok;
  ok.number("alpha", 0.5, "a");
  EXPECT_DOUBLE_EQ(default_options(ok, "ops.x").get_double("alpha"), 0.5);
}

}  // namespace
}  // namespace runner::plugin_host
