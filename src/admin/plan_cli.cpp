#include "admin/plan_cli.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>

#include "admin/admin_leases.h"
#include "admin/admin_operations.h"
#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "admin/plan_operations.h"
#include "core/license_json.h"
#include "core/text.h"
#include "core/timestamp.h"
#include "store/store.h"

namespace licensed {
namespace {

namespace json = boost::json;

struct PlanArgs {
  std::string product, code, name, key, field, value, machine_id;
  std::string plan_flag;
  std::optional<std::string> expires_at, entitlement_value;
  int64_t days = 0;
  bool off = false;
  bool json_out = false;
  std::vector<std::string> entitlements;
  // Plan members by their JSON names, as given on the command line.
  std::vector<std::pair<std::string, std::string>> members;
};

// The plan members a flag may set: (flag, member, is a count).
struct MemberFlag {
  const char* flag;
  const char* member;
  bool count;
};
constexpr MemberFlag kMemberFlags[] = {
    {"--max", "max", true},
    {"--valid-for", "validFor", false},
    {"--valid-from", "validFrom", false},
    {"--machine-ttl", "machineTtl", false},
    {"--offline-grace", "offlineGrace", false},
    {"--offline-lease", "offlineLease", false},
    {"--offline-release", "offlineRelease", false},
    {"--max-concurrent", "maxConcurrent", true},
    {"--lease-ttl", "leaseTtl", false},
    {"--max-deactivations", "maxDeactivations", true},
    {"--max-borrow", "maxBorrow", false},
};

using admin_cli::report;
using admin_cli::with_store;

AdminContext now_context() {
  return AdminContext{SystemClock().now_ms(), std::nullopt};
}

// `=VALUE`: JSON when it is a JSON number, true or false; else the text as a string.
json::value cli_value(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (!ec && (v.is_number() || v.is_bool())) return v;
  return json::value(text);
}

// CODE[@X][=VALUE] -> (code, X, value).
struct EntitlementFlag {
  std::string code;
  std::optional<std::string> at;
  std::optional<json::value> value;
};
EntitlementFlag split_entitlement(const std::string& flag) {
  EntitlementFlag out;
  std::string left = flag;
  if (const auto eq = flag.find('='); eq != std::string::npos) {
    left = flag.substr(0, eq);
    out.value = cli_value(flag.substr(eq + 1));
  }
  if (const auto at = left.find('@'); at != std::string::npos) {
    out.at = left.substr(at + 1);
    left = left.substr(0, at);
  }
  out.code = left;
  return out;
}

json::object plan_body(const PlanArgs& a, bool creating) {
  json::object body;
  if (creating) {
    body["code"] = a.code;
    body["name"] = a.name;
  } else if (!a.name.empty()) {
    body["name"] = a.name;
  }
  for (const auto& entry : a.members) {
    const auto& member = entry.first;
    const auto& text = entry.second;
    // (Not a structured binding: C++20 lets a lambda capture one, clang 14 does not.)
    const bool count =
        std::any_of(std::begin(kMemberFlags), std::end(kMemberFlags),
                    [&member](const MemberFlag& f) { return member == f.member && f.count; });
    if (text == "null" || text == "never") {
      body[member] = nullptr;
    } else if (count) {
      body[member] = cli_value(text);
    } else {
      body[member] = text;
    }
  }
  if (!a.entitlements.empty()) {
    json::array list;
    for (const auto& flag : a.entitlements) {
      const EntitlementFlag e = split_entitlement(flag);
      json::object entry{{"code", e.code}};
      if (e.at) entry["validFor"] = *e.at;
      if (e.value) entry["value"] = *e.value;
      list.push_back(std::move(entry));
    }
    body["entitlements"] = std::move(list);
  }
  return body;
}

void print_plan(const Plan& p, bool as_json) {
  if (as_json) {
    std::cout << json::serialize(plan_json(p)) << "\n";
    return;
  }
  std::cout << p.code << "  " << p.name << "  max "
            << (p.max ? std::to_string(*p.max) : std::string("-")) << "  validFor "
            << (p.valid_for_seconds ? format_duration(*p.valid_for_seconds) : "never") << "\n";
}

void add_member_flags(CLI::App* cmd, const std::shared_ptr<PlanArgs>& a) {
  for (const MemberFlag& f : kMemberFlags) {
    const std::string member = f.member;
    cmd->add_option_function<std::string>(
        f.flag, [a, member](const std::string& v) { a->members.emplace_back(member, v); },
        std::string("the plan's ") + f.member);
  }
  cmd->add_option("--entitlement", a->entitlements, "CODE[@DURATION][=VALUE], repeatable");
}

void add_plan_group(CLI::App& admin, const std::shared_ptr<PlanArgs>& a, const AdminStore* store,
                    const ChosenCommand& chosen) {
  auto* plan = admin.add_subcommand("plan", "a product's plans (editions)")->require_subcommand(1);
  auto* create = plan->add_subcommand("create", "create a plan");
  create->add_option("--product", a->product, "product slug")->required();
  create->add_option("--code", a->code, "plan code, e.g. pro")->required();
  create->add_option("--name", a->name, "display name")->required();
  add_member_flags(create, a);
  create->add_flag("--json", a->json_out, "print JSON");
  create->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return create_plan(tx, a->product, plan_body(*a, true), now_context());
        });
        if (!r.ok()) return report(r.error());
        print_plan(r.value(), a->json_out);
        return kExitOk;
      });
    };
  });
  auto* set = plan->add_subcommand("set", "change a plan's members");
  set->add_option("--product", a->product, "product slug")->required();
  set->add_option("--code", a->code, "plan code")->required();
  set->add_option("--name", a->name, "display name");
  add_member_flags(set, a);
  set->add_flag("--json", a->json_out, "print JSON");
  set->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return patch_plan(tx, a->product, a->code, plan_body(*a, false));
        });
        if (!r.ok()) return report(r.error());
        print_plan(r.value(), a->json_out);
        return kExitOk;
      });
    };
  });
  auto* list = plan->add_subcommand("list", "list a product's plans");
  list->add_option("--product", a->product, "product slug")->required();
  list->add_flag("--json", a->json_out, "print a JSON array");
  list->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r =
            run_blocking(s, TxKind::kRead, [&](StoreTx& tx) { return list_plans(tx, a->product); });
        if (!r.ok()) return report(r.error());
        if (a->json_out) {
          json::array out;
          for (const auto& p : r.value()) out.push_back(plan_json(p));
          std::cout << json::serialize(out) << "\n";
          return kExitOk;
        }
        for (const auto& p : r.value()) print_plan(p, false);
        return kExitOk;
      });
    };
  });
  auto* show = plan->add_subcommand("show", "show one plan as JSON");
  show->add_option("--product", a->product, "product slug")->required();
  show->add_option("--code", a->code, "plan code")->required();
  show->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kRead,
                              [&](StoreTx& tx) { return find_plan(tx, a->product, a->code); });
        if (!r.ok()) return report(r.error());
        print_plan(r.value(), true);
        return kExitOk;
      });
    };
  });
  auto* del = plan->add_subcommand("delete", "delete a plan (licenses made from it keep theirs)");
  del->add_option("--product", a->product, "product slug")->required();
  del->add_option("--code", a->code, "plan code")->required();
  del->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite,
                              [&](StoreTx& tx) { return delete_plan(tx, a->product, a->code); });
        if (!r.ok()) return report(r.error());
        std::cout << "deleted plan " << a->code << "\n";
        return kExitOk;
      });
    };
  });
}

