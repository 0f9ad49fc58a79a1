// A PostgreSQL server of a test's own, from scripts/postgres.sh, for tests that restart
// it (the shared test server must not restart under other tests). Stopped, and its data
// removed, on destruction, even when the test fails.
#pragma once

#include <string>

#include "support/temp_dir.h"

namespace bb {

class PgServer {
 public:
  PgServer();  // starts it; throws std::runtime_error with the script's output on failure
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // pg_ctl restart: every connection to it is dropped; same port, same data.
  void Restart();
  // Its `postgres` database.
  const std::string& url() const { return url_; }

 private:
  std::string Script(const std::string& command, bool check);
  TempDir dir_;
  std::string url_;
};

}  // namespace bb
