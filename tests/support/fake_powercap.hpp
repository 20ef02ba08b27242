// A fabricated CPU package energy counter for tests: a powercap tree under EMA_POWERCAP_ROOT whose
// counter a thread advances at a constant power while the object lives (measure/energy.cpp reads it
// as it reads /sys/class/powercap). ema processes started meanwhile inherit the variable, so a CLI
// test can meter energy on a machine without RAPL.
#pragma once

#include <atomic>
#include <thread>

#include "support/temp_dir.hpp"

namespace ema::test {

class fake_package {
 public:
  explicit fake_package(double watts);
  ~fake_package();
  fake_package(const fake_package&) = delete;
  fake_package& operator=(const fake_package&) = delete;

 private:
  void write(double uj);
  double watts_;
  temp_dir dir_;
  std::atomic<bool> stop_{false};
  std::thread ticker_;
};

}  // namespace ema::test
