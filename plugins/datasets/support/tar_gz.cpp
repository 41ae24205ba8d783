// extract_tar_gz: 512-byte ustar headers checked and parsed, entries' data copied or skipped.
#include <runner/datasets/tar_gz.hpp>

#include <runner/errors.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include "gzip_reader.hpp"
#include "synced_file.hpp"

namespace runner::datasets {
namespace {

constexpr size_t kTarBlock = 512;
constexpr size_t kCopyChunk = size_t{1} << 16;

// Byte offsets and widths of the ustar header's fields.
constexpr size_t kNameAt = 0, kNameWidth = 100;
constexpr size_t kSizeAt = 124, kSizeWidth = 12;
constexpr size_t kChecksumAt = 148, kChecksumWidth = 8;
constexpr size_t kTypeAt = 156;
constexpr size_t kMagicAt = 257;
constexpr size_t kPrefixAt = 345, kPrefixWidth = 155;

struct TarEntry {
  std::string name;
  char type = '0';
  uint64_t size = 0;
  uint64_t header_at = 0;  // offset of its header in the tar
};

// A NUL-terminated field, or the whole field when it fills its width.
std::string text_field(const char* block, size_t at, size_t width) {
  const char* field = block + at;
  return std::string(field, strnlen(field, width));
}

// An octal number, space- or NUL-padded as tar writes them; nothing when it is not one.
std::optional<uint64_t> octal_field(const char* block, size_t at, size_t width) {
  const char* field = block + at;
  size_t i = 0;
  while (i < width && field[i] == ' ') ++i;
  const size_t first_digit = i;
  uint64_t value = 0;
  for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (value > (UINT64_MAX >> 3)) return std::nullopt;
    value = value * 8 + static_cast<uint64_t>(field[i] - '0');
  }
  if (i == first_digit) return std::nullopt;
  for (; i < width; ++i)
    if (field[i] != ' ' && field[i] != '\0') return std::nullopt;
  return value;
}

bool all_zero(const char* block) {
  return std::all_of(block, block + kTarBlock, [](char c) { return c == '\0'; });
}

// The header's sum with its checksum field read as spaces: unsigned as POSIX says, or signed as
// some old tars wrote it.
bool checksum_matches(const char* block) {
  std::optional<uint64_t> stored = octal_field(block, kChecksumAt, kChecksumWidth);
  if (!stored) return false;
  int64_t unsigned_sum = 0;
  int64_t signed_sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) {
    bool in_field = i >= kChecksumAt && i < kChecksumAt + kChecksumWidth;
    char c = in_field ? ' ' : block[i];
    unsigned_sum += static_cast<unsigned char>(c);
    signed_sum += static_cast<signed char>(c);
  }
  auto sum = static_cast<int64_t>(*stored);
  return sum == unsigned_sum || sum == signed_sum;
}

std::string at_byte(uint64_t offset) { return " (header at byte " + std::to_string(offset) + ")"; }

TarEntry parse_header(const char* block, uint64_t offset, const GzipReader& gzip) {
  if (std::memcmp(block + kMagicAt, "ustar", 5) != 0)
    gzip.fail("not a ustar tar archive: no \"ustar\" magic" + at_byte(offset));
  if (!checksum_matches(block)) gzip.fail("damaged tar header: wrong checksum" + at_byte(offset));
  TarEntry entry;
  entry.header_at = offset;
  entry.type = block[kTypeAt];
  entry.name = text_field(block, kNameAt, kNameWidth);
  // POSIX ustar ("ustar\0", version "00") keeps a prefix of long names; GNU's old format
  // ("ustar  \0") keeps other fields there.
  std::string prefix = text_field(block, kPrefixAt, kPrefixWidth);
  if (std::memcmp(block + kMagicAt, "ustar\0", 6) == 0 && !prefix.empty())
    entry.name = prefix + "/" + entry.name;
  std::optional<uint64_t> size = octal_field(block, kSizeAt, kSizeWidth);
  if (!size)
    gzip.fail("damaged tar header: the size of " + entry.name + " is not an octal number" +
              at_byte(offset));
  entry.size = *size;
  return entry;
}

