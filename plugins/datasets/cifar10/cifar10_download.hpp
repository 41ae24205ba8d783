// Fetches and extracts the CIFAR-10 binary version into a folder that lacks it. The archive is
// written under a temporary name and MD5-checked, its six files extracted to temporary names and
// renamed into place only once all six are whole: a failed or killed download never leaves part
// of a file under a real name, and runs downloading into one folder at once each end up with
// whole files.
#pragma once

#include <filesystem>

#include "cifar10_download_options.hpp"

namespace cifar10 {

// When neither `data_dir` nor `data_dir`/cifar-10-batches-bin holds the six files, fetches
// <mirror>/cifar-10-binary.tar.gz from the first mirror that serves it with the expected MD5
// and extracts the files that folder lacks into it; creates the folders it needs and removes
// them again when they stay empty. Throws one runner::DataError naming each URL tried and why it
// failed, or the archive's URL and what is wrong with the archive.
void download_cifar_files(const std::filesystem::path& data_dir, const DownloadSource& source);

}  // namespace cifar10
