// Another process holding the write lock of a SQLite database, as an operator's sqlite3
// shell left in a transaction or a backup tool would: a forked child opens the file
// with the SQLite C API, runs BEGIN EXCLUSIVE and holds the lock until Release().
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace bb {

class DbLock {
 public:
  // Returns once the child holds the lock; throws std::runtime_error when it cannot get
  // it (within SQLite's busy timeout of 10 s) or the fork fails.
  explicit DbLock(const std::filesystem::path& db);
  ~DbLock();  // Release()
  DbLock(const DbLock&) = delete;
  DbLock& operator=(const DbLock&) = delete;

  // Rolls the child's transaction back and waits for it to exit: the lock is free when
  // this returns. Idempotent.
  void Release();

 private:
  pid_t pid_ = -1;
  int release_fd_ = -1;  // the child rolls back when this closes
};

}  // namespace bb