// "./a/b" as "a/b"; "./" itself, the archive's own folder, stays.
std::string without_leading_dot_slash(std::string name) {
  while (name.size() > 2 && name.rfind("./", 0) == 0) name.erase(0, 2);
  return name;
}

// Refuses a name that could point outside the folder it is extracted into.
void check_path(const TarEntry& entry, const GzipReader& gzip) {
  if (entry.name.empty())
    gzip.fail("damaged tar header: an entry without a name" + at_byte(entry.header_at));
  if (entry.name.front() == '/')
    gzip.fail("refused: entry " + entry.name + " has an absolute path" + at_byte(entry.header_at));
  std::istringstream parts(entry.name);
  for (std::string part; std::getline(parts, part, '/');)
    if (part == "..")
      gzip.fail("refused: entry " + entry.name + " leads out of its folder (\"..\")" +
                at_byte(entry.header_at));
}

enum class EntryKind { file, skipped };

// Regular files are extracted; folders and pax headers (whose fields are not used) skipped;
// anything else refused.
EntryKind kind_of(const TarEntry& entry, const GzipReader& gzip) {
  switch (entry.type) {
    case '0':
    case '\0':
    case '7': return EntryKind::file;
    case '5':
    case 'x':
    case 'g': return EntryKind::skipped;
    case '1':
      gzip.fail("refused: entry " + entry.name + " is a hard link" + at_byte(entry.header_at));
    case '2':
      gzip.fail("refused: entry " + entry.name + " is a symbolic link" + at_byte(entry.header_at));
    default:
      gzip.fail("refused: entry " + entry.name + " is of type '" + std::string(1, entry.type) +
                "', not a regular file or folder" + at_byte(entry.header_at));
  }
}

// Reads an entry's data and the padding to the next block, writing the data to `out` if given.
void copy_data(GzipReader& gzip, const TarEntry& entry, SyncedFile* out) {
  std::vector<char> chunk(kCopyChunk);
  uint64_t left = entry.size;
  while (left > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
    size_t got = gzip.read(chunk.data(), want);
    if (out) out->write(chunk.data(), got);
    left -= got;
    if (got < want)
      gzip.fail("truncated: entry " + entry.name + " ends after " +
                std::to_string(entry.size - left) + " of its " + std::to_string(entry.size) +
                " bytes");
  }
  size_t padding = static_cast<size_t>((kTarBlock - entry.size % kTarBlock) % kTarBlock);
  if (gzip.read(chunk.data(), padding) < padding)
    gzip.fail("truncated: the archive ends inside the padding after " + entry.name);
}

void extract_entry(GzipReader& gzip, const TarEntry& entry, const EntryTarget& target) {
  std::optional<std::filesystem::path> path;
  if (kind_of(entry, gzip) == EntryKind::file) path = target(entry.name);
  if (!path) return copy_data(gzip, entry, nullptr);
  SyncedFile out(*path);
  copy_data(gzip, entry, &out);
  std::string not_written = out.close();
  if (!not_written.empty())
    throw runner::DataError(path->string() + ": cannot write: " + not_written,
                            "data_dir must be a folder you can write to, with room for the data");
}

}  // namespace

void extract_tar_gz(const std::filesystem::path& archive, const std::string& shown_as,
                    const EntryTarget& target) {
  GzipReader gzip(archive, shown_as);
  char block[kTarBlock];
  for (;;) {
    uint64_t offset = gzip.offset();
    size_t got = gzip.read(block, kTarBlock);
    if (got == 0)
      gzip.fail("truncated: the archive ends at byte " + std::to_string(offset) +
                " without its end-of-archive block");
    if (got < kTarBlock)
      gzip.fail("truncated: the header at byte " + std::to_string(offset) + " is cut short");
    if (all_zero(block)) break;
    TarEntry entry = parse_header(block, offset, gzip);
    entry.name = without_leading_dot_slash(entry.name);
    check_path(entry, gzip);
    extract_entry(gzip, entry, target);
  }
  gzip.read_to_end();
}

}  // namespace runner::datasets
