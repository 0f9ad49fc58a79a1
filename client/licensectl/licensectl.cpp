#include "licensectl.h"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "auth/offline_file.h"
#include "core/hex.h"
#include "core/timestamp.h"
#include "duration.h"
#include "license_client.h"
#include "stop_requests.h"

namespace licensed::client {

namespace {

namespace json = boost::json;

struct Options {
  std::string url, key_id, secret, license_key, machine_id, machine_name, public_key, vendor;
  std::string offline_dir;
  std::string timeout = "10s";
  std::string every;
  bool json = false;
};

// The pinned key as given: a PEM file's path or the key's text itself.
std::string public_key_text(const std::string& value) {
  std::ifstream in(value);
  if (!in) return value;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string count_text(const Answer& a) {
  if (!a.activations || !a.max) return "";
  return std::to_string(*a.activations) + " of " + std::to_string(*a.max) + " machines";
}

// One line for a person: what happened, and for a failure what to do about it.
void print_human(std::string_view command, const Answer& a, const std::string& machine_id) {
  if (a.outcome == Outcome::kOk) {
    std::string line = std::string(command) + ": ok";
    if (a.license_status) line += ", license " + *a.license_status;
    if (a.trial) line += ", trial " + a.license_key;
    if (a.days_left) line += ", " + std::to_string(*a.days_left) + " days left";
    if (const auto c = count_text(a); !c.empty()) line += ", " + c + " activated";
    if (a.source == Source::kLease && a.valid_until) {
      line += ", borrowed seat until " + format_timestamp(*a.valid_until * 1000) +
              " (lease file; the server was not reached)";
    }
    std::cout << line << " (machine " << machine_id << ")\n";
    if (!a.warning.empty()) std::cerr << "licensectl: " << command << ": " << a.warning << "\n";
    return;
  }
  std::string line = "licensectl: " + std::string(command) + ": ";
  switch (a.outcome) {
    case Outcome::kNotUsable:
      line += a.code == 0 ? "license not valid for this machine" : a.error;
      if (a.license_status) line += " (status " + *a.license_status + ")";
      break;
    case Outcome::kLimitReached:
      if (a.code == 1710) {
        line += "every concurrent seat is in use; retry in " +
                std::to_string(a.retry_after_seconds) + " s";
        break;
      }
      line += "machine cap reached (" + count_text(a) + ")";
      if (a.dashboard_url) line += "; free a slot at " + *a.dashboard_url;
      break;
    case Outcome::kUnavailable:
      line += "gave up after " + std::to_string(a.attempts) +
              " attempt(s): " + (a.error.empty() ? "no answer" : a.error);
      break;
    default:
      line += a.error.empty() ? "refused" : a.error;
      break;
  }
  if (!a.message.empty()) line += ": " + a.message;
  std::cerr << line << "\n";
}

void print_json(const Answer& a) {
  if (a.source == Source::kLease) {
    // Not the server's answer: what the installed lease file says (its signed payload).
    boost::system::error_code ec;
    json::object o{{"ok", true}, {"valid", true}, {"source", "lease"}};
    if (a.valid_until) o["validUntil"] = format_timestamp(*a.valid_until * 1000);
    o["lease"] = json::parse(a.body, ec);
    std::cout << json::serialize(o) << "\n";
    return;
  }
  if (!a.body.empty()) {
    std::cout << a.body << "\n";
    return;
  }
  json::object o;
  o["ok"] = false;
  o["error"] = a.error.empty() ? "NETWORK" : a.error;
  if (!a.message.empty()) o["message"] = a.message;
  std::cout << json::serialize(o) << "\n";
}

int report(std::string_view command, const Answer& a, const Options& o,
           const std::string& machine_id) {
  if (o.json) {
    print_json(a);
  } else {
    print_human(command, a, machine_id);
  }
  std::cout.flush();
  return static_cast<int>(a.outcome);
}

// heartbeat --every: one heartbeat per period until asked to stop (stop_requests.h: SIGTERM
// or SIGINT; Ctrl+C and the like on Windows). A transient
// failure does not end a long job (the next period tries again); a refusal does. A
// machine reclaimed as stale (1707) activates again, as docs/protocol.md §10 says: the SDK's
// heartbeat does that once this client has held the slot; the loop does it for the
// first beat too, since `activate` ran in an earlier process of the job.
int heartbeat_loop(Client& client, std::chrono::milliseconds every, const Options& o) {
  StopRequests stop;
  for (;;) {
    Answer a = client.heartbeat();
    if (a.code == 1707) a = client.activate();
    const int code = report("heartbeat", a, o, client.machine_id());
    if (code != 0 && a.outcome != Outcome::kUnavailable) return code;
    if (stop.wait(every)) return 0;
  }
}

// checkout --every: takes the seat, renews it every period until asked to stop (SIGTERM or
// SIGINT), then checks it in (docs/protocol.md §27), so a CI job holds one of N seats for
// exactly as long as it runs. 1710 (every seat taken) exits 4 at once; a transient failure
// does not end the job (the lease lasts leaseTtl; the next period tries again).
int checkout_loop(Client& client, const std::string& session, std::chrono::milliseconds every,
                  const Options& o) {
  StopRequests stop;
  for (;;) {
    const Answer a = client.checkout(session);
    const int code = report("checkout", a, o, client.machine_id());
    if (code != 0 && a.outcome != Outcome::kUnavailable) return code;
    if (stop.wait(every)) break;
  }
  return report("checkin", client.checkin(session), o, client.machine_id());
}

// The offline commands' files (docs/protocol.md §21): written whole, read whole.
bool write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return !out.fail();
}

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct OfflineCommands {
  CLI::App* request = nullptr;
  CLI::App* submit = nullptr;
  CLI::App* verify = nullptr;
  CLI::App* deactivate = nullptr;
  std::string out, file, activation_file, product;
};

// `offline verify FILE`: exit 0 when the file is valid on this machine now, 3 when not.
int offline_verify(const OfflineCommands& c, const Options& o, const Client& client,
                   const std::vector<PinnedResponseKey>& pinned) {
  const auto text = read_text_file(c.file);
  if (!text) {
    std::cerr << "licensectl: offline verify: cannot read " << c.file << "\n";
    return 2;
  }
  const int64_t now = system_now_ms() / 1000;
  const ActivationFileRead read = verify_activation_file(
      *text, pinned, {client.machine_id(), c.product, o.license_key, now, std::nullopt});
  if (read.problem != ActivationFileProblem::kNone || !read.file) {
    if (o.json) {
      json::object out{{"ok", false},
                       {"error", activation_file_problem_name(read.problem)},
                       {"message", activation_file_problem_message(read.problem)}};
      std::cout << json::serialize(out) << "\n";
    } else {
      std::cerr << "licensectl: offline verify: " << activation_file_problem_name(read.problem)
                << ": " << activation_file_problem_message(read.problem) << "\n";
    }
    return static_cast<int>(Outcome::kNotUsable);
  }
  if (o.json) {
    std::cout << read.file->payload << "\n";
  } else {
    std::cout << "offline verify: ok, license " << read.file->license_key << " ("
              << read.file->product_slug << "), valid until "
              << format_timestamp(read.file->expires_at * 1000) << " (machine "
              << client.machine_id() << ")\n";
  }
  return 0;
}

// `offline deactivate --activation-file F --out FILE`: deletes F first (docs/protocol.md §21.8).
int offline_deactivate(const OfflineCommands& c, const Options& o, const Client& client,
                       const std::vector<PinnedResponseKey>& pinned) {
  const auto text = read_text_file(c.activation_file);
  if (!text) {
    std::cerr << "licensectl: offline deactivate: cannot read " << c.activation_file << "\n";
    return 2;
  }
  const ActivationFileRead read = read_activation_file(*text, pinned);
  const bool ours = read.file && read.file->machine_id == client.machine_id();
  if (!ours) {
    const auto problem = read.file ? ActivationFileProblem::kOtherMachine : read.problem;
    std::cerr << "licensectl: offline deactivate: " << activation_file_problem_message(problem)
              << " (nothing deleted)\n";
    return static_cast<int>(Outcome::kNotUsable);
  }
  const std::string nonce = random_128_bit_hex();
  if (nonce.empty()) {
    std::cerr << "licensectl: offline deactivate: the random number generator failed\n";
    return static_cast<int>(Outcome::kUnavailable);
  }
  // Written before the activation file goes, so nothing is deleted for a file that
  // cannot be written (an id the server did not issue).
  const std::string license_key = o.license_key.empty() ? read.file->license_key : o.license_key;
  const std::string file =
      write_deactivation_file({o.key_id, o.secret, license_key, client.machine_id(),
                               system_now_ms() / 1000, nonce, read.file->id});
  if (file.empty()) {
    std::cerr << "licensectl: offline deactivate: the activation file's id is not 32 lowercase "
                 "hex digits (nothing deleted)\n";
    return static_cast<int>(Outcome::kNotUsable);
  }
  std::error_code ec;
  if (!std::filesystem::remove(c.activation_file, ec) || ec) {
    std::cerr << "licensectl: offline deactivate: cannot delete " << c.activation_file
              << ", so no deactivation file was written\n";
    return static_cast<int>(Outcome::kUnavailable);
  }
  if (!write_text_file(c.out, file)) {
    std::cerr << "licensectl: offline deactivate: cannot write " << c.out << "\n";
    return static_cast<int>(Outcome::kUnavailable);
  }
  if (!o.json) std::cout << "offline deactivate: wrote " << c.out << "\n";
  return 0;
}

int run_offline(const OfflineCommands& c, const Options& o, Client& client,
                const std::vector<PinnedResponseKey>& pinned) {
  if (c.verify->parsed()) return offline_verify(c, o, client, pinned);
  if (c.deactivate->parsed()) return offline_deactivate(c, o, client, pinned);
  if (c.request->parsed()) {
    const Answer a = client.write_offline_request();
    if (!a.ok()) return report("offline request", a, o, client.machine_id());
    if (!write_text_file(c.out, a.file_text)) {
      std::cerr << "licensectl: offline request: cannot write " << c.out << "\n";
      return 2;
    }
    if (!o.json) std::cout << "offline request: wrote " << c.out << "\n";
    return 0;
  }
  const auto text = read_text_file(c.file);
  if (!text) {
    std::cerr << "licensectl: offline submit: cannot read " << c.file << "\n";
    return 2;
  }
  const Answer a = client.submit_offline_file(*text);
  if (a.ok() && !a.file_text.empty()) {
    if (c.out.empty() || !write_text_file(c.out, a.file_text)) {
      std::cerr << "licensectl: offline submit: cannot write the activation file to "
                << (c.out.empty() ? std::string("(no --out given)") : c.out) << "\n";
      return 2;
    }
  }
  return report("offline submit", a, o, client.machine_id());
}

}  // namespace

int run_licensectl(int argc, char** argv) {
  CLI::App app{"licensectl: activate, heartbeat, check and release a license from CI and scripts"};
  app.fallthrough();
  app.require_subcommand(1);
  Options o;
  app.add_option("--url", o.url, "server base URL")->envname("LICENSE_SERVER_URL");
  app.add_option("--key-id", o.key_id, "signing key id")->envname("LICENSE_KEY_ID");
  app.add_option("--secret", o.secret,
                 "signing secret; prefer the LICENSE_SECRET environment variable: "
                 "arguments are visible to other users in ps")
      ->envname("LICENSE_SECRET");
  app.add_option("--license-key", o.license_key, "the license key")->envname("LICENSE_KEY");
  app.add_option("--machine-id", o.machine_id, "default: derived as the SDK does")
      ->envname("LICENSE_MACHINE_ID");
  app.add_option("--vendor", o.vendor,
                 "the vendor name the plugin sets (lc_options.vendor): derives the same machine id")
      ->envname("LICENSE_VENDOR");
  app.add_option("--machine-name", o.machine_name, "shown to the customer")
      ->envname("LICENSE_MACHINE_NAME");
  app.add_option("--public-key", o.public_key,
                 "pinned response key: Ed25519 (base64 of the raw 32 bytes) or P-256 for ES256 "
                 "answers (base64 of the 65-byte uncompressed point), or a PEM file of either")
      ->envname("LICENSE_PUBLIC_KEY");
  app.add_option("--offline-dir", o.offline_dir,
                 "where activation and lease files are installed and read (default: the "
                 "vendor's machine-wide directory, as the SDK)")
      ->envname("LICENSE_OFFLINE_DIR");
  app.add_option("--timeout", o.timeout, "bounds the whole command, retries included")
      ->capture_default_str();
  app.add_flag("--json", o.json, "print the server's JSON answer");
  CLI::App* activate = app.add_subcommand("activate", "register this machine");
  CLI::App* heartbeat = app.add_subcommand("heartbeat", "refresh this machine's lastSeenAt");
  heartbeat->add_option("--every", o.every,
                        "repeat every DURATION until SIGTERM or SIGINT (Ctrl+C on Windows)");
  CLI::App* status = app.add_subcommand("status", "exit 0 when valid for this machine");
  std::vector<std::string> required_entitlements;
  status->add_option("--require-entitlement", required_entitlements,
                     "exit 3 unless this entitlement is active (repeatable)");
  CLI::App* deactivate = app.add_subcommand("deactivate", "release this machine's slot");
  std::string session, borrow;
  CLI::App* checkout =
      app.add_subcommand("checkout", "take (or renew) a concurrent seat (docs/protocol.md §27)");
  checkout->add_option("--session", session, "the session id (default: the machine id)");
  checkout->add_option("--every", o.every,
                       "renew every DURATION until SIGTERM or SIGINT, then check in");
  checkout->add_option("--borrow", borrow,
                       "borrow the seat for DURATION (e.g. 3d) and install its lease file "
                       "(needs --public-key)");
  CLI::App* checkin = app.add_subcommand("checkin", "give the concurrent seat back");
  checkin->add_option("--session", session, "the session id (default: the machine id)");
  std::string trial_product;
  CLI::App* trial = app.add_subcommand("trial", "start (or find) this machine's trial");
  trial->add_option("--product", trial_product, "the product's slug")->required();
  OfflineCommands off;
  CLI::App* offline = app.add_subcommand("offline", "offline activation (docs/protocol.md §21)");
  offline->require_subcommand(1);
  off.request = offline->add_subcommand("request", "write this machine's activation request");
  off.request->add_option("--out", off.out, "the request file to write")->required();
  off.submit = offline->add_subcommand(
      "submit", "send a request or deactivation file to the server (from an online machine)");
  off.submit->add_option("FILE", off.file, "the request or deactivation file")->required();
  off.submit->add_option("--out", off.out, "where to write the activation file");
  off.verify = offline->add_subcommand("verify", "exit 0 when the activation file is valid here");
  off.verify->add_option("FILE", off.file, "the activation file")->required();
  off.verify->add_option("--product", off.product, "the product slug it must be for");
  off.deactivate = offline->add_subcommand(
      "deactivate", "delete the activation file, then write the deactivation file");
  off.deactivate->add_option("--activation-file", off.activation_file, "the activation file")
      ->required();
  off.deactivate->add_option("--out", off.out, "the deactivation file to write")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  const auto usage = [](const std::string& why) {
    std::cerr << "licensectl: " << why << "\n";
    return 2;
  };
  const auto timeout = parse_duration(o.timeout);
  if (!timeout) return usage("--timeout: not a duration like 10s, 1500ms or 2m: " + o.timeout);
  std::optional<std::chrono::milliseconds> every;
  if (!o.every.empty()) {
    every = parse_duration(o.every);
    if (!every) return usage("--every: not a duration like 30s or 5m: " + o.every);
  }
  ClientConfig config;
  config.url = o.url;
  // request, verify and deactivate never touch the network: they need no server URL.
  const bool offline_only =
      off.request->parsed() || off.verify->parsed() || off.deactivate->parsed();
  if (offline_only && config.url.empty()) config.url = "http://127.0.0.1:9";
  if ((off.verify->parsed() || off.deactivate->parsed()) && o.public_key.empty()) {
    return usage("offline " + std::string(off.verify->parsed() ? "verify" : "deactivate") +
                 ": needs the pinned public key (--public-key or LICENSE_PUBLIC_KEY)");
  }
  // submit's outer request names no license; verify and deactivate read it from the file.
  const bool needs_no_license_key =
      off.submit->parsed() || off.verify->parsed() || off.deactivate->parsed();
  if (needs_no_license_key && o.license_key.empty()) config.license_key = "-";
  config.vendor = o.vendor;
  if (!o.offline_dir.empty()) config.offline_dir = path_from_utf8(o.offline_dir);
  config.key_id = o.key_id;
  config.secret = o.secret;
  if (!o.license_key.empty()) config.license_key = o.license_key;
  if (trial->parsed()) config.product = trial_product;
  config.machine_id = o.machine_id;
  if (!o.machine_name.empty()) config.machine_name = o.machine_name;
  if (!o.public_key.empty()) config.public_key = public_key_text(o.public_key);
  config.timeout = *timeout;
  std::string error;
  auto client = Client::create(std::move(config), error);
  if (!client) return usage(error);

  if (offline->parsed()) {
    const auto pinned = o.public_key.empty()
                            ? std::nullopt
                            : parse_pinned_response_key(public_key_text(o.public_key));
    return run_offline(
        off, o, *client,
        pinned ? std::vector<PinnedResponseKey>{*pinned} : std::vector<PinnedResponseKey>{});
  }
  if (activate->parsed()) return report("activate", client->activate(), o, client->machine_id());
  if (heartbeat->parsed()) {
    if (every) return heartbeat_loop(*client, *every, o);
    return report("heartbeat", client->heartbeat(), o, client->machine_id());
  }
  if (status->parsed()) {
    Answer a = client->status();
    // The server out of reach: a borrowed seat's lease file on this computer answers, as it
    // answers the SDK's start-up check (docs/protocol.md §27), source lease.
    if (a.outcome == Outcome::kUnavailable && !a.bound_to_dash) {
      if (auto lease = client->lease_answer()) a = std::move(*lease);
    }
    for (const auto& code : required_entitlements) {
      if (a.ok() && !a.has_entitlement(code)) {
        a.outcome = Outcome::kNotUsable;
        a.error = "ENTITLEMENT_MISSING";
        a.message = "the license has no active entitlement " + code;
      }
    }
    return report("status", a, o, client->machine_id());
  }
  if (checkout->parsed()) {
    if (every && !borrow.empty()) return usage("checkout: --every and --borrow do not go together");
    if (every) return checkout_loop(*client, session, *every, o);
    const Answer a = client->checkout(session, borrow);
    const int code = report("checkout", a, o, client->machine_id());
    if (a.ok() && !borrow.empty() && a.warning.empty() && !o.json) {
      std::cout << "checkout: lease file installed at " << client->lease_file_path().string()
                << "\n";
    }
    return code;
  }
  if (checkin->parsed())
    return report("checkin", client->checkin(session), o, client->machine_id());
  if (trial->parsed()) return report("trial", client->start_trial(), o, client->machine_id());
  if (deactivate->parsed()) {
    return report("deactivate", client->deactivate(), o, client->machine_id());
  }
  return usage("no command");
}

}  // namespace licensed::client
