#include "admin/offline_cli.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "admin/admin_offline.h"
#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "auth/stored_response_key.h"
#include "core/clock.h"
#include "core/operations.h"
#include "store/store.h"

namespace licensed {
namespace {

struct OfflineArgs {
  std::string key;
  std::string request_file;
  std::string out;
  std::vector<std::string> signing_keys;  // ID=SECRET
  std::string response_key;               // a PEM file; empty: the store's key
  bool json = false;
};

int refuse(const std::string& message) {
  std::cerr << "licensed admin: " << message << "\n";
  return kExitRefused;
}

// ID=SECRET entries: the flags, else LICENSED_SIGNING_KEYS (comma-separated, as `serve`
// reads it), else LICENSED_SIGNING_KEY.
std::vector<std::string> signing_key_entries(const OfflineArgs& a) {
  if (!a.signing_keys.empty()) return a.signing_keys;
  const char* list = std::getenv("LICENSED_SIGNING_KEYS");
  if (list == nullptr || *list == '\0') list = std::getenv("LICENSED_SIGNING_KEY");
  std::vector<std::string> out;
  if (list == nullptr) return out;
  std::stringstream in(list);
  for (std::string entry; std::getline(in, entry, ',');) {
    if (!entry.empty()) out.push_back(entry);
  }
  return out;
}

std::optional<std::vector<SigningKeyConfig>> signing_keys(const OfflineArgs& a) {
  std::vector<SigningKeyConfig> keys;
  for (const std::string& entry : signing_key_entries(a)) {
    const auto eq = entry.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == entry.size()) return std::nullopt;
    keys.push_back({entry.substr(0, eq), entry.substr(eq + 1), {}});
  }
  if (keys.empty()) return std::nullopt;
  return keys;
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A new file (never one that exists: an earlier activation file is not overwritten),
// 0644: an activation file is no secret. Nullopt on success, else why not.
std::optional<std::string> write_new_file(const std::string& path, const std::string& data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return errno == EEXIST ? path + " exists already; it is not overwritten"
                           : "cannot create " + path + ": " + std::strerror(errno);
  }
  // The admin command's umask keeps created files private (core/private_file.h); this
  // one goes to the customer.
  if (::fchmod(fd, 0644) != 0) {
    ::close(fd);
    ::unlink(path.c_str());
    return "cannot set the mode of " + path;
  }
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(path.c_str());
      return "cannot write " + path;
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) return "cannot write " + path;
  return std::nullopt;
}

// The Ed25519 key that signs: the file given, else the store's (made as `serve` would).
Result<ResponseKey> response_key(Store& store, const OfflineArgs& a) {
  if (!a.response_key.empty()) return ResponseKey::load_file(a.response_key);
  return run_blocking(store, TxKind::kWrite, [](StoreTx& tx) {
    return stored_response_key(tx, ResponseAlgorithm::kEd25519, SystemClock().now_ms());
  });
}

int report_refusal(const RequestError& e) {
  if (const ApiError* answer = e.answer()) {
    std::string line = answer->error + " (" +
                       std::to_string(answer->code ? static_cast<int>(*answer->code) : 0) +
                       "): " + answer->message;
    if (const auto* reason = answer->extra.if_contains("reason"); reason && reason->is_string()) {
      line += " [reason " + std::string(reason->as_string()) + "]";
    }
    return refuse(line);
  }
  std::cerr << "licensed admin: " << cli_error_text(*e.failure()) << "\n";
  return exit_code_of(e.failure()->code, CliStage::kRunning);
}

int run_offline_activate(const AdminStore& store_url, const OfflineArgs& a) {
  const auto configs = signing_keys(a);
  if (!configs) {
    std::cerr << "licensed admin: give the request signing keys as --signing-key ID=SECRET "
                 "(or LICENSED_SIGNING_KEYS), as serve has them\n";
    return kExitUsage;
  }
  const auto text = read_text(a.request_file);
  if (!text) return refuse("cannot read " + a.request_file);
  // Refused before anything is activated, so a second run cannot lose a file.
  if (::access(a.out.c_str(), F_OK) == 0)
    return refuse(a.out + " exists already; it is not overwritten");
  auto store = open_admin_store(store_url);
  if (!store.ok()) return refuse(store.error().message);
  auto key = response_key(*store.value(), a);
  if (!key.ok()) return refuse(cli_error_text(key.error()));
  std::vector<ResponseKey> keys;
  keys.push_back(std::move(key.value()));
  const ResponseSigner signer(std::move(keys));
  const KeyRing ring(*configs);
  const OfflineSubmission submission{&ring, OfflineFileLimits{}, &signer};
  auto answer = run_blocking(
      *store.value(), TxKind::kWrite, [&](StoreTx& tx) -> RequestResult<boost::json::object> {
        return admin_offline_activate(tx, a.key, *text, submission,
                                      AdminContext{SystemClock().now_ms(), std::nullopt});
      });
  if (!answer.ok()) return report_refusal(answer.error());
  boost::json::object body = std::move(answer.value());
  const std::string file(body.at(kActivationFileMember).as_string());
  if (const auto problem = write_new_file(a.out, file)) return refuse(*problem);
  body.erase(kActivationFileMember);
  if (a.json) {
    std::cout << boost::json::serialize(body) << "\n";
  } else {
    std::cout << "activated " << body.at("machine").at("id").as_string().c_str() << " on " << a.key
              << "; wrote " << a.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_offline_commands(CLI::App& license, const AdminStore* store, const ChosenCommand& chosen) {
  auto a = std::make_shared<OfflineArgs>();
  auto* cmd = license.add_subcommand(
      "offline-activate", "turn a customer's offline request file into an activation file");
  cmd->add_option("KEY", a->key, "license key")->required();
  cmd->add_option("REQUEST_FILE", a->request_file, "the armoured LICENSE ACTIVATION REQUEST")
      ->required();
  cmd->add_option("--out", a->out, "the activation file to write (never overwritten)")->required();
  cmd->add_option("--signing-key", a->signing_keys,
                  "ID=SECRET, repeatable: the request signing keys serve has "
                  "(default LICENSED_SIGNING_KEYS)");
  cmd->add_option("--response-key", a->response_key,
                  "the Ed25519 PEM serve signs with (default: the store's key)");
  cmd->add_flag("--json", a->json, "print the activate answer as JSON");
  cmd->callback(
      [a, store, chosen] { *chosen = [a, store] { return run_offline_activate(*store, *a); }; });
}

}  // namespace licensed
