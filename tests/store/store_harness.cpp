#include "store/store_harness.h"

#include <stdexcept>

namespace bb {
namespace {

std::unique_ptr<licensed::Store> Open(const std::string& url, const licensed::StoreLimits& limits) {
  auto store = licensed::open_store(url, limits);
  if (!store.ok()) throw std::runtime_error("cannot open " + url + ": " + store.error().message);
  return std::move(store.value());
}

}  // namespace

bool StoreKindAvailable(const std::string& kind) {
  return kind != "postgresql" || TestPostgresUrl().has_value();
}

StoreHarness::StoreHarness(const std::string& kind, const licensed::StoreLimits& limits,
                           const std::string& url_suffix) {
  if (kind == "postgresql") {
    const auto server = TestPostgresUrl();
    if (!server) throw std::runtime_error("no test PostgreSQL (scripts/postgres.sh start)");
    pg_ = std::make_unique<PgTestDatabase>(*server);
    url_ = pg_->url() + url_suffix;
  } else {
    url_ = "sqlite:" + (dir_.path() / "store.db").string();
  }
  store_ = Open(url_, limits);
}

std::unique_ptr<licensed::Store> StoreHarness::OpenAnother(
    const licensed::StoreLimits& limits) const {
  return Open(url_, limits);
}

}  // namespace bb
