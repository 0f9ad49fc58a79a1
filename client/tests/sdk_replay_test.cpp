// Signed answers, client side (docs/protocol.md §13.6, v2-response): with a pinned key, an answer
// that is unsigned, signed by another key, or bound to another request (an old answer replayed; a
// rewritten request's genuine answer; a garbled copy's refusal bound to "-") is no answer: the SDK
// and licensectl treat it as a network failure. A tiny proxy in the test forwards to the real
// server and, when told, replays a recorded answer, strips the signature, re-signs the request for
// another license or machine with the plugin's HMAC secret (which ships in every plugin) keeping
// its nonce, or garbles its body.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fstream>
#include <mutex>
#include <thread>

#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

class ReplayProxy {
 public:
  enum class Mode { kForward, kReplay, kStripSignature, kSubstitute, kGarble };

  explicit ReplayProxy(std::uint16_t upstream)
      : upstream_(upstream), acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { Loop(); });
  }
  ~ReplayProxy() {
    stopping_ = true;
    beast::error_code ec;
    // Wake the blocking accept with a connection of our own, then let the loop end.
    tcp::socket wake(io_);
    wake.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_), ec);
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  void set_mode(Mode m) {
    std::lock_guard lock(mu_);
    mode_ = m;
  }
  int replayed() const {
    std::lock_guard lock(mu_);
    return replayed_;
  }
  // kSubstitute rewrites these members of each request's body (when set) before re-signing.
  void substitute(std::optional<std::string> license_key, std::optional<std::string> machine_id) {
    std::lock_guard lock(mu_);
    license_key_ = std::move(license_key);
    machine_id_ = std::move(machine_id);
  }
  int rewritten() const {
    std::lock_guard lock(mu_);
    return rewritten_;
  }

 private:
  void Loop() {
    while (!stopping_) {
      tcp::socket socket(io_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) continue;
      Serve(socket);
    }
  }

  void Serve(tcp::socket& socket) {
    beast::flat_buffer buffer;
    http::request<http::string_body> in;
    beast::error_code ec;
    http::read(socket, buffer, in, ec);
    if (ec) return;
    bb::HttpResponse answer;
    {
      std::lock_guard lock(mu_);
      if (mode_ == Mode::kReplay && recorded_) {
        answer = *recorded_;
        ++replayed_;
      }
    }
    if (answer.status == 0) {
      bb::HttpRequest out;
      out.method = std::string(in.method_string());
      out.target = std::string(in.target());
      for (const auto& field : in) {
        const std::string name(field.name_string());
        if (beast::iequals(name, "Host") || beast::iequals(name, "Content-Length")) continue;
        out.headers.push_back({name, std::string(field.value())});
      }
      out.body = in.body();
      Rewrite(out);
      answer = bb::Send(upstream_, out);
      std::lock_guard lock(mu_);
      if (answer.status == 200 && !recorded_) recorded_ = answer;
      if (mode_ == Mode::kStripSignature) {
        std::erase_if(answer.headers,
                      [](const bb::Header& h) { return h.name == "X-License-Response-Signature"; });
      }
    }
    http::response<http::string_body> res;
    res.result(static_cast<unsigned>(answer.status == 0 ? 502 : answer.status));
    for (const auto& h : answer.headers) {
      if (beast::iequals(h.name, "Content-Length") || beast::iequals(h.name, "Connection") ||
          beast::iequals(h.name, "Transfer-Encoding")) {
        continue;
      }
      res.insert(h.name, h.value);
    }
    res.body() = answer.body;
    res.keep_alive(false);
    res.prepare_payload();
    http::write(socket, res, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  // What an attacker with the plugin's secret does to a request on its way.
  void Rewrite(bb::HttpRequest& out) {
    std::lock_guard lock(mu_);
    if (mode_ == Mode::kGarble) {
      // Another body under the same signature headers.
      out.body = SetMember(out.body, "machineId", "garbled-machine-0001");
      ++rewritten_;
    } else if (mode_ == Mode::kSubstitute) {
      std::string body = out.body;
      if (license_key_) body = SetMember(body, "licenseKey", *license_key_);
      if (machine_id_) body = SetMember(body, "machineId", *machine_id_);
      bb::SignOptions keep;
      keep.nonce = out.Get("X-License-Nonce").value_or("");
      keep.timestamp = std::stoll(out.Get("X-License-Timestamp").value_or("0"));
      out = bb::SignedRequest(bb::kPluginKey, out.target, body, keep);
      ++rewritten_;
    }
  }
  static std::string SetMember(const std::string& body, const char* name, const std::string& to) {
    auto v = boost::json::parse(body);
    v.as_object()[name] = to;
    return boost::json::serialize(v);
  }

  std::uint16_t upstream_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  Mode mode_ = Mode::kForward;
  std::optional<bb::HttpResponse> recorded_;
  int replayed_ = 0;
  std::optional<std::string> license_key_;
  std::optional<std::string> machine_id_;
  int rewritten_ = 0;
};

class SdkSignedAnswers : public SdkTest {
 protected:
  ClientConfig Through(const ReplayProxy& proxy, const std::string& license,
                       const std::string& public_key) {
    ClientConfig config = Config(license);
    config.machine_id = "replay-machine-01";
    config.url = "http://127.0.0.1:" + std::to_string(proxy.port());
    config.public_key = public_key;
    config.waiter = std::make_shared<FakeWaiter>();
    config.timeout = std::chrono::seconds(5);
    return config;
  }
};

TEST_F(SdkSignedAnswers, AnOldSignedAnswerReplayedForANewRequestIsRefused) {
  Start();
  const std::string license = NewLicense(3);
  ReplayProxy proxy(port());
  auto client = Make(Through(proxy, license, SigningPublicKey()));
  ASSERT_TRUE(client->activate().ok());
  const Answer genuine = client->status();
  ASSERT_TRUE(genuine.ok()) << Describe(genuine);

  // From now on the proxy answers every request with the recorded genuine 200: signed
  // by the right key, but over the nonce of the first request.
  proxy.set_mode(ReplayProxy::Mode::kReplay);
  const Answer replayed = client->status();
  EXPECT_EQ(replayed.outcome, Outcome::kUnavailable) << Describe(replayed);
  EXPECT_EQ(replayed.error, "NETWORK");
  EXPECT_NE(replayed.message.find("not signed"), std::string::npos) << replayed.message;
  EXPECT_GE(proxy.replayed(), 2) << "retried as a network failure";
  EXPECT_EQ(replayed.attempts, proxy.replayed());
}

TEST_F(SdkSignedAnswers, AnUnsignedAnswerIsNoAnswer) {
  Start();
  const std::string license = NewLicense(3);
  ReplayProxy proxy(port());
  proxy.set_mode(ReplayProxy::Mode::kStripSignature);
  const Answer a = Make(Through(proxy, license, SigningPublicKey()))->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.http_status, 200) << "an answer came, and was refused";
  // Without a pinned key the same answer is accepted: verification is what refused it.
  const Answer unpinned = Make(Through(proxy, license, ""))->status();
  EXPECT_TRUE(unpinned.ok()) << Describe(unpinned);
}

