// A Store under test, by kind: "sqlite" (a file in a temporary directory) or
// "postgresql" (a fresh database on the test server). The conformance suite runs every
// test once per kind; a store kind the machine cannot offer skips, never passes.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"
#include "support/pg_database.h"
#include "support/temp_dir.h"

namespace bb {

class StoreHarness {
 public:
  // Throws std::runtime_error with the store's message when it cannot be opened.
  StoreHarness(const std::string& kind, const licensed::StoreLimits& limits = {},
               const std::string& url_suffix = "");

  licensed::Store& store() { return *store_; }
  const std::string& url() const { return url_; }
  // The PostgreSQL database, or nullptr for SQLite.
  const PgTestDatabase* pg() const { return pg_.get(); }
  // Opens another Store on the same database (a second licensed instance).
  std::unique_ptr<licensed::Store> OpenAnother(const licensed::StoreLimits& limits = {}) const;

 private:
  TempDir dir_;
  std::unique_ptr<PgTestDatabase> pg_;
  std::string url_;
  std::unique_ptr<licensed::Store> store_;
};

// True when `kind` can run here (PostgreSQL needs the test server).
bool StoreKindAvailable(const std::string& kind);

}  // namespace bb
