// A Store under test, by kind: "sqlite" (a file in a temporary directory) or
// "postgresql" (a fresh database on the test server). The conformance suite runs every
// test once per kind; a store kind the machine cannot offer skips, never passes.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

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

// The fixture of a suite run once per store kind (the parameter): a fresh store made in
// SetUp, skipped where the kind cannot run, and its transactions run to completion. A
// derived SetUp calls StoreParamTest::SetUp() first and returns if IsSkipped().
class StoreParamTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!StoreKindAvailable(GetParam())) GTEST_SKIP() << "no test PostgreSQL server";
    harness_ = std::make_unique<StoreHarness>(GetParam());
  }
  licensed::Store& store() { return harness_->store(); }
  template <class Fn>
  auto Write(Fn&& fn) {
    return licensed::run_blocking(store(), licensed::TxKind::kWrite, std::forward<Fn>(fn));
  }
  template <class Fn>
  auto Read(Fn&& fn) {
    return licensed::run_blocking(store(), licensed::TxKind::kRead, std::forward<Fn>(fn));
  }

  std::unique_ptr<StoreHarness> harness_;
};

}  // namespace bb
