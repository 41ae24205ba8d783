// The six CIFAR-10 files taken out of the official archive (cifar-10-batches-bin/*.bin inside).
#pragma once

#include <filesystem>
#include <string>

namespace cifar10 {

// Extracts those of the six files that `folder` lacks from the tar.gz `archive` into `folder`,
// each to a temporary name first, renamed into place once all of them are whole. Throws a
// runner::DataError starting with `url` (where the archive came from) when the archive is
// damaged, truncated or unsafe (tar_gz.hpp), or lacks one of the files.
void extract_cifar_batches(const std::filesystem::path& archive, const std::string& url,
                           const std::filesystem::path& folder);

}  // namespace cifar10
