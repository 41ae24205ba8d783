// MD5 of bytes or of a file read in chunks, as hex, and whether a text is such a sum.
#include <runner/datasets/md5.hpp>

#include <openssl/evp.h>
#include <runner/errors.hpp>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

namespace runner::datasets {
namespace {

constexpr size_t kFileChunk = size_t{1} << 16;

// One MD5 computation: update with bytes, then read the sum once.
class Md5 {
 public:
  Md5() : context_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    RUNNER_CHECK(context_ && EVP_DigestInit_ex(context_.get(), EVP_md5(), nullptr) == 1,
                 "OpenSSL could not start an MD5 digest");
  }

  void update(const char* bytes, size_t count) {
    RUNNER_CHECK(EVP_DigestUpdate(context_.get(), bytes, count) == 1, "MD5 update failed");
  }

  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    RUNNER_CHECK(EVP_DigestFinal_ex(context_.get(), digest, &length) == 1, "MD5 final failed");
    static const char kDigits[] = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < length; ++i) {
      text += kDigits[digest[i] >> 4];
      text += kDigits[digest[i] & 0xf];
    }
    return text;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context_;
};

}  // namespace

std::string md5_hex(std::string_view bytes) {
  Md5 md5;
  md5.update(bytes.data(), bytes.size());
  return md5.hex();
}

std::string md5_hex_of_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runner::DataError(path.string() + ": cannot open: " + std::strerror(errno));
  Md5 md5;
  std::vector<char> chunk(kFileChunk);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    md5.update(chunk.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw runner::DataError(path.string() + ": cannot read: " + std::strerror(errno));
  return md5.hex();
}

bool is_md5_hex(std::string_view text) {
  if (text.size() != 32) return false;
  for (char c : text)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::optional<std::string> md5_from_text(std::string_view text) {
  if (!is_md5_hex(text)) return std::nullopt;
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace runner::datasets
