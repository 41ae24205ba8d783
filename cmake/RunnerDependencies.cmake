# Every dependency comes from a Debian package (tools/setup.sh installs them).
find_package(Torch REQUIRED)
find_package(Boost REQUIRED COMPONENTS filesystem)
find_package(tomlplusplus REQUIRED)
find_package(fmt REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(CLI11 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)

# LibTorch's own flags (the C++ ABI among them) for every target that includes torch.
add_library(runner_torch INTERFACE)
target_link_libraries(runner_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(runner_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
separate_arguments(_runner_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(runner_torch INTERFACE ${_runner_torch_flags})

# <torch/torch.h> costs ~15 s per translation unit; every torch target reuses this header.
add_library(runner_pch STATIC ${PROJECT_SOURCE_DIR}/framework/src/pch.cpp)
target_link_libraries(runner_pch PUBLIC runner_torch)
target_precompile_headers(runner_pch PRIVATE <torch/torch.h>)

function(runner_use_torch_pch target)
  target_link_libraries(${target} PRIVATE runner_torch)
  target_precompile_headers(${target} REUSE_FROM runner_pch)
endfunction()
