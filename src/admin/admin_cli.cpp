#include "admin/admin_cli.h"

#include <boost/json/serialize.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "admin/admin_operations.h"
#include "admin/admin_tokens.h"
#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "admin/lease_cli.h"
#include "admin/maintenance_cli.h"
#include "admin/offline_cli.h"
#include "admin/plan_cli.h"
#include "admin/plan_operations.h"
#include "admin/store_cli.h"
#include "admin/store_transfer.h"
#include "admin/webhook_cli.h"
#include "auth/response_key.h"
#include "core/license_json.h"
#include "core/private_file.h"
#include "core/text.h"
#include "core/timestamp.h"
#include "store/store.h"

namespace licensed {
namespace {

using admin_cli::report;
using admin_cli::with_store;

struct AdminArgs {
  AdminStore store;
  std::string slug, name;
  std::string product;
  std::string max;  // parsed by the command, so a bad value is bad input (exit 1)
  std::string expires_at;
  std::string machine_ttl;
  std::string key;
  std::string status;
  std::optional<std::string> reason;  // kept in the audit record
  std::string ttl_value;
  std::string out_file;
  std::string token_name;
  std::string algorithm = "ed25519";  // response-key generate --alg
  bool read_only = false;
  bool json = false;
  std::string plan;
  std::string offline_grace;
  std::string offline_lease, offline_release, max_deactivations;  // docs/protocol.md §21.7
  std::string max_concurrent, lease_ttl, max_borrow;              // docs/protocol.md §27
  std::vector<std::string> entitlements;
};

// A machine cap: a whole number, 0 or more; nullopt (said on stderr) for anything else.
std::optional<int64_t> parse_max(std::string_view text) {
  const auto max = parse_whole_number<int64_t>(text);
  if (!max || *max < 0) {
    std::cerr << "licensed admin: the machine cap is a whole number, 0 or more: " << text << "\n";
    return std::nullopt;
  }
  return max;
}

// A duration flag's value in seconds; nullopt (said on stderr, naming `flag`) for anything
// but a whole number and a unit of at most 100 years.
std::optional<int64_t> duration_flag(std::string_view flag, std::string_view text,
                                     std::string_view alternative = "") {
  const auto seconds = parse_duration_seconds(text);
  if (!seconds) {
    std::cerr << "licensed admin: " << flag
              << " is a whole number and a unit (90s, 10m, 12h, 7d), at most 36500d" << alternative
              << ": " << text << "\n";
  }
  return seconds;
}

AdminContext admin_context() {
  return AdminContext{SystemClock().now_ms(), std::nullopt};
}

void print_license(const License& l, bool json) {
  if (json) {
    std::cout << boost::json::serialize(license_json(l, SystemClock().now_ms())) << "\n";
  } else {
    std::cout << l.key << "\n";
  }
}

}  // namespace

std::function<int()> add_admin_commands(CLI::App& admin) {
  auto a = std::make_shared<AdminArgs>();
  auto chosen = std::make_shared<std::function<int()>>();
  const char* store_env = std::getenv("LICENSED_STORE");
  a->store.url = store_env != nullptr ? store_env : "sqlite:./licensed.db";
  admin.add_option("--store", a->store.url,
                   "sqlite:PATH or postgresql://... (default sqlite:./licensed.db)");
  admin.add_flag("--create", a->store.create,
                 "create the store when it does not exist (else it is refused; see licensed init)");
  admin.add_flag("--migrate", a->store.migrate,
                 "apply pending schema migrations (only once no older server uses the store)");
  admin.require_subcommand(1);

  auto* product = admin.add_subcommand("product", "manage products")->require_subcommand(1);
  auto* pcreate = product->add_subcommand("create", "create a product");
  pcreate->add_option("--slug", a->slug, "short identifier, e.g. reverb")->required();
  pcreate->add_option("--name", a->name, "display name")->required();
  pcreate->add_flag("--json", a->json, "print JSON");
  pcreate->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return create_product(tx, a->slug, a->name, admin_context());
        });
        if (!r.ok()) return report(r.error());
        if (a->json) {
          std::cout << boost::json::serialize(product_json(r.value())) << "\n";
        } else {
          std::cout << "created product " << r->slug << "\n";
        }
        return kExitOk;
      });
    };
  });

  auto* license = admin.add_subcommand("license", "manage licenses")->require_subcommand(1);
  auto* lcreate = license->add_subcommand("create", "create a license");
  lcreate->add_option("--product", a->product, "product slug")->required();
  lcreate->add_option("--max", a->max,
                      "cap on distinct machines (required unless a plan gives it)");
  lcreate->add_option("--plan", a->plan, "copy this plan (default: the product's defaultPlan)");
  lcreate->add_option("--entitlement", a->entitlements, "CODE[@TS][=VALUE], repeatable");
  lcreate->add_option("--offline-grace", a->offline_grace,
                      "how long a cached answer serves offline (default 14d)");
  lcreate->add_option("--offline-lease", a->offline_lease,
                      "how long an offline activation file lasts (default 90d)");
  lcreate->add_option("--offline-release", a->offline_release,
                      "expiry (default) or deactivation: when an offline deactivation frees");
  lcreate->add_option("--max-deactivations", a->max_deactivations,
                      "deactivations per 30 days (default none, 3 under --offline-release "
                      "deactivation)");
  lcreate->add_option("--max-concurrent", a->max_concurrent,
                      "cap on copies running at once (default none)");
  lcreate->add_option("--lease-ttl", a->lease_ttl, "how long a seat lease lasts (default 15m)");
  lcreate->add_option("--max-borrow", a->max_borrow, "longest borrow (default: no borrowing)");
  lcreate->add_option("--expires-at", a->expires_at, "RFC 3339 timestamp");
  lcreate->add_option("--machine-ttl", a->machine_ttl,
                      "reclaim machines unseen this long (90s, 10m, 7d)");
  lcreate->add_option("--status", a->status, "ACTIVE (default), SUSPENDED, REFUNDED, REVOKED");
  lcreate->add_flag("--json", a->json, "print JSON");
  lcreate->callback([a, chosen] {
    *chosen = [a] {
      LicenseSpec spec;
      spec.product_slug = a->product;
      if (!a->max.empty()) {
        const auto max = parse_max(a->max);
        if (!max) return kExitRefused;
        spec.max = *max;
      }
      if (!a->plan.empty()) spec.plan = a->plan;
      if (!a->entitlements.empty()) {
        auto list = parse_license_entitlement_flags(a->entitlements);
        if (!list.ok()) return report(list.error());
        spec.entitlements = std::move(list.value());
      }
      if (!a->offline_grace.empty()) {
        spec.offline_grace_seconds = duration_flag("--offline-grace", a->offline_grace);
        if (!spec.offline_grace_seconds) return kExitRefused;
      }
      if (!a->offline_lease.empty()) {
        spec.offline_lease_seconds = duration_flag("--offline-lease", a->offline_lease);
        if (!spec.offline_lease_seconds) return kExitRefused;
      }
      if (!a->offline_release.empty()) {
        spec.offline_release = parse_offline_release(a->offline_release);
        if (!spec.offline_release) {
          std::cerr << "licensed admin: --offline-release is expiry or deactivation\n";
          return kExitRefused;
        }
      }
      if (!a->max_deactivations.empty()) {
        const auto n = parse_max(a->max_deactivations);
        if (!n) return kExitRefused;
        spec.max_deactivations = *n;
      }
      if (!a->max_concurrent.empty()) {
        spec.max_concurrent = parse_whole_number<int64_t>(a->max_concurrent);
        if (!spec.max_concurrent || *spec.max_concurrent < 1) {
          std::cerr << "licensed admin: --max-concurrent is a whole number, 1 or more\n";
          return kExitRefused;
        }
      }
      if (!a->lease_ttl.empty()) {
        spec.lease_ttl_seconds = duration_flag("--lease-ttl", a->lease_ttl);
        if (!spec.lease_ttl_seconds) return kExitRefused;
      }
      if (!a->max_borrow.empty()) {
        spec.max_borrow_seconds = duration_flag("--max-borrow", a->max_borrow);
        if (!spec.max_borrow_seconds) return kExitRefused;
      }
      if (!a->expires_at.empty()) {
        spec.expires_at = parse_timestamp(a->expires_at);
        if (!spec.expires_at) {
          std::cerr
              << "licensed admin: --expires-at must be RFC 3339, e.g. 2027-01-01T00:00:00.000Z\n";
          return kExitRefused;
        }
      }
      if (!a->machine_ttl.empty()) {
        spec.machine_ttl_seconds = duration_flag("--machine-ttl", a->machine_ttl);
        if (!spec.machine_ttl_seconds) return kExitRefused;
      }
      if (!a->status.empty()) {
        const auto st = parse_license_status(a->status);
        if (!st) {
          std::cerr << "licensed admin: status is ACTIVE, SUSPENDED, REFUNDED or REVOKED\n";
          return kExitRefused;
        }
        spec.status = *st;
      }
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return create_license(tx, spec, admin_context());
        });
        // No --max and no plan to give one: a usage error, as a missing flag is.
        if (!r.ok() && !spec.max && r.error().subject == "max") {
          std::cerr << "licensed admin: --max is required (no plan gives it)\n";
          return kExitUsage;
        }
        if (!r.ok()) return report(r.error());
        print_license(r.value(), a->json);
        return kExitOk;
      });
    };
  });

  auto* lshow = license->add_subcommand("show", "show a license and its activations");
  lshow->add_option("KEY", a->key, "license key")->required();
  lshow->add_flag("--json", a->json, "print JSON");
  lshow->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kRead, [&](StoreTx& tx) {
          return show_license(tx, a->key, SystemClock().now_ms());
        });
        if (!r.ok()) return report(r.error());
        if (a->json) {
          std::cout << boost::json::serialize(r.value()) << "\n";
          return kExitOk;
        }
        const auto& o = r.value();
        std::cout << "license     " << o.at("licenseKey").as_string().c_str() << "\n"
                  << "product     " << o.at("product").at("slug").as_string().c_str() << "\n"
                  << "status      " << o.at("status").as_string().c_str() << "\n"
                  << "max         " << o.at("max").as_int64() << "\n"
                  << "expiresAt   " << boost::json::serialize(o.at("expiresAt")) << "\n"
                  << "machineTtl  " << boost::json::serialize(o.at("machineTtl")) << "\n"
                  << "plan        " << boost::json::serialize(o.at("plan")) << "\n"
                  << "offlineGrace " << o.at("offlineGrace").as_int64() << "s\n"
                  << "offlineLease " << boost::json::serialize(o.at("offlineLease")) << "\n"
                  << "offlineRelease " << boost::json::serialize(o.at("offlineRelease")) << "\n"
                  << "maxDeactivations " << boost::json::serialize(o.at("maxDeactivations")) << "\n"
                  << "maxConcurrent " << boost::json::serialize(o.at("maxConcurrent")) << "\n"
                  << "leaseTtl    " << boost::json::serialize(o.at("leaseTtl")) << "\n"
                  << "maxBorrow   " << boost::json::serialize(o.at("maxBorrow")) << "\n"
                  << "entitlements " << boost::json::serialize(o.at("entitlements")) << "\n"
                  << "deletedAt   " << boost::json::serialize(o.at("deletedAt")) << "\n"
                  << "activations " << o.at("activationCount").as_int64() << "\n";
        for (const auto& m : o.at("activations").as_array()) {
          // An offline machine never heartbeats: its file's end is what tells (offline.md).
          const bool offline = m.as_object().contains("offlineUntil");
          std::cout << "  " << m.at("id").as_string().c_str()
                    << (offline ? "  offline until " : "  last seen ")
                    << m.at(offline ? "offlineUntil" : "lastSeenAt").as_string().c_str() << "\n";
        }
        return kExitOk;
      });
    };
  });

  auto key_command = [&](const char* name, const char* help) {
    auto* cmd = license->add_subcommand(name, help);
    cmd->add_option("KEY", a->key, "license key")->required();
    return cmd;
  };

  auto* lstatus = key_command("set-status", "set ACTIVE, SUSPENDED, REFUNDED or REVOKED");
  lstatus->add_option("STATUS", a->status, "new status")->required();
  lstatus->add_option("--reason", a->reason,
                      "why, kept in the audit record (at most 500 characters)");
  lstatus->callback([a, chosen] {
    *chosen = [a] {
      const auto st = parse_license_status(a->status);
      if (!st) {
        std::cerr << "licensed admin: status is ACTIVE, SUSPENDED, REFUNDED or REVOKED\n";
        return kExitRefused;
      }
      AdminContext ctx = admin_context();
      ctx.reason = a->reason;
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return set_license_status(tx, a->key, *st, ctx);
        });
        if (!r.ok()) return report(r.error());
        std::cout << r->key << " status " << to_string(r->status) << "\n";
        return kExitOk;
      });
    };
  });

  auto* lmax = key_command("set-max", "change the machine cap");
  lmax->add_option("N", a->max, "new cap")->required();
  lmax->callback([a, chosen] {
    *chosen = [a] {
      const auto max = parse_max(a->max);
      if (!max) return kExitRefused;
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return set_license_max(tx, a->key, *max, admin_context());
        });
        if (!r.ok()) return report(r.error());
        std::cout << r->key << " max " << r->max << "\n";
        return kExitOk;
      });
    };
  });

  auto* lttl = key_command("set-machine-ttl", "reclaim machines unseen this long");
  lttl->add_option("DURATION", a->ttl_value, "90s, 10m, 12h, 7d, or never")->required();
  lttl->callback([a, chosen] {
    *chosen = [a] {
      std::optional<int64_t> ttl;
      if (a->ttl_value != "never") {
        ttl = duration_flag("DURATION", a->ttl_value, " or never");
        if (!ttl) return kExitRefused;
      }
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return set_license_machine_ttl(tx, a->key, ttl, admin_context());
        });
        if (!r.ok()) return report(r.error());
        std::cout << r->key << " machineTtl "
                  << (r->machine_ttl_seconds ? std::to_string(*r->machine_ttl_seconds) + "s"
                                             : "never")
                  << "\n";
        return kExitOk;
      });
    };
  });

  auto* ldelete = key_command("delete", "soft-delete a license");
  ldelete->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return delete_license(tx, a->key, admin_context());
        });
        if (!r.ok()) return report(r.error());
        std::cout << r->key << " deleted\n";
        return kExitOk;
      });
    };
  });

  add_plan_commands(admin, *product, *license, &a->store, chosen);
  add_offline_commands(*license, &a->store, chosen);
  add_lease_commands(*license, &a->store, chosen);
  add_store_commands(admin, &a->store, chosen);
  add_webhook_commands(admin, &a->store, chosen);
  add_maintenance_commands(admin, &a->store, chosen);

  auto* audit = admin.add_subcommand("audit", "a license's audit records, oldest first");
  audit->add_option("KEY", a->key, "license key")->required();
  audit->add_flag("--json", a->json, "print a JSON array");
  audit->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r =
            run_blocking(s, TxKind::kRead, [&](StoreTx& tx) { return license_audit(tx, a->key); });
        if (!r.ok()) return report(r.error());
        if (a->json) {
          std::cout << boost::json::serialize(r.value()) << "\n";
          return kExitOk;
        }
        for (const auto& e : r.value()) {
          const auto& o = e.as_object();
          std::cout << o.at("id").as_int64() << "  " << o.at("at").as_string().c_str() << "  "
                    << o.at("action").as_string().c_str() << "  "
                    << o.at("actor").as_string().c_str();
          if (o.contains("machineId")) std::cout << "  " << o.at("machineId").as_string().c_str();
          if (o.contains("refresh")) std::cout << "  refresh";
          std::cout << "\n";
        }
        return kExitOk;
      });
    };
  });

  // Admin API tokens (docs/protocol.md §18): shown once, stored as SHA-256 only.
  auto* token =
      admin.add_subcommand("token", "bearer tokens of the admin HTTP API")->require_subcommand(1);
  auto* tcreate = token->add_subcommand("create", "make a token and print it (shown only once)");
  tcreate->add_option("--name", a->token_name, "unique name, recorded in audit records")
      ->required();
  tcreate->add_flag("--read-only", a->read_only, "the token may only read");
  tcreate->add_flag("--json", a->json, "print {\"token\", \"name\"}");
  tcreate->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
          return create_admin_token(tx, a->token_name, a->read_only, SystemClock().now_ms());
        });
        if (!r.ok()) return report(r.error());
        if (a->json) {
          const boost::json::object o{{"token", r->token}, {"name", r->name}};
          std::cout << boost::json::serialize(o) << "\n";
        } else {
          std::cout << r->token << "\n";
          std::cerr << "admin token " << r->name << (r->read_only ? " (read-only)" : "")
                    << ": keep it now, it is not shown again\n";
        }
        return kExitOk;
      });
    };
  });
  auto* trevoke = token->add_subcommand("revoke", "delete a token; it stops working at once");
  trevoke->add_option("--name", a->token_name, "the token's name")->required();
  trevoke->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite,
                              [&](StoreTx& tx) { return revoke_admin_token(tx, a->token_name); });
        if (!r.ok()) return report(r.error());
        std::cout << "revoked admin token " << a->token_name << "\n";
        return kExitOk;
      });
    };
  });
  auto* tlist =
      token->add_subcommand("list", "names, rights, creation and last use (never the token)");
  tlist->add_flag("--json", a->json, "print a JSON array");
  tlist->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kRead, [](StoreTx& tx) { return list_admin_tokens(tx); });
        if (!r.ok()) return report(r.error());
        boost::json::array list;
        for (const AdminToken& t : r.value()) {
          list.push_back(
              boost::json::object{{"name", t.name},
                                  {"readOnly", t.read_only},
                                  {"createdAt", format_timestamp(t.created_at)},
                                  {"lastUsedAt", optional_timestamp_json(t.last_used_at)}});
        }
        if (a->json) {
          std::cout << boost::json::serialize(list) << "\n";
          return kExitOk;
        }
        for (const auto& v : list) {
          const auto& o = v.as_object();
          std::cout << o.at("name").as_string().c_str() << "  "
                    << (o.at("readOnly").as_bool() ? "read-only " : "read-write") << "  created "
                    << o.at("createdAt").as_string().c_str() << "  last used "
                    << (o.at("lastUsedAt").is_null() ? std::string("never")
                                                     : std::string(o.at("lastUsedAt").as_string()))
                    << "\n";
        }
        return kExitOk;
      });
    };
  });

  // Moving a deployment between stores (src/admin/store_transfer.h).
  auto* exp = admin.add_subcommand(
      "export", "write every product, license, activation and audit record to a new file");
  exp->add_option("--out", a->out_file,
                  "file to create (mode 0600: it holds the response key); never replaced")
      ->required();
  exp->callback([a, chosen] {
    *chosen = [a] {
      return with_store(a->store, [&](Store& s) {
        auto text = export_store(s);
        if (!text.ok()) return report(text.error());
        if (const auto failed = write_new_private_file(a->out_file, text.value())) {
          std::cerr << "licensed admin: " << *failed << "\n";
          return kExitRefused;
        }
        std::cout << "exported to " << a->out_file << "\n";
        return kExitOk;
      });
    };
  });
  auto* imp = admin.add_subcommand(
      "import", "read an export into an empty store, in one transaction (before its first serve)");
  imp->add_option("FILE", a->out_file, "a file `licensed admin export` wrote")->required();
  imp->callback([a, chosen] {
    *chosen = [a] {
      std::ifstream in(a->out_file, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) {
        std::cerr << "licensed admin: cannot read " << a->out_file << "\n";
        return kExitRefused;
      }
      return with_store(a->store, [&](Store& s) {
        auto rows = import_store(s, text.str());
        if (!rows.ok()) return report(rows.error());
        std::cout << "imported " << rows.value() << " rows\n";
        return kExitOk;
      });
    };
  });

  // Response keys (docs/protocol.md §14) are files, not store rows: this needs no store.
  auto* rkey = admin
                   .add_subcommand("response-key",
                                   "Ed25519 and ES256 (P-256) keys that sign the server's answers")
                   ->require_subcommand(1);
  auto* rgenerate = rkey->add_subcommand(
      "generate", "write a new PKCS#8 PEM key (mode 0600) and print its kid and public key");
  rgenerate->add_option("--out", a->out_file, "file to create; an existing one is never replaced")
      ->required();
  rgenerate
      ->add_option("--alg", a->algorithm,
                   "ed25519, or es256 (ECDSA P-256) for clients that verify with the operating "
                   "system's crypto library")
      ->check(CLI::IsMember({"ed25519", "es256"}))
      ->capture_default_str();
  rgenerate->add_flag("--json", a->json, "print {\"kid\", \"alg\", \"publicKey\"}");
  rgenerate->callback([a, chosen] {
    *chosen = [a] {
      auto key = ResponseKey::generate(a->algorithm == "es256" ? ResponseAlgorithm::kEs256
                                                               : ResponseAlgorithm::kEd25519);
      if (!key.ok()) return report(key.error());
      if (auto written = key->write_new_file(a->out_file); !written.ok()) {
        return report(written.error());
      }
      if (a->json) {
        const boost::json::object o{{"kid", key->kid()},
                                    {"alg", algorithm_name(key->algorithm())},
                                    {"publicKey", key->public_key_base64()}};
        std::cout << boost::json::serialize(o) << "\n";
      } else {
        std::cout << "kid        " << key->kid() << "\n"
                  << "publicKey  " << key->public_key_base64() << "\n";
      }
      return kExitOk;
    };
  });

  return [chosen] { return *chosen ? (*chosen)() : kExitUsage; };
}

}  // namespace licensed
