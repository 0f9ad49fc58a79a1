#include "support/fixture.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <latch>
#include <sstream>
#include <thread>

#include "support/store_faults.h"

namespace bb {
namespace {

// Writing to a socket the server closed must fail, not kill the test runner.
const bool kIgnoreSigpipe = [] {
  ::signal(SIGPIPE, SIG_IGN);
  return true;
}();

std::string Tail(const std::string& log, std::size_t lines) {
  std::size_t pos = log.size();
  for (std::size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n) {
    pos = log.rfind('\n', pos - 1);
  }
  return pos == std::string::npos ? log : log.substr(pos + 1);
}

}  // namespace

ServerOptions WithRateLimits(std::string ip, std::string key) {
  ServerOptions options;
  options.rate_limits_off = false;
  options.args = {"--rate-limit-ip", std::move(ip), "--rate-limit-key", std::move(key)};
  return options;
}

std::string Endpoint(std::string_view name) {
  return "/api/v1/license/" + std::string(name);
}

std::string Body(std::string_view license_key, std::optional<std::string_view> machine,
                 std::optional<std::string_view> machine_name) {
  json::object o;
  o["licenseKey"] = license_key;
  if (machine) o["machineId"] = *machine;
  if (machine_name) o["machineName"] = *machine_name;
  return json::serialize(o);
}

std::string PaddedBody(std::string_view license, std::size_t total_size) {
  const std::string head =
      R"({"licenseKey":")" + std::string(license) + R"(","machineId":"machine-pad","pad":")";
  const std::string tail = "\"}";
  if (total_size < head.size() + tail.size()) throw std::invalid_argument("PaddedBody: too small");
  return head + std::string(total_size - head.size() - tail.size(), 'x') + tail;
}

std::string TimestampFromNow(std::chrono::milliseconds offset) {
  const auto t = std::chrono::system_clock::now() + offset;
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  std::ostringstream ss;
  ss << std::put_time(&tm, "%Y-%m-%dT%H:%M:%S") << '.' << std::setw(3) << std::setfill('0')
     << (ms % 1000) << 'Z';
  return ss.str();
}

std::string NewMachineId() {
  static std::atomic<int> counter{0};
  return "machine-" + std::to_string(counter.fetch_add(1)) + "-" + RandomHex(4);
}

void BlackboxTest::SetUp() {
  (void)kIgnoreSigpipe;
  if (TestWithRedis()) suite_redis_ = std::make_unique<RedisServer>();
  if (TestStoreKind() == "postgresql") {
    const auto server = TestPostgresUrl();
    if (!server) throw std::runtime_error("LICENSED_TEST_STORE=postgresql without a test server");
    pg_ = std::make_unique<PgTestDatabase>(*server);
    store_ = pg_->url();
  } else {
    store_ = "sqlite:" + (dir_.path() / "test.db").string();
  }
  // As an operator starts (docs/operations.md): serve and admin refuse a store that does
  // not exist.
  InitStore(store_);
  admin_ = Admin(store_);
  admin_.CreateProduct(std::string(kProduct), std::string(kProductName));
}

namespace {

// A server stopped by SIGTERM must exit 0 and, in sanitizer builds, report nothing.
void ExpectNoSanitizerReport(const std::string& log, const char* when) {
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                             "WARNING: ThreadSanitizer", "runtime error:"}) {
    EXPECT_EQ(log.find(marker), std::string::npos)
        << "sanitizer report in the server log " << when << ":\n"
        << log.substr(log.find(marker), 4000);
  }
}

void ExpectCleanExit(int status, const std::string& log, const char* when) {
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  EXPECT_TRUE(clean) << "the server did not exit 0 on SIGTERM " << when << " (wait status "
                     << status << "); log tail:\n"
                     << Tail(log, 40);
  ExpectNoSanitizerReport(log, when);
}

}  // namespace

void BlackboxTest::TearDown() {
  if (!server_) return;
  if (auto st = server_->ExitedOnItsOwn()) {
    ADD_FAILURE() << "the server exited during the test (wait status " << *st << "); log tail:\n"
                  << Tail(server_->log(), 40);
    // A sanitizer's abort puts its report's head far above the tail.
    ExpectNoSanitizerReport(server_->log(), "when it exited");
  } else {
    const int status = server_->Terminate();
    ExpectCleanExit(status, server_->log(), "at the end of the test");
    if (HasFailure()) {
      std::cerr << "---- server log tail ----\n" << Tail(server_->log(), 40) << "\n";
    }
  }
  server_.reset();
}

