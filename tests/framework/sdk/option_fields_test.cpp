// OptionFields: one list of keys gives the schema (defaults from the struct) and the reading of
// a run's values into the struct, in the order the keys are declared.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner/option_fields.hpp>

using ::testing::HasSubstr;

namespace runner {
namespace {

enum class Mode { fast, exact };

struct ToyOptions {
  bool overlap = true;
  int stages = 2;
  int64_t width = 64;
  double rate = 0.5;
  std::string name = "toy";
  std::vector<int64_t> widths{8, 4};
  std::vector<double> scales{1.5};
  std::vector<std::string> tags;
  Mode mode = Mode::fast;
  int64_t untouched = 7;  // no key
};

OptionFields<ToyOptions> toy_fields() {
  OptionFields<ToyOptions> f;
  f.flag("overlap", &ToyOptions::overlap, "overlap doc");
  f.integer("stages", &ToyOptions::stages, "stages doc", 1, 8);
  f.integer("width", &ToyOptions::width, "width doc", 1);
  f.number("rate", &ToyOptions::rate, "rate doc", 0, 1);
  f.text("name", &ToyOptions::name, "name doc", {"toy", "real"});
  f.integers("widths", &ToyOptions::widths, "widths doc", 1);
  f.numbers("scales", &ToyOptions::scales, "scales doc");
  f.texts("tags", &ToyOptions::tags, "tags doc");
  f.custom({"mode",
            KeyType::string,
            std::string("fast"),
            "mode doc",
            std::nullopt,
            std::nullopt,
            {"fast", "exact"}},
           [](ToyOptions& out, const Options& options, const std::string& key) {
             out.mode = options.get_string(key) == "exact" ? Mode::exact : Mode::fast;
           });
  return f;
}

Options all_set() {
  Options options("model");
  options.set("overlap", false);
  options.set("stages", int64_t{5});
  options.set("width", int64_t{3});
  options.set("rate", 0.25);
  options.set("name", std::string("real"));
  options.set("widths", std::vector<int64_t>{1, 2, 3});
  options.set("scales", std::vector<double>{2.0, 3.0});
  options.set("tags", std::vector<std::string>{"a"});
  options.set("mode", std::string("exact"));
  return options;
}

TEST(OptionFields, SchemaListsTheKeysInOrderWithTheStructsInitialValuesAsDefaults) {
  const Schema schema = toy_fields().schema();
  EXPECT_EQ(schema.names(), (std::vector<std::string>{"overlap", "stages", "width", "rate", "name",
                                                      "widths", "scales", "tags", "mode"}));
  EXPECT_EQ(std::get<bool>(*schema.find("overlap")->default_value), true);
  EXPECT_EQ(std::get<int64_t>(*schema.find("stages")->default_value), 2);
  EXPECT_EQ(schema.find("stages")->min, 1.0);
  EXPECT_EQ(schema.find("stages")->max, 8.0);
  EXPECT_EQ(std::get<double>(*schema.find("rate")->default_value), 0.5);
  EXPECT_EQ(std::get<std::string>(*schema.find("name")->default_value), "toy");
  EXPECT_EQ(schema.find("name")->choices, (std::vector<std::string>{"toy", "real"}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(*schema.find("widths")->default_value),
            (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(std::get<std::vector<double>>(*schema.find("scales")->default_value),
            (std::vector<double>{1.5}));
  EXPECT_TRUE(std::get<std::vector<std::string>>(*schema.find("tags")->default_value).empty());
  EXPECT_EQ(schema.find("mode")->doc, "mode doc");
  EXPECT_EQ(schema.find("width")->type, KeyType::integer);
  EXPECT_EQ(schema.find("scales")->type, KeyType::number_list);
}

TEST(OptionFields, ReadStoresEveryKeysValueInItsMember) {
  const ToyOptions read = toy_fields().read(all_set());
  EXPECT_FALSE(read.overlap);
  EXPECT_EQ(read.stages, 5);
  EXPECT_EQ(read.width, 3);
  EXPECT_EQ(read.rate, 0.25);
  EXPECT_EQ(read.name, "real");
  EXPECT_EQ(read.widths, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(read.scales, (std::vector<double>{2.0, 3.0}));
  EXPECT_EQ(read.tags, (std::vector<std::string>{"a"}));
  EXPECT_EQ(read.mode, Mode::exact);
  EXPECT_EQ(read.untouched, 7);
}

TEST(OptionFields, AnIntegerGivenForANumberKeyIsReadAsANumber) {
  Options options = all_set();
  options.set("rate", int64_t{1});
  EXPECT_EQ(toy_fields().read(options).rate, 1.0);
}

TEST(OptionFields, AKeyTheRunLacksIsAProgrammingErrorNamingIt) {
  Options options = all_set();
  Options partial("model");
  for (const auto& [key, value] : options.values())
    if (key != "rate") partial.set(key, value);
  try {
    toy_fields().read(partial);
    FAIL() << "a missing key was read";
  } catch (const std::exception& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("rate")) << e.what();
  }
}

TEST(OptionFields, KeysAreReadInTheOrderDeclaredSoALaterKeyOverridesAnEarlierOne) {
  struct Sized {
    int64_t size = 0;
  };
  OptionFields<Sized> f;
  f.custom({"preset", KeyType::integer, int64_t{10}, "start"},
           [](Sized& out, const Options& o, const std::string& key) { out.size = o.get_int(key); });
  f.custom({"size", KeyType::integer, int64_t{0}, "0: the preset's"},
           [](Sized& out, const Options& o, const std::string& key) {
             if (o.get_int(key) != 0) out.size = o.get_int(key);
           });
  Options options("model");
  options.set("preset", int64_t{10});
  options.set("size", int64_t{0});
  EXPECT_EQ(f.read(options).size, 10);
  options.set("size", int64_t{3});
  EXPECT_EQ(f.read(options).size, 3);
}

TEST(OptionFields, KeysReadElsewhereComeFirstAndAreNotRead) {
  Schema host;
  host.integer("world_size", 0, "ranks");
  OptionFields<ToyOptions> f(host);
  f.flag("overlap", &ToyOptions::overlap, "overlap doc");
  EXPECT_EQ(f.schema().names(), (std::vector<std::string>{"world_size", "overlap"}));
  Options options("strategy");
  options.set("overlap", false);
  EXPECT_FALSE(f.read(options).overlap);
}

}  // namespace
}  // namespace runner