// Issue item 6: the plugin pinned another key than the server's (a build or rotation
// mistake). The answer stays "no answer" (docs/protocol.md §13.6: transient), but it
// is reported as what it is, at once, instead of being retried as an outage.
TEST_F(SdkSignedAnswers,
       AnAnswerSignedByAnotherKeyIsReportedAsAMisconfiguredPinnedKeyWithoutRetrying) {
  Start();
  const std::string license = NewLicense(3);
  ReplayProxy proxy(port());
  // The vector file's key: a well-formed Ed25519 key that is not this server's.
  const std::string other_key = "1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=";
  ASSERT_NE(other_key, SigningPublicKey());
  const Answer a = Make(Through(proxy, license, other_key))->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.error, "PINNED_KEY_MISMATCH");
  EXPECT_NE(a.message.find("pinned public key"), std::string::npos) << a.message;
  EXPECT_EQ(a.attempts, 1);
}

// The attack of the security review: a local proxy re-signs the plugin's status request
// for another license (a valid one), keeps the plugin's nonce, and hands back the real
// server's genuinely signed "valid" answer. Bound to the rewritten request, it is no
// answer to the plugin's: a REFUNDED license stays locked.
TEST_F(SdkSignedAnswers, AGenuineAnswerToARequestRewrittenForAnotherLicenseIsRefused) {
  Start();
  const std::string refunded = NewLicense(1);
  const std::string other = NewLicense(1);
  ReplayProxy proxy(port());
  auto plugin = Make(Through(proxy, refunded, SigningPublicKey()));
  ASSERT_TRUE(plugin->activate().ok());
  admin().SetStatus(refunded, "REFUNDED");
  ClientConfig direct = Config(other);
  direct.machine_id = "replay-machine-01";
  ASSERT_TRUE(Make(direct)->activate().ok());

  proxy.set_mode(ReplayProxy::Mode::kSubstitute);
  proxy.substitute(other, std::nullopt);
  const Answer a = plugin->status();
  EXPECT_GE(proxy.rewritten(), 1);
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.error, "NETWORK");
  EXPECT_EQ(a.http_status, 200) << "the server answered the rewritten request with valid";
  EXPECT_FALSE(a.valid);
  // Nothing of it reached the offline cache either.
  proxy.set_mode(ReplayProxy::Mode::kForward);
  const Answer truth = plugin->status();
  EXPECT_EQ(truth.outcome, Outcome::kNotUsable) << Describe(truth);
  EXPECT_EQ(truth.license_status, "REFUNDED");
}

