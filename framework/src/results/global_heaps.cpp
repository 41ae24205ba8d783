// Finds every "GCOL" collection in a file and walks its objects as HDF5 would, refusing bad sizes.
#include "results/global_heaps.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include "runner/errors.hpp"

namespace runner::results::detail {
namespace {

constexpr char kSignature[] = {'G', 'C', 'O', 'L'};
constexpr uint64_t kCollectionHeader = 16;  // signature, version, 3 reserved, size (8 bytes)
constexpr uint64_t kObjectHeader = 16;      // index (2), references (2), reserved (4), size (8)

uint64_t little_endian(const unsigned char* bytes, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = value << 8 | bytes[i];
  return value;
}

// The offsets of every "GCOL" in the file, read in blocks that overlap by 3 bytes.
std::vector<uint64_t> signature_offsets(std::ifstream& in) {
  std::vector<uint64_t> offsets;
  std::vector<char> block(1 << 20);
  uint64_t block_start = 0;
  size_t kept = 0;
  while (in) {
    in.read(block.data() + kept, static_cast<std::streamsize>(block.size() - kept));
    const size_t filled = kept + static_cast<size_t>(in.gcount());
    if (filled < sizeof kSignature) break;
    for (auto it = block.begin(); it != block.begin() + static_cast<std::ptrdiff_t>(filled);) {
      it = std::search(it, block.begin() + static_cast<std::ptrdiff_t>(filled), kSignature,
                       kSignature + sizeof kSignature);
      if (it == block.begin() + static_cast<std::ptrdiff_t>(filled)) break;
      offsets.push_back(block_start + static_cast<uint64_t>(it - block.begin()));
      ++it;
    }
    kept = sizeof kSignature - 1;
    std::memmove(block.data(), block.data() + filled - kept, kept);
    block_start += filled - kept;
  }
  return offsets;
}

// HDF5's walk over the collection's objects (H5HG__cache_heap_deserialize): an object of
// index 0 is free space whose size is the step to the next one. HDF5 trusts the sizes: a free
// space of size 0 never advances, and an object whose data runs past the collection is later
// copied from past its end. Either makes the collection one HDF5 cannot read.
bool walk_ends(const std::vector<unsigned char>& collection) {
  uint64_t p = kCollectionHeader;
  while (p < collection.size()) {
    if (p + kObjectHeader > collection.size()) return true;  // too small: the rest is free
    const uint64_t index = little_endian(&collection[p], 2);
    const uint64_t size = little_endian(&collection[p + 8], 8);
    if (index == 0 && size == 0) return false;
    const uint64_t left = collection.size() - p;
    if (index != 0 && (size > left || kObjectHeader + (size + 7) / 8 * 8 > left)) return false;
    p += index == 0 ? std::min(size, left) : kObjectHeader + (size + 7) / 8 * 8;
  }
  return true;
}

}  // namespace

void check_global_heaps(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // HDF5 says why it cannot open it
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  for (const uint64_t offset : signature_offsets(in)) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    unsigned char header[kCollectionHeader];
    if (!in.read(reinterpret_cast<char*>(header), sizeof header) || header[4] != 1) continue;
    const uint64_t size = little_endian(header + 8, 8);
    // HDF5 refuses a collection that does not fit in the file by itself.
    if (size < kCollectionHeader || size > file_size - offset) continue;
    std::vector<unsigned char> collection(size);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(collection.data()), static_cast<std::streamsize>(size));
    if (!walk_ends(collection))
      throw DataError(path + ": damaged: the global heap at byte " + std::to_string(offset) +
                          " does not add up (an entry of size 0, or one past its end), and "
                          "HDF5 would read it forever or past its end",
                      "the file was changed or cut by something other than runner");
  }
}

}  // namespace runner::results::detail
