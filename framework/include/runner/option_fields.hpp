// A component's keys declared once: each key is bound to a member of the component's options
// struct, and its default is that member's initial value, so the schema `runner describe` shows
// and the reading of a run's values come from one list.
//
//   struct PoolOptions { int64_t size = 2; std::string mode = "max"; };
//   const runner::OptionFields<PoolOptions>& pool_fields() {
//     static const auto fields = runner::OptionFields<PoolOptions>()
//         .integer("size", &PoolOptions::size, "window side", 1)
//         .text("mode", &PoolOptions::mode, "how a window is reduced", {"max", "mean"});
//     return fields;
//   }
//   pool_fields().schema();        // what the plugin registers
//   pool_fields().read(options);   // a PoolOptions with the run's values
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runner/options.hpp"

namespace runner {

template <typename T>
class OptionFields {
 public:
  // Stores the value of `key` into `out`, for a key whose member is not a plain copy of it.
  using Reader = std::function<void(T& out, const Options& options, const std::string& key)>;

  OptionFields() = default;
  // `read_elsewhere`: keys of the same table that someone else reads (the host reads a
  // strategy's world_size), listed first in the schema.
  explicit OptionFields(Schema read_elsewhere) : schema_(std::move(read_elsewhere)) {}

  OptionFields& flag(const std::string& name, bool T::*member, const std::string& doc) {
    schema_.flag(name, initial(member), doc);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = options.get_bool(key);
    });
  }

  template <typename Integer>
  OptionFields& integer(const std::string& name, Integer T::*member, const std::string& doc,
                        std::optional<double> min = std::nullopt,
                        std::optional<double> max = std::nullopt) {
    static_assert(std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>,
                  "integer keys bind integer members");
    schema_.integer(name, static_cast<int64_t>(initial(member)), doc, min, max);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = static_cast<Integer>(options.get_int(key));
    });
  }

  OptionFields& number(const std::string& name, double T::*member, const std::string& doc,
                       std::optional<double> min = std::nullopt,
                       std::optional<double> max = std::nullopt) {
    schema_.number(name, initial(member), doc, min, max);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = options.get_double(key);
    });
  }

  OptionFields& text(const std::string& name, std::string T::*member, const std::string& doc,
                     const std::vector<std::string>& choices = {}) {
    schema_.text(name, initial(member), doc, choices);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = options.get_string(key);
    });
  }

  OptionFields& integers(const std::string& name, std::vector<int64_t> T::*member,
                         const std::string& doc, std::optional<double> min = std::nullopt,
                         std::optional<double> max = std::nullopt) {
    schema_.integers(name, initial(member), doc, min, max);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = options.get_ints(key);
    });
  }

  OptionFields& numbers(const std::string& name, std::vector<double> T::*member,
                        const std::string& doc, std::optional<double> min = std::nullopt,
                        std::optional<double> max = std::nullopt) {
    schema_.numbers(name, initial(member), doc, min, max);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = options.get_doubles(key);
    });
  }

  OptionFields& texts(const std::string& name, std::vector<std::string> T::*member,
                      const std::string& doc, const std::vector<std::string>& choices = {}) {
    schema_.texts(name, initial(member), doc, choices);
    return bind(name, [member](T& out, const Options& options, const std::string& key) {
      out.*member = options.get_strings(key);
    });
  }

  // A key the struct keeps in another form (an enum, a path, a size that 0 leaves to a preset),
  // or one without a default (a run must set it): `spec` declares it, `read` stores its value.
  // Keys are read in the order they are declared.
  OptionFields& custom(KeySpec spec, Reader read) {
    const std::string name = spec.name;
    schema_.add(std::move(spec));
    return bind(name, std::move(read));
  }

  const Schema& schema() const { return schema_; }

  // The struct with every declared key's value; members without a key keep their initial value.
  T read(const Options& options) const {
    T out;
    for (const auto& [key, reader] : readers_) reader(out, options, key);
    return out;
  }

 private:
  template <typename Member>
  static Member initial(Member T::*member) {
    return T{}.*member;
  }

  OptionFields& bind(const std::string& name, Reader read) {
    readers_.emplace_back(name, std::move(read));
    return *this;
  }

  Schema schema_;
  std::vector<std::pair<std::string, Reader>> readers_;
};

}  // namespace runner
