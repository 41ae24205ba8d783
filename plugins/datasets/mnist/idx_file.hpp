// Reader for IDX files of unsigned bytes (the MNIST format), plain or gzip-compressed.
// No LibTorch here: the bytes of untrusted files are checked by code a fuzzer can drive alone.
// Layout: magic 0x0000 08 D (D = number of dimensions), D big-endian uint32 sizes, then
// the product of the sizes in bytes, row-major.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace mnist {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> values;  // the product of `dims`, row-major
};

// Magic number of an unsigned-byte IDX file with `dims` dimensions: 2049 for 1, 2051 for 3.
uint32_t idx_ubyte_magic(int dims);

// Reads the whole file in one go. Throws a runner::DataError naming `path` when it cannot be
// read, is not an unsigned-byte IDX file of `expected_dims` dimensions, is truncated, has
// bytes after the data, or its gzip stream is corrupt.
IdxArray read_idx_ubyte(const std::filesystem::path& path, int expected_dims);

}  // namespace mnist
