// The base fixture of the black-box tests: a temporary directory with a store (product
// "reverb" already created), and the real `licensed serve` started on demand on
// 127.0.0.1:0. Derive one empty class per test suite so test names read Suite.Rule.
// The store is a SQLite file, or a fresh PostgreSQL database when LICENSED_TEST_STORE=
// postgresql (CTest runs the suite both ways; see TestStoreKind()).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/admin.h"
#include "support/http_client.h"
#include "support/json_util.h"
#include "support/pg_database.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/response_verifier.h"
#include "support/signer.h"
#include "support/temp_dir.h"

namespace bb {

// The key every server is started with unless a test says otherwise (signing vector 1).
inline const SigningKey kPluginKey{"plugin-2026", "s3cr3t-0123456789abcdef0123456789abcdef"};
// A second live key (signing vector 3).
inline const SigningKey kCiKey{"ci", "another secret with spaces and \xc3\xa9"};

inline constexpr std::string_view kProduct = "reverb";
inline constexpr std::string_view kProductName = "Reverb Pro";

struct ServerOptions {
  bool listen_flag = true;       // --listen 127.0.0.1:0
  bool store_flag = true;        // --store <the test's store URL>
  bool signing_key_flag = true;  // --signing-key plugin-2026=<secret>
  // --rate-limit-key off --rate-limit-ip off, so tests do not trip the defaults.
  bool rate_limits_off = true;
  std::vector<std::string> args;  // appended after the flags above
  EnvVars env;                    // LICENSED_* variables for the server
  // Put before the binary, e.g. {"/usr/bin/setpriv", "--reuid=65534", ...} to run the
  // server as another user; argv[0] must be a full path.
  std::vector<std::string> command_prefix;
};

// Options with these rate limits ("off" or "N/PERIOD") instead of both off.
ServerOptions WithRateLimits(std::string ip, std::string key);

// "/api/v1/license/" + name.
std::string Endpoint(std::string_view name);
// {"licenseKey": key[, "machineId": machine][, "machineName": name]} serialized.
std::string Body(std::string_view license_key, std::optional<std::string_view> machine = {},
                 std::optional<std::string_view> machine_name = {});
// A valid activate/heartbeat body for `license` padded (with an unknown member) to exactly
// `total_size` bytes.
std::string PaddedBody(std::string_view license, std::size_t total_size);
// RFC 3339 UTC with milliseconds of now + offset.
std::string TimestampFromNow(std::chrono::milliseconds offset);
// A machine id that is valid and distinct per call.
std::string NewMachineId();

// The cap held exactly: `max` answers are 200 and every other is 409 1705 saying the
// license is full (activations == max).
void ExpectExactlyMaxActivated(const std::vector<HttpResponse>& responses, int max);

class BlackboxTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts `licensed serve` and waits for the ready line (throws on failure).
  void Start(const ServerOptions& options = {});
  // A second `licensed serve` on the same store (another instance behind a load
  // balancer); the caller owns it, and its destructor stops it.
  std::unique_ptr<ServerProcess> StartAnother(const ServerOptions& options = {}) const;
  // SIGTERM and wait; returns the wait status. The fixture can Start() again afterwards.
  int Stop(std::chrono::seconds grace = std::chrono::seconds(15));
  // Stop(), then Start() with the same options on the same store.
  void RestartServer();

  // True when the suite runs with Redis shared state (TestWithRedis()).
  bool on_redis() const { return suite_redis_ != nullptr; }
  ServerProcess& server() { return *server_; }
  std::uint16_t port() const;
  // The health and metrics listener's port, from the ready line.
  std::uint16_t admin_port() const;
  const Admin& admin() const { return admin_; }
  const TempDir& dir() const { return dir_; }
  const std::string& store() const { return store_; }
  // The SQLite file; only tests that run on SQLite (see SkipUnlessSqlite) use it.
  std::filesystem::path db_path() const { return dir_.path() / "test.db"; }
  bool on_postgres() const { return pg_ != nullptr; }
  // The test's PostgreSQL database, or nullptr on SQLite.
  const PgTestDatabase* pg() const { return pg_.get(); }
  // Sets the license's status to a value the schema forbids, behind the server's back,
  // so reading the row fails (500 1709), on either store.
  void CorruptLicenseStatus(const std::string& license_key) const;

  std::string NewLicense(int max, std::string_view product = kProduct,
                         const std::optional<std::string>& expires_at = std::nullopt);

  HttpRequest Signed(std::string_view endpoint, std::string body,
                     const SigningKey& key = kPluginKey, const SignOptions& options = {}) const;
  HttpResponse Send(const HttpRequest& request) const;
  HttpResponse SendRaw(std::string_view bytes) const;
  // A correctly signed POST of `body` to /api/v1/license/<endpoint>.
  HttpResponse Call(std::string_view endpoint, std::string body, const SigningKey& key = kPluginKey,
                    const SignOptions& options = {}) const;

  // Sends every request at the same moment, one thread each (a latch releases them
  // together), and answers in the requests' order.
  std::vector<HttpResponse> SendAllAtOnce(const std::vector<HttpRequest>& requests) const;
  // `count` activations of new machines (machine_prefix + "0", "1", ...), all at once.
  std::vector<HttpResponse> ActivateAllAtOnce(const std::string& license,
                                              const std::string& machine_prefix, int count) const;

  HttpResponse Activate(std::string_view license, std::string_view machine,
                        std::optional<std::string_view> name = {}) const;
  HttpResponse Heartbeat(std::string_view license, std::string_view machine) const;
  HttpResponse Status(std::string_view license, std::optional<std::string_view> machine = {}) const;
  HttpResponse Deactivate(std::string_view license, std::string_view machine) const;

