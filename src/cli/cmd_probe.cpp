// `ema probe`: measures the machine's ceilings and stores them; `ema run` uses the newest probe of
// the machine it runs on, and every later ema on this node for a day (runner/node.hpp).
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "measure/machine.hpp"
#include "measure/probe.hpp"
#include "report/table.hpp"
#include "runner/node.hpp"
#include "store/database.hpp"

namespace ema::cli {

action add_probe(CLI::App& app, common_options& common) {
  auto json = std::make_shared<bool>(false);
  app.add_option("--db", common.db, "results database")->capture_default_str();
  app.add_flag("--json", *json, "print the ceilings as JSON");
  return [&common, json] {
    auto db = database::open_write(common.db);
    auto machine = describe_machine();
    const auto lock = node_lock::exclusive();  // not while another ema on this node measures (runner/node.hpp)
    auto ceilings = measure_ceilings([](const std::string& step) { fmt::print(stderr, "probe: {}\n", step); });
    db.store_probe(machine_key(machine), machine, ceilings);
    save_node_probe(machine_key(machine), machine, ceilings);
    if (*json)
      fmt::print("{}\n", ceilings.dump(2));
    else
      fmt::print("{}stored in {}\n", render_ceilings(ceilings, table_style::text), common.db);
    return exit_code::ok;
  };
}

}  // namespace ema::cli
