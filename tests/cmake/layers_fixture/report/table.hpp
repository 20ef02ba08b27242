// A fixture of tests/cmake/layers.cmake: a header report may include.
#pragma once
#include "core/wrong.hpp"
