// tar.gz archives written in memory for tests: ustar entries of any type and name (POSIX or
// GNU's magic, long names through the POSIX prefix), gzip'd with zlib.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace runner::datasets::testing {

struct TarMember {
  std::string name;
  std::string data;
  char type = '0';      // '0' file, '5' folder, '1' hard link, '2' symbolic link, ...
  std::string link_to;  // the target of a link
};

inline TarMember tar_file(std::string name, std::string data) {
  return {std::move(name), std::move(data)};
}

// `value` in octal, zero-padded to width - 1 digits and NUL-terminated, at `field`.
inline void put_octal(char* field, size_t width, uint64_t value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
}

// One 512-byte header with its checksum. A POSIX name over 100 bytes is cut at a '/' into the
// prefix field.
inline std::string tar_header(const TarMember& member, bool gnu_magic = false) {
  std::string block(512, '\0');
  char* h = block.data();
  std::string name = member.name;
  std::string prefix;
  if (name.size() > 100 && !gnu_magic) {
    size_t cut = name.rfind('/', name.size() - 1);
    prefix = name.substr(0, cut);
    name = name.substr(cut + 1);
  }
  name.copy(h, 100);  // fixed width: a 100-byte name has no terminator
  put_octal(h + 100, 8, 0644);
  put_octal(h + 108, 8, 0);
  put_octal(h + 116, 8, 0);
  put_octal(h + 124, 12, member.data.size());
  put_octal(h + 136, 12, 1234567890);
  h[156] = member.type;
  member.link_to.copy(h + 157, 100);
  std::memcpy(h + 257,
              gnu_magic ? "ustar  "
                        : "ustar\0"
                          "00",
              8);
  prefix.copy(h + 345, 155);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (char c : block) sum += static_cast<unsigned char>(c);
  std::snprintf(h + 148, 8, "%06o", sum);
  h[155] = ' ';
  return block;
}

// Each member's header and data, padded to 512 bytes, then the two zero blocks that end it.
inline std::string tar_bytes(const std::vector<TarMember>& members, bool gnu_magic = false) {
  std::string tar;
  for (const TarMember& member : members) {
    tar += tar_header(member, gnu_magic) + member.data;
    tar.append((512 - member.data.size() % 512) % 512, '\0');
  }
  return tar + std::string(1024, '\0');
}

// A gzip stream (header, deflate data, CRC trailer) of `bytes`.
inline std::string gzip_bytes(const std::string& bytes) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::string out(deflateBound(&stream, bytes.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int code = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (code != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

inline std::string tar_gz(const std::vector<TarMember>& members, bool gnu_magic = false) {
  return gzip_bytes(tar_bytes(members, gnu_magic));
}

}  // namespace runner::datasets::testing
