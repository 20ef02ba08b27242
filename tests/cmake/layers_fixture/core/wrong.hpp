// A fixture of tests/cmake/layers.cmake: core including report, which the check must refuse.
#pragma once
#include "report/table.hpp"
