# CUDA kernels. The .cu files hold plain kernels over raw pointers, with no LibTorch header,
# so nvcc compiles them whenever it is found (here /usr/local/cuda), even when LibTorch is
# CPU-only: CI builds every kernel. The glue that hands them tensors is C++ that needs
# LibTorch's CUDA headers; it builds only when RUNNER_CUDA_ENABLED (RunnerDependencies.cmake).
#
# RUNNER_CUDA_KERNELS is ON when nvcc was found. CMAKE_CUDA_ARCHITECTURES defaults to 80;90
# (A100, H100); pass -DCMAKE_CUDA_ARCHITECTURES=native on a machine with its GPU.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX}
   AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # nvcc may run an older g++ than the C++ compiler (Debian 13: nvcc 12.4 takes g++-13, the
  # build g++-14). Its runtime folders would reach every C++ link line that takes a CUDA
  # library, ahead of the C++ compiler's, and link the older libstdc++.
  foreach(dir IN LISTS CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES)
    if(dir MATCHES "/gcc/" AND NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
      list(REMOVE_ITEM CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES "${dir}")
    endif()
  endforeach()
  set(RUNNER_CUDA_KERNELS ON)
else()
  set(RUNNER_CUDA_KERNELS OFF)
endif()
if(RUNNER_CUDA_ENABLED AND NOT RUNNER_CUDA_KERNELS)
  message(FATAL_ERROR "LibTorch has CUDA but no nvcc was found: set CMAKE_CUDA_COMPILER")
endif()
message(STATUS "runner: CUDA kernels ${RUNNER_CUDA_KERNELS} (${CMAKE_CUDA_COMPILER})")

# runner_add_cuda_kernels(TARGET SOURCES kernels.cu ...)
#
# A static library of CUDA kernels. It is built whenever nvcc is found; link it into a plugin
# only when RUNNER_CUDA_ENABLED, together with the glue that launches the kernels on LibTorch's
# current stream.
function(runner_add_cuda_kernels target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC CUDA::cudart)
  set_target_properties(${target} PROPERTIES
    CUDA_STANDARD 17
    CUDA_STANDARD_REQUIRED ON
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden)
endfunction()
