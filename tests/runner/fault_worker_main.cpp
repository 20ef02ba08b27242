// The worker executable of the isolation tests: ema's worker with the fault problem registered.
#include <string_view>

#include "runner/worker.hpp"

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "__worker") return ema::worker_main();
  if (argc == 3 && std::string_view(argv[1]) == "__worker" && std::string_view(argv[2]) == "--serve") return ema::worker_serve();
  return 2;
}
