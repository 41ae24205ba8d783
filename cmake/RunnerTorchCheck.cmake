# runner_check_torch(VERSION FLAGS WHERE): stops CMake with one line when the LibTorch found
# cannot build runner. runner needs LibTorch 1.13 or newer (built and tested: Debian 12's 1.13,
# Debian 13's 2.6), built with the C++11 ABI (_GLIBCXX_USE_CXX11_ABI=1) that the
# other libraries it links (Debian's Boost, fmt, HDF5, toml++) are built with: a LibTorch of
# the old ABI compiles, then fails to link or crashes where a std::string crosses the line.
# VERSION is Torch_VERSION, FLAGS TORCH_CXX_FLAGS, WHERE the folder it was found in. Each message
# starts with a space, which keeps CMake from folding it: the reason stays on one line.
set(RUNNER_TORCH_OLDEST 1.13)

function(runner_check_torch version flags where)
  if(NOT version)
    message(FATAL_ERROR " runner: the LibTorch at ${where} does not say its version "
                        "(no TorchConfigVersion.cmake); runner needs LibTorch ${RUNNER_TORCH_OLDEST} or newer")
  endif()
  if(version VERSION_LESS RUNNER_TORCH_OLDEST)
    message(FATAL_ERROR " runner: found LibTorch ${version} at ${where}; runner needs LibTorch "
                        "${RUNNER_TORCH_OLDEST} or newer (built and tested: 1.13 and 2.6)")
  endif()
  if(flags MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    message(FATAL_ERROR " runner: found LibTorch ${version} at ${where}, built with the pre-C++11 "
                        "ABI (_GLIBCXX_USE_CXX11_ABI=0); runner needs one built with the C++11 ABI "
                        "(_GLIBCXX_USE_CXX11_ABI=1), as Debian's is (pip's torch tells which it is "
                        "in torch.compiled_with_cxx11_abi())")
  endif()
endfunction()
