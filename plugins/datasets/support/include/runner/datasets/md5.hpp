// MD5 sums (OpenSSL's EVP API) as 32 lower-case hex digits, to check downloaded files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace runner::datasets {

std::string md5_hex(std::string_view bytes);

// Reads the file in chunks. Throws a runner::DataError naming `path` when it cannot be read.
std::string md5_hex_of_file(const std::filesystem::path& path);

// True for 32 hex digits, either case.
bool is_md5_hex(std::string_view text);

// A sum as a config writes it, in lower case for comparing with md5_hex; nothing when `text` is
// not 32 hex digits.
std::optional<std::string> md5_from_text(std::string_view text);

}  // namespace runner::datasets
