#include "admin/init_cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>

#include "admin/cli_status.h"
#include "auth/response_signature.h"
#include "auth/stored_response_key.h"
#include "core/clock.h"
#include "store/store.h"

namespace licensed {
namespace {

int refuse(const std::string& message) {
  std::cerr << "licensed init: " << message << "\n";
  return kExitRefused;
}

// Claims a SQLite path by creating the empty file (0600) only if nothing is there, so
// that of two inits, or an init and a serve, only one makes the store.
std::optional<std::string> claim_sqlite_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return std::nullopt;
  }
  if (errno == EEXIST) return "the store sqlite:" + path + " exists already; nothing was changed";
  return "cannot create " + path + ": " + std::strerror(errno);
}

// Both response keys, made in one write transaction as `serve` would make them.
Result<std::vector<ResponseKey>> make_response_keys(Store& store) {
  return run_blocking(store, TxKind::kWrite, [](StoreTx& tx) -> Result<std::vector<ResponseKey>> {
    std::vector<ResponseKey> keys;
    for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
      ASSIGN_OR_RETURN(auto key, stored_response_key(tx, a, SystemClock().now_ms()));
      keys.push_back(std::move(key));
    }
    return keys;
  });
}

int run_init(const std::string& url) {
  const std::string shown = store_display_name(url);
  if (const auto claimed = sqlite_path_of(url)) {
    if (claimed->empty() || *claimed == ":memory:") return refuse("init needs a file: sqlite:PATH");
    if (const auto refused = claim_sqlite_file(*claimed)) return refuse(*refused);
  } else {
    auto state = read_schema_state(url);
    if (!state.ok()) return refuse(state.error().message);
    if (state->exists) return refuse("the store " + shown + " exists already; nothing was changed");
  }
  const auto path = sqlite_path_of(url);
  // A SQLite file this run claimed but could not make a store of is removed, so that
  // the next init is not told it exists.
  auto give_up = [&path](const std::string& message) {
    if (path) {
      for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((*path + suffix).c_str());
    }
    return refuse(message);
  };
  auto store = open_store(url, StoreLimits{}, StoreOpening{true, true});
  if (!store.ok()) return give_up(store.error().message);
  auto keys = make_response_keys(*store.value());
  store.value().reset();
  if (!keys.ok()) return give_up("cannot make the response keys: " + cli_error_text(keys.error()));
  auto state = read_schema_state(url);
  std::cout << "created store " << shown;
  if (state.ok()) std::cout << " (schema version " << state->version << ")";
  std::cout << "\n";
  for (const auto& key : keys.value()) {
    std::cout << "response key " << key.kid() << " (" << algorithm_name(key.algorithm())
              << "), publicKey " << key.public_key_base64() << "\n";
  }
  std::cout << "next: licensed serve --store " << shown << "\n";
  return kExitOk;
}

}  // namespace

std::function<int()> add_init_command(CLI::App& app) {
  auto url = std::make_shared<std::string>();
  const char* store_env = std::getenv("LICENSED_STORE");
  *url = store_env != nullptr ? store_env : "sqlite:./licensed.db";
  auto* init = app.add_subcommand(
      "init", "create an empty store and its response keys (refused when it exists)");
  init->add_option("--store", *url,
                   "sqlite:PATH or postgresql://... (default sqlite:./licensed.db)");
  return [url] { return run_init(*url); };
}

}  // namespace licensed
