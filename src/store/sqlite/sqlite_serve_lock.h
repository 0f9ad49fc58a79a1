// Tells whether another `licensed serve` without Redis already serves a SQLite file. Each
// such instance remembers only its own nonces and counts its own rate-limit buckets, so a
// request one accepted could be replayed once to the other: `serve` warns at start. The
// check is an advisory flock() held for the life of the process; SQLite's own locks are
// fcntl() locks, which Linux keeps apart, so it never waits for or blocks the store.
#pragma once

#include <memory>
#include <string>

namespace licensed {

class SqliteServeLock {
 public:
  // Null when the store is not a SQLite file or the file cannot be opened (no warning is
  // better than a wrong one).
  static std::unique_ptr<SqliteServeLock> take(const std::string& store_url);
  ~SqliteServeLock();
  SqliteServeLock(const SqliteServeLock&) = delete;
  SqliteServeLock& operator=(const SqliteServeLock&) = delete;

  // True when another process held the lock, so this one does not.
  bool held_elsewhere() const { return held_elsewhere_; }

 private:
  SqliteServeLock(int fd, bool held_elsewhere) : fd_(fd), held_elsewhere_(held_elsewhere) {}
  int fd_;
  bool held_elsewhere_;
};

}  // namespace licensed