  // GET `path` on the health and metrics listener.
  HttpResponse AdminGet(std::string_view path) const;

  // GET /api/v1/license/public-keys (docs/protocol.md §14).
  HttpResponse GetPublicKeys() const;
  // The base64 public key that signs this server's Ed25519 answers: the first Ed25519
  // key published.
  std::string SigningPublicKey() const;
  // The first published key whose alg is `alg` ("Ed25519" or "ES256"): {kid, publicKey}.
  std::pair<std::string, std::string> PublishedKey(std::string_view alg) const;

  // Audit records of `license` with that action.
  std::vector<json::value> AuditRecords(const std::string& license, std::string_view action) const;

 private:
  std::vector<std::string> ServerArgv(const ServerOptions& options) const;

  // With TestWithRedis() every server of the test shares this fresh Redis
  // (--redis), unless the test gives --redis itself: the whole suite runs again with
  // shared state.
  std::unique_ptr<RedisServer> suite_redis_;

  TempDir dir_;
  std::unique_ptr<PgTestDatabase> pg_;
  std::string store_;
  Admin admin_{""};
  ServerOptions options_;
  std::unique_ptr<ServerProcess> server_;
};

// For tests of SQLite's own faults (a locked file, a full disk, file permissions): they
// have no PostgreSQL counterpart in the black-box suite and skip there.
#define SKIP_UNLESS_SQLITE()                                                                \
  do {                                                                                      \
    if (on_postgres()) GTEST_SKIP() << "a SQLite file fault; PostgreSQL has its own tests"; \
  } while (0)

// A request to the admin API (`target` below /api/v1/admin) with that bearer token; a
// non-empty body goes as JSON.
HttpRequest AdminApiRequest(const std::string& token, const std::string& method,
                            const std::string& target, std::string body = "");

// A customer dashboard session: the cookie ("licensed_dashboard=..."; empty when the
// sign-in was refused) and the CSRF token its changes carry.
struct DashboardSession {
  std::string cookie;
  std::string csrf_token;
};
// Signs in to the dashboard of the server on `port` with that license key, from `source`.
DashboardSession DashboardSignIn(std::uint16_t port, const std::string& license_key,
                                 std::string_view source = "127.0.0.1");
// A GET of a dashboard path (e.g. "/dashboard/api/license") with that session's cookie.
HttpRequest DashboardGet(const DashboardSession& session, std::string target);

// Checks (with EXPECT_*) the shape every API error shares: HTTP status, ok:false, error,
// code, a message, requestId equal to the X-Request-Id header, and a Date header.
void ExpectApiError(const HttpResponse& r, int http_status, int code, std::string_view error);
// 404 / 405 routing errors: the same shape without a numeric code.
void ExpectRouteError(const HttpResponse& r, int http_status, std::string_view error);
// X-Request-Id and Date on any response.
void ExpectCommonHeaders(const HttpResponse& r);
// The Date header as Unix seconds, or nullopt when it is missing or not an IMF-fixdate.
std::optional<std::int64_t> DateSeconds(const HttpResponse& r);
// 401 1700 with that reason.
void ExpectBadSignature(const HttpResponse& r, std::string_view reason);
// 429 1706 with that bucket, 1 <= retryAfter <= max_wait, and Retry-After == retryAfter.
void ExpectRateLimited(const HttpResponse& r, std::string_view bucket, std::int64_t max_wait);
// The value of the sample `series` (name and labels exactly as exposed) in Prometheus
// text, or -1 when there is none.
double MetricSample(const std::string& text, const std::string& series);
// The body parsed, or a failure and null.
json::value BodyJson(const HttpResponse& r);
// The error body with requestId dropped and `replace` (e.g. a license key) normalised.
std::string Comparable(const HttpResponse& r, const std::vector<std::string>& replace = {});

}  // namespace bb

// Wrap the helpers so a failure names the line of the test that called them.
#define EXPECT_API_ERROR(resp, http, code, name)          \
  do {                                                    \
    SCOPED_TRACE("EXPECT_API_ERROR");                     \
    ::bb::ExpectApiError((resp), (http), (code), (name)); \
  } while (0)
#define EXPECT_BAD_SIGNATURE(resp, reason)      \
  do {                                          \
    SCOPED_TRACE("EXPECT_BAD_SIGNATURE");       \
    ::bb::ExpectBadSignature((resp), (reason)); \
  } while (0)
#define EXPECT_RATE_LIMITED(resp, bucket, max_wait)        \
  do {                                                     \
    SCOPED_TRACE("EXPECT_RATE_LIMITED");                   \
    ::bb::ExpectRateLimited((resp), (bucket), (max_wait)); \
  } while (0)
#define EXPECT_ROUTE_ERROR(resp, http, name)        \
  do {                                              \
    SCOPED_TRACE("EXPECT_ROUTE_ERROR");             \
    ::bb::ExpectRouteError((resp), (http), (name)); \
  } while (0)
#define EXPECT_OK(resp)                                                         \
  do {                                                                          \
    const ::bb::HttpResponse& bb_r_ = (resp);                                   \
    EXPECT_EQ(bb_r_.status, 200) << bb_r_.Describe();                           \
    if (bb_r_.status == 200) {                                                  \
      EXPECT_TRUE(::bb::Bool(::bb::BodyJson(bb_r_), "ok")) << bb_r_.Describe(); \
    }                                                                           \
  } while (0)
#define ASSERT_OK(resp)                                                       \
  do {                                                                        \
    const ::bb::HttpResponse& bb_r_ = (resp);                                 \
    ASSERT_EQ(bb_r_.status, 200) << bb_r_.Describe();                         \
    ASSERT_TRUE(::bb::Bool(::bb::BodyJson(bb_r_), "ok")) << bb_r_.Describe(); \
  } while (0)
