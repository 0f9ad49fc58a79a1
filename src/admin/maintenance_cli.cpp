#include "admin/maintenance_cli.h"

#include <boost/json/serialize.hpp>
#include <iostream>
#include <memory>

#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "store/store.h"
#include "store/store_maintenance.h"

namespace licensed {
namespace {

using admin_cli::report;
using admin_cli::with_store;

namespace json = boost::json;

struct MaintenanceArgs {
  std::string out;
  bool json = false;
};

std::string versions_text(const std::vector<int>& versions) {
  if (versions.empty()) return "none";
  std::string out;
  for (const int v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

json::object schema_json(const SchemaState& s) {
  json::array pending;
  for (const int v : s.pending) pending.push_back(v);
  return {{"version", s.version}, {"newest", s.newest}, {"pending", std::move(pending)}};
}

int run_schema(const AdminStore& store, bool as_json) {
  auto state = read_schema_state(store.url);
  if (!state.ok()) return report(state.error());
  if (!state->exists) {
    return report(Error::not_found("store", "the store " + store_display_name(store.url) +
                                                " does not exist (`licensed init` creates one)"));
  }
  if (as_json) {
    std::cout << json::serialize(schema_json(state.value())) << "\n";
    return kExitOk;
  }
  std::cout << "schema version      " << state->version << "\n"
            << "this licensed needs " << state->newest << "\n"
            << "pending migrations  " << versions_text(state->pending) << "\n";
  if (state->version > state->newest) {
    std::cout << "the store was migrated by a newer licensed: run that one\n";
  } else if (!state->pending.empty()) {
    std::cout << "serve applies them at start; admin commands only with --migrate\n";
  }
  return kExitOk;
}

int run_verify(const AdminStore& store, bool as_json) {
  auto check = check_store(store.url);
  if (!check.ok()) return report(check.error());
  const StoreCheck& c = check.value();
  if (as_json) {
    json::object counts;
    for (const auto& t : c.counts) counts[t.table] = t.rows;
    json::array problems;
    for (const auto& p : c.problems) problems.emplace_back(p);
    std::cout << json::serialize(json::object{{"ok", c.problems.empty()},
                                              {"schema", schema_json(c.schema)},
                                              {"counts", std::move(counts)},
                                              {"problems", std::move(problems)}})
              << "\n";
  } else {
    std::cout << "store " << store_display_name(store.url) << ", schema version "
              << c.schema.version << " (pending: " << versions_text(c.schema.pending) << ")\n";
    for (const auto& t : c.counts) std::cout << "  " << t.table << " " << t.rows << "\n";
    for (const auto& p : c.problems) std::cout << "problem: " << p << "\n";
    std::cout << (c.problems.empty() ? "integrity ok\n" : "integrity NOT ok\n");
  }
  return c.problems.empty() ? kExitOk : kExitRefused;
}

int run_backup(const AdminStore& store, const std::string& out) {
  if (auto copied = backup_store(store.url, out); !copied.ok()) return report(copied.error());
  // The copy is checked as a restore would be, so a bad one is known now.
  auto check = check_store("sqlite:" + out);
  if (!check.ok()) return report(check.error());
  int64_t licenses = 0, activations = 0;
  for (const auto& t : check->counts) {
    if (t.table == "licenses") licenses = t.rows;
    if (t.table == "activations") activations = t.rows;
  }
  std::cout << "backed up " << store_display_name(store.url) << " to " << out << " (schema version "
            << check->schema.version << ", " << licenses << " licenses, " << activations
            << " activations, integrity " << (check->problems.empty() ? "ok" : "NOT ok") << ")\n";
  return check->problems.empty() ? kExitOk : kExitRefused;
}

}  // namespace

void add_maintenance_commands(CLI::App& admin, const AdminStore* store,
                              const ChosenCommand& chosen) {
  auto a = std::make_shared<MaintenanceArgs>();
  auto* schema = admin.add_subcommand(
      "schema", "the store's schema version and the migrations this licensed would apply");
  schema->add_flag("--json", a->json, "print {\"version\", \"newest\", \"pending\"}");
  schema->callback(
      [a, store, chosen] { *chosen = [a, store] { return run_schema(*store, a->json); }; });

  auto* verify = admin.add_subcommand(
      "verify", "count the store's rows and check its integrity (exit 1 on a problem)");
  verify->add_flag("--json", a->json, "print {\"ok\", \"schema\", \"counts\", \"problems\"}");
  verify->callback(
      [a, store, chosen] { *chosen = [a, store] { return run_verify(*store, a->json); }; });

  auto* backup = admin.add_subcommand(
      "backup", "copy a SQLite store consistently while it serves (PostgreSQL: pg_dump)");
  backup->add_option("--out", a->out, "file to create (mode 0600); never replaced")->required();
  backup->callback(
      [a, store, chosen] { *chosen = [a, store] { return run_backup(*store, a->out); }; });
}

}  // namespace licensed
