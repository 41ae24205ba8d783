// Chosen regular files of a gzip'd tar archive (ustar, POSIX or GNU), extracted in one pass
// over zlib's stream. The archive is untrusted: links, devices, absolute paths and ".." are
// refused, and nothing is written anywhere but where the caller says.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace runner::datasets {

// Where an entry goes: the path to write it to, or nothing to skip it. Called for each regular
// file with its name in the archive, less a leading "./" ("cifar-10-batches-bin/test_batch.bin").
using EntryTarget = std::function<std::optional<std::filesystem::path>(const std::string& name)>;

// Reads `archive` to its end. Each regular file that `target` gives a path for is written there
// (created or truncated, synced); other files, folders and pax headers are skipped. Throws a
// runner::DataError whose message starts with `shown_as` (the archive's name or URL) when an
// entry's path is absolute or holds "..", an entry is a link or other than a regular file,
// folder or pax header, a header is damaged (checksum, magic, size), the gzip data is damaged,
// or the archive ends before its end-of-archive block (truncated). The files written before an
// error stay: write them to temporary names (TemporaryFile).
void extract_tar_gz(const std::filesystem::path& archive, const std::string& shown_as,
                    const EntryTarget& target);

}  // namespace runner::datasets
