// For unit tests: a fresh SQLite store in memory, migrated like a file would be.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "store/sqlite/sqlite_store.h"

namespace licensed {

// Null (and a test failure) when it cannot be opened.
inline std::unique_ptr<SqliteStore> open_memory_test_store() {
  SqliteStoreOptions options;
  options.path = ":memory:";
  auto s = SqliteStore::open(options);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? std::move(s.value()) : nullptr;
}

}  // namespace licensed
