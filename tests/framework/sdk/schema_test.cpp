// The SDK's schema shorthands declare the KeySpec a plugin would otherwise spell out.
#include <gtest/gtest.h>

#include <runner/options.hpp>

namespace runner {
namespace {

TEST(SchemaShorthands, IntegersDeclaresAnIntegerListWithItsDefaultAndRange) {
  Schema schema;
  schema.integers("hidden", std::vector<int64_t>{64, 32}, "widths", 1, 4096);
  const KeySpec* key = schema.find("hidden");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->type, KeyType::integer_list);
  EXPECT_EQ(std::get<std::vector<int64_t>>(*key->default_value), (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(key->doc, "widths");
  EXPECT_EQ(key->min, 1.0);
  EXPECT_EQ(key->max, 4096.0);
  EXPECT_TRUE(key->choices.empty());
}

TEST(SchemaShorthands, NumbersWithoutADefaultIsRequired) {
  Schema schema;
  schema.numbers("mean", std::nullopt, "per channel");
  const KeySpec* key = schema.find("mean");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->type, KeyType::number_list);
  EXPECT_FALSE(key->default_value.has_value());
  EXPECT_FALSE(key->min.has_value());
  EXPECT_FALSE(key->max.has_value());
}

TEST(SchemaShorthands, TextsCarriesItsChoicesAndNoRange) {
  Schema schema;
  schema.texts("norms", std::vector<std::string>{"batch"}, "per layer", {"none", "batch"});
  const KeySpec* key = schema.find("norms");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->type, KeyType::string_list);
  EXPECT_EQ(std::get<std::vector<std::string>>(*key->default_value),
            (std::vector<std::string>{"batch"}));
  EXPECT_EQ(key->choices, (std::vector<std::string>{"none", "batch"}));
  EXPECT_FALSE(key->min.has_value());
}

TEST(SchemaShorthands, AnEmptyListIsADefaultNotARequiredKey) {
  Schema schema;
  schema.integers("devices", std::vector<int64_t>{}, "indices", 0);
  const KeySpec* key = schema.find("devices");
  ASSERT_TRUE(key->default_value.has_value());
  EXPECT_TRUE(std::get<std::vector<int64_t>>(*key->default_value).empty());
}

TEST(SchemaShorthands, DeclaringAKeyAgainReplacesIt) {
  Schema schema;
  schema.integers("blocks", std::vector<int64_t>{2}, "first", 1);
  schema.integers("blocks", std::vector<int64_t>{3, 3}, "second", 1);
  ASSERT_EQ(schema.keys().size(), 1u);
  EXPECT_EQ(schema.find("blocks")->doc, "second");
}

}  // namespace
}  // namespace runner
