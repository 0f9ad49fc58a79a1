#include "support/pg_database.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>

namespace bb {
namespace {

void Run(const std::string& url, const std::string& sql) {
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to the test PostgreSQL (" + url +
                             "): " + PQerrorMessage(conn.get()));
  }
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  std::unique_ptr<PGresult, void (*)(PGresult*)> res(PQexec(conn.get(), sql.c_str()), &PQclear);
  const ExecStatusType st = PQresultStatus(res.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    throw std::runtime_error("test PostgreSQL refused '" + sql +
                             "': " + PQerrorMessage(conn.get()));
  }
}

// The server URL with another database name in its path.
std::string WithDatabase(const std::string& url, const std::string& name) {
  const size_t authority = url.find("://");
  const size_t slash = url.find('/', authority == std::string::npos ? 0 : authority + 3);
  const size_t query = url.find('?');
  const std::string base = url.substr(0, slash == std::string::npos ? url.find('?') : slash);
  return base + "/" + name + (query == std::string::npos ? "" : url.substr(query));
}

}  // namespace

std::optional<std::string> TestPostgresUrl() {
  if (const char* url = std::getenv("LICENSED_TEST_PG_URL"); url != nullptr && *url != '\0') {
    return std::string(url);
  }
#ifdef LICENSED_TEST_PG_URL_FILE
  std::ifstream in(LICENSED_TEST_PG_URL_FILE);
  std::string url;
  if (in && std::getline(in, url) && !url.empty()) return url;
#endif
  return std::nullopt;
}

namespace {
// LICENSED_TEST_STORE: unset or "sqlite", "postgresql", or "postgresql+redis" (one
// variable, because CTest's discovered tests take a single ENVIRONMENT entry here).
std::string test_store_env() {
  const char* kind = std::getenv("LICENSED_TEST_STORE");
  return kind != nullptr ? kind : "";
}
}  // namespace

std::string TestStoreKind() {
  const std::string kind = test_store_env();
  return kind == "postgresql" || kind == "postgresql+redis" ? "postgresql" : "sqlite";
}

bool TestWithRedis() {
  if (const char* redis = std::getenv("LICENSED_TEST_REDIS"); redis && std::string(redis) == "1") {
    return true;
  }
  return test_store_env() == "postgresql+redis";
}

PgTestDatabase::PgTestDatabase(const std::string& server_url) : server_url_(server_url) {
  static std::atomic<int> counter{0};
  std::random_device rd;
  // Only digits and letters we make: the name is safe to put in SQL as an identifier.
  name_ = "licensed_test_" + std::to_string(::getpid()) + "_" +
          std::to_string(counter.fetch_add(1)) + "_" + std::to_string(rd() % 1000000);
  Run(server_url_, "CREATE DATABASE " + name_);
  url_ = WithDatabase(server_url_, name_);
}

PgTestDatabase::~PgTestDatabase() {
  try {
    Run(server_url_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // A server already stopped takes the database with it.
  }
}

PgSession::PgSession(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = PQerrorMessage(conn_);
    PQfinish(conn_);
    throw std::runtime_error("cannot connect to " + url + ": " + why);
  }
}

PgSession::~PgSession() {
  PQfinish(conn_);
}

std::string PgSession::Exec(const std::string& sql) {
  std::unique_ptr<PGresult, void (*)(PGresult*)> res(PQexec(conn_, sql.c_str()), &PQclear);
  const ExecStatusType st = PQresultStatus(res.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    throw std::runtime_error(sql + ": " + PQerrorMessage(conn_));
  }
  return st == PGRES_TUPLES_OK && PQntuples(res.get()) > 0 ? PQgetvalue(res.get(), 0, 0) : "";
}

void PgTestDatabase::Exec(const std::string& sql) const {
  Run(url_, sql);
}

}  // namespace bb
