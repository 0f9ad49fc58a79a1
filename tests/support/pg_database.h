// A fresh, empty PostgreSQL database per test, on the test server scripts/postgres.sh
// started (CTest's `postgres` fixture), dropped afterwards: tests running side by side
// never see each other's rows.
#pragma once

#include <optional>
#include <string>

struct pg_conn;  // libpq's PGconn

namespace bb {

// The test server's URL (its `postgres` database): $LICENSED_TEST_PG_URL, else the file
// scripts/postgres.sh wrote (LICENSED_TEST_PG_URL_FILE, fixed at build time); nullopt
// when neither names a server.
std::optional<std::string> TestPostgresUrl();

// "postgresql" when $LICENSED_TEST_STORE asks the black-box suite to run on PostgreSQL
// ("postgresql" or "postgresql+redis"), "sqlite" otherwise.
std::string TestStoreKind();
// True when the suite's servers share a fresh Redis: LICENSED_TEST_STORE=postgresql+redis
// (the scale-out deployment) or LICENSED_TEST_REDIS=1.
bool TestWithRedis();

// A plain libpq session of the test's own, as another client of the database would hold
// one (a transaction left open, a row lock held). Throws std::runtime_error on failure.
class PgSession {
 public:
  explicit PgSession(const std::string& url);
  ~PgSession();
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;
  // Runs `sql`; returns the first column of the first row ("" when there is none).
  std::string Exec(const std::string& sql);

 private:
  ::pg_conn* conn_;
};

class PgTestDatabase {
 public:
  // Creates the database; throws std::runtime_error when the server cannot be reached.
  explicit PgTestDatabase(const std::string& server_url);
  ~PgTestDatabase();  // drops it, closing whatever is still connected
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  // The database's URL, for --store.
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }

  // Runs SQL on the database as the superuser (a test reaching behind the server's back);
  // throws on failure.
  void Exec(const std::string& sql) const;

 private:
  std::string server_url_;
  std::string name_;
  std::string url_;
};

}  // namespace bb
