// A key's declaration in words, for the hints of config errors.
#pragma once

#include <string>

#include "runner/options.hpp"

namespace runner::config {

// "train.batch_size (integer, at least 1, default 64): Samples per training step".
std::string key_help(const std::string& dotted, const KeySpec& spec);

// "at least 1", "at most 1", "between 0 and 1"; "" when the spec has no bounds.
std::string range_text(const KeySpec& spec);

// "an integer", "a float", "a list of strings".
std::string with_article(KeyType type);

// A range bound as short text: 1, 0.5, 1e-08.
std::string bound_text(double value);

}  // namespace runner::config