// The second shape of it: a license of max 1 used on several machines, each one's
// heartbeat rewritten to name the one machine that holds the slot.
TEST_F(SdkSignedAnswers, AGenuineAnswerToARequestRewrittenForAnotherMachineIsRefused) {
  Start();
  const std::string license = NewLicense(1);
  ClientConfig holder = Config(license);
  holder.machine_id = "slot-holder-0001";
  ASSERT_TRUE(Make(holder)->activate().ok());
  ReplayProxy proxy(port());
  proxy.set_mode(ReplayProxy::Mode::kSubstitute);
  proxy.substitute(std::nullopt, "slot-holder-0001");
  for (const char* machine : {"second-machine-01", "third-machine-001"}) {
    SCOPED_TRACE(machine);
    ClientConfig config = Through(proxy, license, SigningPublicKey());
    config.machine_id = machine;
    auto client = Make(config);
    for (const Answer& a : {client->heartbeat(), client->status()}) {
      EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
      EXPECT_EQ(a.http_status, 200) << "the rewritten request was answered";
    }
  }
}

// Someone on the path garbles the plugin's request: the server's genuine 1700 is bound
// to "-", so the plugin reports its code (docs/protocol.md §13.6: a configuration error as far as
// it can tell) but takes it as no answer about the license: the cached grace still serves.
TEST_F(SdkSignedAnswers, ARefusalBoundToADashIsReportedButLeavesTheCachedAnswerServing) {
  Start();
  const std::string license = NewLicense(1);
  ReplayProxy proxy(port());
  auto plugin = Make(Through(proxy, license, SigningPublicKey()));
  ASSERT_TRUE(plugin->activate().ok());
  ASSERT_TRUE(plugin->check_at_startup().ok());
  ASSERT_TRUE(plugin->wait_for_background(std::chrono::seconds(10)));
  proxy.set_mode(ReplayProxy::Mode::kGarble);
  const Answer a = plugin->status();
  EXPECT_EQ(a.outcome, Outcome::kRefused) << Describe(a);
  EXPECT_EQ(a.code, 1700);
  EXPECT_TRUE(a.bound_to_dash);
  EXPECT_EQ(a.attempts, 1) << "never resent";
  // The next start of the plugin (a new process) still answers from the cache, and its
  // refresh, garbled too, leaves the cache as it is.
  auto next_start = Make(Through(proxy, license, SigningPublicKey()));
  const Answer start = next_start->check_at_startup();
  EXPECT_TRUE(start.ok()) << Describe(start);
  EXPECT_EQ(start.source, Source::kCache);
  ASSERT_TRUE(next_start->wait_for_background(std::chrono::seconds(10)));
  EXPECT_EQ(next_start->check_cached().source, Source::kCache);
  // A 200 bound to this very request is still the only "yes" from the network.
  proxy.set_mode(ReplayProxy::Mode::kForward);
  const Answer fresh = plugin->status();
  EXPECT_TRUE(fresh.ok()) << Describe(fresh);
  EXPECT_EQ(fresh.source, Source::kNetwork);
  EXPECT_FALSE(fresh.bound_to_dash);
}

// licensectl is the same client: the rewritten request's "valid" exits 5 (no answer
// within the timeout), not 0; the garbled request's refusal, bound to "-", is reported
// with its code: exit 6 (docs/protocol.md §13.6), never 0.
TEST_F(SdkSignedAnswers, LicensectlTreatsRewrittenAndGarbledAnswersAsNoAnswer) {
  Start();
  const std::string refunded = NewLicense(1);
  const std::string other = NewLicense(1);
  ReplayProxy proxy(port());
  auto run = [&](const std::string& command) {
    return bb::RunCommand(
        {LICENSECTL_BINARY, "--url", "http://127.0.0.1:" + std::to_string(proxy.port()), "--key-id",
         bb::kPluginKey.id, "--license-key", refunded, "--machine-id", "replay-machine-01",
         "--public-key", SigningPublicKey(), "--timeout", "2s", command},
        {{"LICENSE_SECRET", bb::kPluginKey.secret},
         {"XDG_CACHE_HOME", (dir().path() / "xdg").string()}},
        std::chrono::seconds(30));
  };
  ASSERT_EQ(run("activate").exit_code, 0);
  admin().SetStatus(refunded, "REFUNDED");
  ClientConfig direct = Config(other);
  direct.machine_id = "replay-machine-01";
  ASSERT_TRUE(Make(direct)->activate().ok());
  EXPECT_EQ(run("status").exit_code, 3) << "REFUNDED, answered honestly";

  proxy.set_mode(ReplayProxy::Mode::kSubstitute);
  proxy.substitute(other, std::nullopt);
  const bb::CommandResult substituted = run("status");
  EXPECT_EQ(substituted.exit_code, 5) << substituted.Describe();
  proxy.set_mode(ReplayProxy::Mode::kGarble);
  const bb::CommandResult garbled = run("status");
  EXPECT_EQ(garbled.exit_code, 6) << garbled.Describe();
}

}  // namespace
}  // namespace licensed::client::test