std::vector<std::string> BlackboxTest::ServerArgv(const ServerOptions& options) const {
  std::vector<std::string> argv = options.command_prefix;
  argv.insert(argv.end(), {LicensedBinary(), "serve"});
  if (options.listen_flag) argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
  if (options.store_flag) argv.insert(argv.end(), {"--store", store_});
  if (options.signing_key_flag) {
    argv.insert(argv.end(), {"--signing-key", kPluginKey.id + "=" + kPluginKey.secret});
  }
  if (options.rate_limits_off) {
    argv.insert(argv.end(), {"--rate-limit-key", "off", "--rate-limit-ip", "off"});
  }
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  const bool redis_given =
      std::find(options.args.begin(), options.args.end(), "--redis") != options.args.end();
  if (suite_redis_ && !redis_given) {
    argv.insert(argv.end(), {"--redis", suite_redis_->url(), "--redis-timeout", "2000"});
  }
  return argv;
}

void BlackboxTest::Start(const ServerOptions& options) {
  server_.reset();
  options_ = options;
  server_ = std::make_unique<ServerProcess>(ServerArgv(options), options.env);
  server_->WaitReady();
}

std::unique_ptr<ServerProcess> BlackboxTest::StartAnother(const ServerOptions& options) const {
  auto another = std::make_unique<ServerProcess>(ServerArgv(options), options.env);
  another->WaitReady();
  return another;
}

void BlackboxTest::CorruptLicenseStatus(const std::string& license_key) const {
  if (!pg_) {
    bb::CorruptLicenseStatus(db_path(), license_key);
    return;
  }
  // The key is a UUID the test made: safe in the SQL text of this test-only statement.
  pg_->Exec(
      "ALTER TABLE licenses DROP CONSTRAINT IF EXISTS licenses_status_check;"
      " UPDATE licenses SET status = 'CORRUPTED' WHERE license_key = '" +
      license_key + "'");
}

int BlackboxTest::Stop(std::chrono::seconds grace) {
  if (!server_) return -1;
  const int status = server_->Terminate(grace);
  server_.reset();
  return status;
}

void BlackboxTest::RestartServer() {
  if (server_) {
    const int status = server_->Terminate();
    ExpectCleanExit(status, server_->log(), "before the restart");
  }
  Start(options_);
}

std::uint16_t BlackboxTest::admin_port() const {
  const std::string line = server_->ready_line();
  const std::string marker = "health and metrics on ";
  const auto at = line.find(marker);
  if (at == std::string::npos) throw std::runtime_error("no admin address in: " + line);
  const auto colon = line.find(':', at + marker.size());
  return static_cast<std::uint16_t>(std::stoi(line.substr(colon + 1)));
}

std::uint16_t BlackboxTest::port() const {
  if (!server_) throw std::runtime_error("the server is not started");
  return server_->port();
}

std::string BlackboxTest::NewLicense(int max, std::string_view product,
                                     const std::optional<std::string>& expires_at) {
  return admin_.CreateLicense(std::string(product), max, expires_at);
}

HttpRequest BlackboxTest::Signed(std::string_view endpoint, std::string body, const SigningKey& key,
                                 const SignOptions& options) const {
  return SignedRequest(key, Endpoint(endpoint), std::move(body), options);
}

HttpResponse BlackboxTest::Send(const HttpRequest& request) const {
  return bb::Send(port(), request);
}

HttpResponse BlackboxTest::SendRaw(std::string_view bytes) const {
  return bb::SendRaw(port(), bytes);
}

HttpResponse BlackboxTest::Call(std::string_view endpoint, std::string body, const SigningKey& key,
                                const SignOptions& options) const {
  return Send(Signed(endpoint, std::move(body), key, options));
}

std::vector<HttpResponse> BlackboxTest::SendAllAtOnce(
    const std::vector<HttpRequest>& requests) const {
  std::vector<HttpResponse> responses(requests.size());
  std::latch go(static_cast<std::ptrdiff_t>(requests.size()));
  std::vector<std::thread> threads;
  const std::uint16_t p = port();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] {
      go.arrive_and_wait();
      responses[i] = bb::Send(p, requests[i], std::chrono::seconds(30));
    });
  }
  for (auto& t : threads) t.join();
  return responses;
}

