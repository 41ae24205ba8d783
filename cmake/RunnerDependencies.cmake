# Every dependency comes from a Debian package (tools/setup.sh installs them).
# LibTorch's CUDA setup turns CMAKE_CUDA_ARCHITECTURES off (it reads TORCH_CUDA_ARCH_LIST);
# runner's kernels keep the architectures given (RunnerCuda.cmake).
set(_runner_cuda_architectures "${CMAKE_CUDA_ARCHITECTURES}")
find_package(Torch REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES "${_runner_cuda_architectures}")
include(RunnerTorchCheck)
runner_check_torch("${Torch_VERSION}" "${TORCH_CXX_FLAGS}" "${Torch_DIR}")
# Newer LibTorch headers refuse a standard older than C++20 (ATen.h says so in an #error).
foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
  if(EXISTS "${dir}/ATen/ATen.h")
    file(STRINGS "${dir}/ATen/ATen.h" _runner_aten_needs_cxx20 REGEX "C\\+\\+20 or later")
    if(_runner_aten_needs_cxx20)
      set(CMAKE_CXX_STANDARD 20)
      message(STATUS "runner: C++20, as LibTorch ${Torch_VERSION}'s headers require")
    endif()
    break()
  endif()
endforeach()
# Boost's headers alone: Boost.DLL runs on std::filesystem (BOOST_DLL_USE_STD_FS, set where the
# plugin host includes it), so no compiled Boost library has to match the headers found.
find_package(Boost REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(fmt REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(CLI11 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)

# pip's LibTorch ships fmt's headers in its own include folder, which comes first on every
# compile line: a compiled fmt of another version would not match them. In header-only mode
# fmt follows whichever headers win.
get_target_property(_runner_fmt_includes fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
if(EXISTS "${TORCH_INSTALL_PREFIX}/include/fmt/core.h" AND
   NOT "${TORCH_INSTALL_PREFIX}/include" IN_LIST _runner_fmt_includes)
  set_property(TARGET fmt::fmt APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()

# LibTorch's own flags (the C++ ABI among them) for every target that includes torch.
add_library(runner_torch INTERFACE)
target_link_libraries(runner_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(runner_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
separate_arguments(_runner_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(runner_torch INTERFACE ${_runner_torch_flags})

# <torch/torch.h> costs ~15 s per translation unit; every torch target reuses one precompiled
# copy. GCC refuses a header precompiled with -fPIC in a -fPIE unit, so the executables that
# reuse it compile with -fPIC too (PIC code links into a position-independent executable).
add_library(runner_pch STATIC ${PROJECT_SOURCE_DIR}/framework/src/pch.cpp)
target_link_libraries(runner_pch PUBLIC runner_torch)
target_precompile_headers(runner_pch PRIVATE <torch/torch.h>)

function(runner_use_torch_pch target)
  target_link_libraries(${target} PRIVATE runner_torch)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
    target_compile_options(${target} PRIVATE -fPIC)
  endif()
  target_precompile_headers(${target} REUSE_FROM runner_pch)
endfunction()

# CUDA code is built when LibTorch itself was built with CUDA (or when forced ON).
if(RUNNER_WITH_CUDA STREQUAL "AUTO")
  if(TARGET c10_cuda)
    set(RUNNER_CUDA_ENABLED ON)
  else()
    set(RUNNER_CUDA_ENABLED OFF)
  endif()
else()
  set(RUNNER_CUDA_ENABLED ${RUNNER_WITH_CUDA})
endif()
message(STATUS "runner: CUDA code ${RUNNER_CUDA_ENABLED}")
