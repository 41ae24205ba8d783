// Fetches the files of an MNIST-format set that a folder lacks. Each file is written under a
// temporary name in the folder, its MD5 checked, then renamed into place: a killed download
// never leaves part of a file under the real name, and processes downloading into one folder
// at once each end up with a whole file.
#pragma once

#include <filesystem>

#include "mnist_download_options.hpp"

namespace mnist {

// Fetches <mirror><stem>.gz for every stem of kMnistStems that `dir` holds neither plain nor
// gzipped, from the first mirror that serves it with the expected MD5; creates `dir` when
// needed, and removes the folders it created when they stay empty. Throws one
// runner::DataError listing the files no mirror served and, for every URL tried, why it
// failed; when no mirror can be reached at all (offline), at the first file, naming every
// file the folder lacks and where to put it.
void download_missing_files(const std::filesystem::path& dir, const DownloadSource& source);

}  // namespace mnist