int patch_product_and_print(const AdminStore& store, const std::string& slug,
                            const json::object& body) {
  return with_store(store, [&](Store& s) {
    auto r =
        run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) { return patch_product(tx, slug, body); });
    if (!r.ok()) return report(r.error());
    std::cout << json::serialize(admin_product_json(r.value())) << "\n";
    return kExitOk;
  });
}

void add_product_commands(CLI::App& product, const std::shared_ptr<PlanArgs>& a,
                          const AdminStore* store, const ChosenCommand& chosen) {
  auto* trial = product.add_subcommand("set-trial", "offer trials of a product, or stop");
  trial->add_option("SLUG", a->product, "product slug")->required();
  trial->add_option("--plan", a->plan_flag, "the plan trial licenses are made from");
  trial->add_option("--days", a->days, "how long a trial lasts");
  trial->add_flag("--off", a->off, "offer no trials");
  trial->callback([a, store, chosen] {
    *chosen = [a, store] {
      if (a->off == (!a->plan_flag.empty() || a->days != 0)) {
        std::cerr << "licensed admin: give --plan CODE --days N, or --off\n";
        return kExitUsage;
      }
      json::object body;
      if (a->off) {
        body["trial"] = nullptr;
      } else {
        body["trial"] = json::object{{"plan", a->plan_flag}, {"days", a->days}};
      }
      return patch_product_and_print(*store, a->product, body);
    };
  });
  auto* def = product.add_subcommand("set-default-plan", "the plan of licenses made without one");
  def->add_option("SLUG", a->product, "product slug")->required();
  def->add_option("PLAN", a->plan_flag, "plan code, or none")->required();
  def->callback([a, store, chosen] {
    *chosen = [a, store] {
      json::object body;
      body["defaultPlan"] =
          a->plan_flag == "none" ? json::value(nullptr) : json::value(a->plan_flag);
      return patch_product_and_print(*store, a->product, body);
    };
  });
  auto* show = product.add_subcommand("show", "show a product as JSON");
  show->add_option("SLUG", a->product, "product slug")->required();
  show->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kRead,
                              [&](StoreTx& tx) { return find_product_by_slug(tx, a->product); });
        if (!r.ok()) return report(r.error());
        std::cout << json::serialize(admin_product_json(r.value())) << "\n";
        return kExitOk;
      });
    };
  });
}

