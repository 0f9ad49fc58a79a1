// Issue 8 items 3 and 5, client side: with a pinned key, an answer that is unsigned,
// signed by another key, or signed for another request's nonce (an old answer replayed)
// is no answer: the SDK treats it as a network failure. A tiny proxy in the test
// forwards to the real server and, when told, replays a recorded answer or strips the
// signature.
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
  enum class Mode { kForward, kReplay, kStripSignature };

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

TEST_F(SdkSignedAnswers, AnAnswerSignedByAnotherKeyIsNoAnswer) {
  Start();
  const std::string license = NewLicense(3);
  ReplayProxy proxy(port());
  // The vector file's key: a well-formed Ed25519 key that is not this server's.
  const std::string other_key = "1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=";
  ASSERT_NE(other_key, SigningPublicKey());
  const Answer a = Make(Through(proxy, license, other_key))->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_GE(a.attempts, 2);
}

}  // namespace
}  // namespace licensed::client::test
