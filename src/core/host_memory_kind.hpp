// Where a problem's input lives on the host: ordinary pages for CPU variants, page-locked memory
// for CUDA variants (so their copies run at full speed and asynchronously). The kind is part of a
// point's request to the generator; measure/host_array.hpp allocates it.
#pragma once

namespace ema {

enum class host_memory_kind { pageable, pinned };

}  // namespace ema
