// The store an admin command works on: `licensed admin [--store URL] [--create]
// [--migrate] ...`. Without --create a store that does not exist is refused (never made
// empty by a mistyped path); without --migrate a store with pending migrations is
// refused, since a running older server may still use it (docs/operations.md).
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

// Runs `fn(Store&)` on the opened store and returns its exit status; a store that cannot
// be opened is said on stderr (its message names the store and why) and exits 1.
template <class Fn>
int with_admin_store(const AdminStore& url, Fn&& fn) {
  auto store = open_admin_store(url);
  if (!store.ok()) {
    std::cerr << "licensed admin: " << store.error().message << "\n";
    return exit_code_of(store.error().code, CliStage::kRunning);
  }
  return fn(*store.value());
}

}  // namespace licensed
