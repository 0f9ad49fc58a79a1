#include "store/sqlite/sqlite_serve_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "store/store.h"

namespace licensed {

std::unique_ptr<SqliteServeLock> SqliteServeLock::take(const std::string& store_url) {
  const auto path = sqlite_path_of(store_url);
  if (!path || path->empty() || *path == ":memory:") return nullptr;
  const int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    return std::unique_ptr<SqliteServeLock>(new SqliteServeLock(fd, false));
  }
  const bool elsewhere = errno == EWOULDBLOCK;
  ::close(fd);
  if (!elsewhere) return nullptr;
  return std::unique_ptr<SqliteServeLock>(new SqliteServeLock(-1, true));
}

SqliteServeLock::~SqliteServeLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace licensed
