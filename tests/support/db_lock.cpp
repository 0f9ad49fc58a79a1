#include "support/db_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace bb {
namespace {

// The child: no return. glibc makes malloc safe after fork in a threaded parent, and the
// child touches nothing of the parent's but the two pipe ends.
[[noreturn]] void HoldLock(const std::string& db, int ready_fd, int release_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test runner
  if (::getppid() != parent) ::_exit(2);
  sqlite3* conn = nullptr;
  char status = 'E';
  if (sqlite3_open_v2(db.c_str(), &conn, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(conn, 10'000);
    if (sqlite3_exec(conn, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK) {
      status = 'L';
    }
  }
  (void)!::write(ready_fd, &status, 1);
  char byte;
  while (::read(release_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  sqlite3_exec(conn, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close_v2(conn);
  ::_exit(status == 'L' ? 0 : 1);
}

}  // namespace

DbLock::DbLock(const std::filesystem::path& db) {
  int ready[2];
  int release[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (::pipe2(release, O_CLOEXEC) != 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    throw std::runtime_error("pipe2 failed");
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    HoldLock(db.string(), ready[1], release[0], parent);
  }
  ::close(ready[1]);
  ::close(release[0]);
  release_fd_ = release[1];
  if (pid_ < 0) {
    ::close(ready[0]);
    ::close(release_fd_);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  char status = 0;
  ssize_t got;
  while ((got = ::read(ready[0], &status, 1)) < 0 && errno == EINTR) {
  }
  ::close(ready[0]);
  if (got != 1 || status != 'L') {
    Release();
    throw std::runtime_error("the lock holder could not BEGIN EXCLUSIVE on " + db.string());
  }
}

DbLock::~DbLock() {
  Release();
}

void DbLock::Release() {
  if (release_fd_ >= 0) {
    ::close(release_fd_);
    release_fd_ = -1;
  }
  if (pid_ > 0) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
}

}  // namespace bb
