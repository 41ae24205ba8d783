# cmake -DVERSION=... -DFLAGS=... -P check_torch.cmake: runs runner_check_torch on the values a
# found LibTorch would give, as CMake's configure step does.
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR}/../../cmake)
include(RunnerTorchCheck)
runner_check_torch("${VERSION}" "${FLAGS}" "/opt/libtorch/share/cmake/Torch")
message(STATUS "accepted LibTorch ${VERSION}")
