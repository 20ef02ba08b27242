// EMA_HD marks a function that the host and CUDA device code both call (one definition, so both
// sides compute exactly the same thing); outside nvcc it expands to nothing.
#pragma once

#ifdef __CUDACC__
#define EMA_HD __host__ __device__
#else
#define EMA_HD
#endif
