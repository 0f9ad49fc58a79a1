#include "admin/lease_cli.h"

#include <boost/json/serialize.hpp>
#include <iostream>
#include <memory>

#include "admin/admin_leases.h"
#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "core/clock.h"
#include "store/store.h"

namespace licensed {
namespace {

struct LeaseArgs {
  std::string key;
  std::string machine_id;
  std::string session_id;
  bool json = false;
};

using admin_cli::report;
using admin_cli::with_store;

int print_leases(const AdminStore& store, const LeaseArgs& a) {
  return with_store(store, [&](Store& s) {
    const UnixMillis now = SystemClock().now_ms();
    auto r = run_blocking(s, TxKind::kRead,
                          [&](StoreTx& tx) { return list_license_leases(tx, a.key, now); });
    if (!r.ok()) return report(r.error());
    if (a.json) {
      std::cout << boost::json::serialize(r.value()) << "\n";
      return kExitOk;
    }
    for (const auto& v : r.value()) {
      const auto& o = v.as_object();
      std::cout << o.at("machineId").as_string().c_str() << "  "
                << o.at("sessionId").as_string().c_str() << "  until "
                << o.at("expiresAt").as_string().c_str()
                << (o.at("borrowed").as_bool() ? "  borrowed" : "") << "\n";
    }
    return kExitOk;
  });
}

int release(const AdminStore& store, const LeaseArgs& a) {
  return with_store(store, [&](Store& s) {
    const AdminContext ctx{SystemClock().now_ms(), std::nullopt};
    auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) -> Result<Ok> {
      RETURN_IF_ERROR(release_lease(tx, a.key, a.machine_id, a.session_id, ctx));
      return Ok{};
    });
    if (!r.ok()) return report(r.error());
    std::cout << "released\n";
    return kExitOk;
  });
}

}  // namespace

void add_lease_commands(CLI::App& license, const AdminStore* store, const ChosenCommand& chosen) {
  auto a = std::make_shared<LeaseArgs>();
  auto* leases = license.add_subcommand("leases", "the live concurrent-seat leases of a license");
  leases->add_option("KEY", a->key, "license key")->required();
  leases->add_flag("--json", a->json, "print a JSON array");
  leases->callback(
      [a, store, chosen] { *chosen = [a, store] { return print_leases(*store, *a); }; });
  auto* rel = license.add_subcommand("release-lease", "free a seat now (borrowed ones too)");
  rel->add_option("KEY", a->key, "license key")->required();
  rel->add_option("MACHINE", a->machine_id, "machine id")->required();
  rel->add_option("SESSION", a->session_id, "session id (the machine id by default)")->required();
  rel->callback([a, store, chosen] { *chosen = [a, store] { return release(*store, *a); }; });
}

}  // namespace licensed