int run_license_change(const AdminStore& store,
                       const std::function<Result<License>(StoreTx&)>& change) {
  return with_store(store, [&](Store& s) {
    auto r = run_blocking(s, TxKind::kWrite, change);
    if (!r.ok()) return report(r.error());
    std::cout << json::serialize(license_json(r.value(), SystemClock().now_ms())) << "\n";
    return kExitOk;
  });
}

Result<std::optional<UnixMillis>> timestamp_or_never(const std::string& text,
                                                     std::string_view field) {
  if (text == "never" || text == "null") return std::optional<UnixMillis>();
  const auto t = parse_timestamp(text);
  if (!t) return Error::invalid_argument(field, std::string(field) + " is RFC 3339 or never");
  return std::optional<UnixMillis>(*t);
}

// `license set KEY FIELD VALUE|null`: one license field by its JSON name.
Result<License> set_license_field(StoreTx& tx, const std::string& key, const std::string& field,
                                  const std::string& value, const AdminContext& ctx) {
  const bool null = value == "null" || value == "never";
  if (field == "max") {
    const auto n = parse_whole_number<int64_t>(value);
    if (!n) return Error::invalid_argument("max", "max is a whole number, 0 or more");
    return set_license_max(tx, key, *n, ctx);
  }
  if (field == "status") {
    const auto st = parse_license_status(value);
    if (!st) return Error::invalid_argument("status", "ACTIVE, SUSPENDED, REFUNDED or REVOKED");
    return set_license_status(tx, key, *st, ctx);
  }
  if (field == "expiresAt") {
    ASSIGN_OR_RETURN(const auto t, timestamp_or_never(value, "expiresAt"));
    return set_license_expiry(tx, key, t, ctx);
  }
  if (field == "machineTtl" || field == "offlineGrace") {
    std::optional<int64_t> seconds;
    if (!null) {
      ASSIGN_OR_RETURN(seconds, duration_member(json::value(value), field));
    }
    if (field == "machineTtl") return set_license_machine_ttl(tx, key, seconds, ctx);
    return set_license_offline_grace(tx, key, seconds, ctx);
  }
  if (field == "offlineLease") {
    std::optional<int64_t> seconds;
    if (!null) {
      ASSIGN_OR_RETURN(seconds, duration_member(json::value(value), field));
    }
    return set_license_offline_lease(tx, key, seconds, ctx);
  }
  if (field == "offlineRelease") {
    const auto release = parse_offline_release(value);
    if (!release) return Error::invalid_argument(field, "offlineRelease is expiry or deactivation");
    return set_license_offline_release(tx, key, *release, ctx);
  }
  if (field == "maxDeactivations") {
    const auto n = parse_whole_number<int64_t>(value);
    if (!null && (!n || *n < 0)) {
      return Error::invalid_argument(field, "maxDeactivations is a whole number, 0 or more");
    }
    return set_license_max_deactivations(tx, key, null ? std::nullopt : n, ctx);
  }
  const std::pair<std::string_view, SeatField> seats[] = {
      {"maxConcurrent", SeatField::kMaxConcurrent},
      {"leaseTtl", SeatField::kLeaseTtl},
      {"maxBorrow", SeatField::kMaxBorrow}};
  for (const auto& [name, seat] : seats) {
    if (field != name) continue;
    std::optional<int64_t> v;
    if (!null && seat == SeatField::kMaxConcurrent) {
      v = parse_whole_number<int64_t>(value);
      if (!v) return Error::invalid_argument(field, "maxConcurrent is a whole number or null");
    } else if (!null) {
      v = parse_duration_seconds(value);
      if (!v)
        return Error::invalid_argument(field, field + " is a DURATION (90s, 10m, 7d) or null");
    }
    return set_license_seat_field(tx, key, seat, v, ctx);
  }
  return Error::invalid_argument("field",
                                 "a field set changes: max, status, expiresAt, machineTtl, "
                                 "offlineGrace, offlineLease, offlineRelease, maxDeactivations, "
                                 "maxConcurrent, leaseTtl, maxBorrow");
}

