#include "support/fake_powercap.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ema::test {

fake_package::fake_package(double watts) : watts_(watts) {
  std::filesystem::create_directories(dir_.file("intel-rapl:0"));
  std::ofstream(dir_.file("intel-rapl:0/name")) << "package-0\n";
  std::ofstream(dir_.file("intel-rapl:0/max_energy_range_uj")) << "1000000000000000\n";
  write(0);
  setenv("EMA_POWERCAP_ROOT", dir_.path().c_str(), 1);
  ticker_ = std::thread([this] {
    const auto start = std::chrono::steady_clock::now();
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      write(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * watts_ * 1e6);
    }
  });
}

fake_package::~fake_package() {
  stop_ = true;
  ticker_.join();
  unsetenv("EMA_POWERCAP_ROOT");
}

void fake_package::write(double uj) {
  const auto tmp = dir_.file("intel-rapl:0/energy_uj.tmp");
  std::ofstream(tmp) << static_cast<unsigned long long>(uj) << "\n";
  std::filesystem::rename(tmp, dir_.file("intel-rapl:0/energy_uj"));  // whole, never half written
}

}  // namespace ema::test