std::vector<HttpResponse> BlackboxTest::ActivateAllAtOnce(const std::string& license,
                                                          const std::string& machine_prefix,
                                                          int count) const {
  std::vector<HttpRequest> requests;
  for (int i = 0; i < count; ++i) {
    requests.push_back(Signed("activate", Body(license, machine_prefix + std::to_string(i))));
  }
  return SendAllAtOnce(requests);
}

void ExpectExactlyMaxActivated(const std::vector<HttpResponse>& responses, int max) {
  int ok = 0;
  int limit = 0;
  for (const auto& r : responses) {
    if (r.status == 200) {
      ++ok;
    } else if (r.status == 409) {
      ++limit;
      const json::value v = BodyJson(r);
      EXPECT_EQ(Int(v, "code"), 1705) << r.Describe();
      EXPECT_EQ(Int(v, "activations"), max) << r.Describe();
      EXPECT_EQ(Int(v, "max"), max) << r.Describe();
    } else {
      ADD_FAILURE() << "unexpected answer: " << r.Describe();
    }
  }
  EXPECT_EQ(ok, max);
  EXPECT_EQ(limit, static_cast<int>(responses.size()) - max);
}

HttpResponse BlackboxTest::Activate(std::string_view license, std::string_view machine,
                                    std::optional<std::string_view> name) const {
  return Call("activate", Body(license, machine, name));
}

HttpResponse BlackboxTest::Heartbeat(std::string_view license, std::string_view machine) const {
  return Call("heartbeat", Body(license, machine));
}

HttpResponse BlackboxTest::Status(std::string_view license,
                                  std::optional<std::string_view> machine) const {
  return Call("status", Body(license, machine));
}

HttpResponse BlackboxTest::Deactivate(std::string_view license, std::string_view machine) const {
  return Call("deactivate", Body(license, machine));
}

HttpResponse BlackboxTest::AdminGet(std::string_view path) const {
  HttpRequest r;
  r.method = "GET";
  r.target = std::string(path);
  return bb::Send(admin_port(), r);
}

double MetricSample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

HttpResponse BlackboxTest::GetPublicKeys() const {
  HttpRequest request;
  request.method = "GET";
  request.target = Endpoint("public-keys");
  return Send(request);
}

std::string BlackboxTest::SigningPublicKey() const {
  return PublishedKey("Ed25519").second;
}

std::pair<std::string, std::string> BlackboxTest::PublishedKey(std::string_view alg) const {
  const HttpResponse r = GetPublicKeys();
  if (r.status != 200) throw std::runtime_error("public-keys answered\n" + r.Describe());
  const json::value v = ParseJson(r.body);
  for (const auto& key : Arr(v, "keys")) {
    if (Str(key, "alg") == alg) return {Str(key, "kid"), Str(key, "publicKey")};
  }
  throw std::runtime_error("no " + std::string(alg) + " key published\n" + r.Describe());
}

std::vector<json::value> BlackboxTest::AuditRecords(const std::string& license,
                                                    std::string_view action) const {
  std::vector<json::value> out;
  const json::value all = admin_.Audit(license);
  for (const auto& rec : Arr(all, "")) {
    if (Str(rec, "action") == action) out.push_back(rec);
  }
  return out;
}

HttpRequest AdminApiRequest(const std::string& token, const std::string& method,
                            const std::string& target, std::string body) {
  HttpRequest request;
  request.method = method;
  request.target = "/api/v1/admin" + target;
  request.Set("Authorization", "Bearer " + token);
  if (!body.empty()) {
    request.Set("Content-Type", "application/json");
    request.body = std::move(body);
  }
  return request;
}

json::value BodyJson(const HttpResponse& r) {
  try {
    return ParseJson(r.body);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what() << "\n" << r.Describe();
    return nullptr;
  }
}

void ExpectCommonHeaders(const HttpResponse& r) {
  const auto id = r.header("X-Request-Id");
  EXPECT_TRUE(id && !id->empty()) << "no X-Request-Id header\n" << r.Describe();
  const auto date = r.header("Date");
  EXPECT_TRUE(date && !date->empty()) << "no Date header\n" << r.Describe();
}