void add_license_commands(CLI::App& license, const std::shared_ptr<PlanArgs>& a,
                          const AdminStore* store, const ChosenCommand& chosen) {
  auto* entitle = license.add_subcommand("entitle", "add or change one entitlement");
  entitle->add_option("KEY", a->key, "license key")->required();
  entitle->add_option("CODE", a->code, "entitlement code")->required();
  entitle->add_option("--expires-at", a->expires_at, "RFC 3339 timestamp, or never");
  entitle->add_option("--value", a->entitlement_value, "a JSON number, true, false, or text");
  entitle->callback([a, store, chosen] {
    *chosen = [a, store] {
      return run_license_change(*store, [&](StoreTx& tx) -> Result<License> {
        std::optional<std::optional<UnixMillis>> expiry;
        if (a->expires_at) {
          ASSIGN_OR_RETURN(expiry, timestamp_or_never(*a->expires_at, "expiresAt"));
        }
        std::optional<std::string> value;
        if (a->entitlement_value) {
          const json::value v = cli_value(*a->entitlement_value);
          if (!valid_entitlement_value(v)) {
            return Error::invalid_argument("entitlements", "a value is at most 256 bytes");
          }
          value = json::serialize(v);
        }
        return entitle_license(tx, a->key, a->code, expiry, value, now_context());
      });
    };
  });
  auto* unentitle = license.add_subcommand("unentitle", "remove one entitlement");
  unentitle->add_option("KEY", a->key, "license key")->required();
  unentitle->add_option("CODE", a->code, "entitlement code")->required();
  unentitle->callback([a, store, chosen] {
    *chosen = [a, store] {
      return run_license_change(*store, [&](StoreTx& tx) {
        return unentitle_license(tx, a->key, a->code, now_context());
      });
    };
  });
  auto* set = license.add_subcommand("set",
                                     "change one field: max, status, expiresAt, "
                                     "machineTtl, offlineGrace, offlineLease, "
                                     "offlineRelease, maxDeactivations, maxConcurrent, leaseTtl, "
                                     "maxBorrow");
  set->add_option("KEY", a->key, "license key")->required();
  set->add_option("FIELD", a->field, "the field's JSON name")->required();
  set->add_option("VALUE", a->value, "its new value, or null")->required();
  set->callback([a, store, chosen] {
    *chosen = [a, store] {
      return run_license_change(*store, [&](StoreTx& tx) {
        return set_license_field(tx, a->key, a->field, a->value, now_context());
      });
    };
  });
}

void add_trial_commands(CLI::App& admin, const std::shared_ptr<PlanArgs>& a,
                        const AdminStore* store, const ChosenCommand& chosen) {
  auto* trial = admin.add_subcommand("trial", "trials of products")->require_subcommand(1);
  auto* reset = trial->add_subcommand("reset", "let a machine start a new trial (audited)");
  reset->add_option("--product", a->product, "product slug")->required();
  reset->add_option("--machine-id", a->machine_id, "the machine's id")->required();
  reset->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return reset_trial(tx, a->product, a->machine_id, now_context());
        });
        if (!r.ok()) return report(r.error());
        std::cout << "reset the trial of " << a->product << " on " << a->machine_id << "\n";
        return kExitOk;
      });
    };
  });
}

}  // namespace

Result<std::vector<Entitlement>> parse_license_entitlement_flags(
    const std::vector<std::string>& flags) {
  std::vector<Entitlement> out;
  for (const auto& flag : flags) {
    const EntitlementFlag f = split_entitlement(flag);
    Entitlement e;
    e.code = f.code;
    if (f.at) {
      ASSIGN_OR_RETURN(e.expires_at, timestamp_or_never(*f.at, "entitlements"));
    }
    if (f.value) {
      if (!valid_entitlement_value(*f.value)) {
        return Error::invalid_argument("entitlements", "a value is at most 256 bytes");
      }
      e.value_json = json::serialize(*f.value);
    }
    out.push_back(std::move(e));
  }
  RETURN_IF_ERROR(check_entitlements(out, "entitlements"));
  return out;
}

void add_plan_commands(CLI::App& admin, CLI::App& product, CLI::App& license,
                       const AdminStore* store, const ChosenCommand& chosen) {
  auto a = std::make_shared<PlanArgs>();
  add_plan_group(admin, a, store, chosen);
  add_product_commands(product, a, store, chosen);
  add_license_commands(license, a, store, chosen);
  add_trial_commands(admin, a, store, chosen);
}

}  // namespace licensed
