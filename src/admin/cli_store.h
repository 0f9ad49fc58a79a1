// What every `licensed admin` command group does around its work: open the store it was
// given and report a failure the one way (cli_status.h's text and exit code).
//
// `licensed admin [--store URL] [--create] [--migrate] ...`: without --create a store that
// does not exist is refused (never made empty by a mistyped path); without --migrate a store
// with pending migrations is refused, since a running older server may still use it
// (docs/operations.md).
#pragma once

#include <iostream>
#include <memory>
#include <string>

#include "admin/cli_status.h"
#include "store/store.h"

namespace licensed {

struct AdminStore {
  std::string url;
  bool create = false;   // --create
  bool migrate = false;  // --migrate
};

inline Result<std::unique_ptr<Store>> open_admin_store(const AdminStore& store) {
  return open_store(store.url, StoreLimits{}, StoreOpening{store.create, store.migrate});
}

namespace admin_cli {

inline int report(const Error& e) {
  std::cerr << "licensed admin: " << cli_error_text(e) << "\n";
  return exit_code_of(e.code, CliStage::kRunning);
}

// Runs `fn(Store&)` on the opened store and returns its exit status; a store that cannot
// be opened is said on stderr (its message names the store and why) and exits 1.
template <class Fn>
int with_store(const AdminStore& store, Fn&& fn) {
  auto opened = open_admin_store(store);
  if (!opened.ok()) {
    std::cerr << "licensed admin: " << opened.error().message << "\n";
    return exit_code_of(opened.error().code, CliStage::kRunning);
  }
  return fn(*opened.value());
}

}  // namespace admin_cli
}  // namespace licensed
