# CUDA is optional and auto-detected: EMA_WITH_CUDA defaults to whether a CUDA compiler exists.
# The architecture defaults to an explicit 90 (Hopper) because "native" fails to configure on a
# machine that has nvcc but no GPU.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(_ema_cuda_default ON)
else()
  set(_ema_cuda_default OFF)
endif()
option(EMA_WITH_CUDA "Build the CUDA variants and GPU measurement" ${_ema_cuda_default})

if(EMA_WITH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "EMA_WITH_CUDA=ON but no CUDA compiler was found; set CMAKE_CUDA_COMPILER or EMA_WITH_CUDA=OFF")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures to build for")
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc's C++20 flag (CUDA20 arrived in 3.26); teach it.
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
endif()