std::optional<std::int64_t> DateSeconds(const HttpResponse& r) {
  const auto date = r.header("Date");
  if (!date) return std::nullopt;
  std::tm tm{};
  const char* end = ::strptime(date->c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<std::int64_t>(::timegm(&tm));
}

namespace {

void ExpectErrorShape(const HttpResponse& r, int http_status, std::string_view error,
                      const json::value& v) {
  EXPECT_EQ(r.status, http_status) << r.Describe();
  ExpectCommonHeaders(r);
  const auto ct = r.header("Content-Type");
  EXPECT_TRUE(ct && ct->rfind("application/json", 0) == 0) << r.Describe();
  ASSERT_TRUE(v.is_object()) << r.Describe();
  EXPECT_TRUE(Has(v, "ok") && At(v, "ok") == json::value(false)) << r.Describe();
  EXPECT_TRUE(Has(v, "error") && At(v, "error") == json::value(error)) << r.Describe();
  const json::value* message = Find(v, "message");
  EXPECT_TRUE(message && message->is_string() && !message->get_string().empty()) << r.Describe();
  const json::value* request_id = Find(v, "requestId");
  ASSERT_TRUE(request_id && request_id->is_string() && !request_id->get_string().empty())
      << "no requestId\n"
      << r.Describe();
  if (const auto header = r.header("X-Request-Id")) {
    EXPECT_EQ(std::string(request_id->get_string()), *header)
        << "requestId differs from X-Request-Id\n"
        << r.Describe();
  }
}

}  // namespace

void ExpectApiError(const HttpResponse& r, int http_status, int code, std::string_view error) {
  const json::value v = BodyJson(r);
  ExpectErrorShape(r, http_status, error, v);
  EXPECT_TRUE(Has(v, "code") && At(v, "code") == json::value(code)) << r.Describe();
}

void ExpectRouteError(const HttpResponse& r, int http_status, std::string_view error) {
  const json::value v = BodyJson(r);
  ExpectErrorShape(r, http_status, error, v);
  EXPECT_FALSE(Has(v, "code")) << "routing errors carry no numeric code\n" << r.Describe();
}

void ExpectBadSignature(const HttpResponse& r, std::string_view reason) {
  ExpectApiError(r, 401, 1700, "LICENSE_API_BAD_SIGNATURE");
  const json::value v = BodyJson(r);
  EXPECT_TRUE(Has(v, "reason") && At(v, "reason") == json::value(reason)) << r.Describe();
}

DashboardSession DashboardSignIn(std::uint16_t port, const std::string& license_key,
                                 std::string_view source) {
  HttpRequest r;
  r.target = "/dashboard/api/session";
  r.Set("Content-Type", "application/json");
  r.body = R"({"licenseKey":")" + license_key + R"("})";
  const HttpResponse signed_in = SendFrom(source, port, r);
  EXPECT_EQ(signed_in.status, 200) << signed_in.Describe();
  if (signed_in.status != 200) return {};
  const std::string set_cookie = signed_in.header("Set-Cookie").value_or("");
  EXPECT_TRUE(set_cookie.starts_with("licensed_dashboard=")) << set_cookie;
  return {set_cookie.substr(0, set_cookie.find(';')), Str(BodyJson(signed_in), "csrfToken")};
}

HttpRequest DashboardGet(const DashboardSession& session, std::string target) {
  HttpRequest r;
  r.method = "GET";
  r.target = std::move(target);
  r.Set("Cookie", session.cookie);
  return r;
}

void ExpectRateLimited(const HttpResponse& r, std::string_view bucket, std::int64_t max_wait) {
  ExpectApiError(r, 429, 1706, "LICENSE_API_RATE_LIMITED");
  const json::value v = BodyJson(r);
  const json::value* b = Find(v, "bucket");
  EXPECT_TRUE(b && *b == json::value(bucket)) << r.Describe();
  const json::value* retry = Find(v, "retryAfter");
  ASSERT_TRUE(retry && retry->is_int64()) << "retryAfter must be an integer\n" << r.Describe();
  EXPECT_GE(retry->get_int64(), 1) << r.Describe();
  EXPECT_LE(retry->get_int64(), max_wait) << r.Describe();
  EXPECT_EQ(r.header("Retry-After"), std::to_string(retry->get_int64())) << r.Describe();
}

std::string Comparable(const HttpResponse& r, const std::vector<std::string>& replace) {
  json::value v;
  try {
    v = ParseJson(r.body);
  } catch (const std::exception&) {
    return "HTTP " + std::to_string(r.status) + " " + r.body;
  }
  std::string text = DumpWithout(v, {"requestId"});
  for (const auto& s : replace) {
    for (std::size_t pos; (pos = text.find(s)) != std::string::npos;) {
      text.replace(pos, s.size(), "<KEY>");
    }
  }
  return "HTTP " + std::to_string(r.status) + " " + text;
}

}  // namespace bb
