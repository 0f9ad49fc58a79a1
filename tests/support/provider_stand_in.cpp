#include "support/provider_stand_in.h"

#include <strings.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/process.h"
#include "support/temp_dir.h"

namespace bb {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

struct ProviderStandIn::State {
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::optional<ssl::context> tls;
  std::optional<TempDir> cert_dir;
  std::string ca_file;
  std::thread thread;
  mutable std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, StandInAnswer> answers;
  std::vector<ReceivedRequest> received;
  std::size_t connections = 0;

  StandInAnswer AnswerFor(const std::string& target) {
    std::lock_guard lock(mu);
    if (const auto it = answers.find(target); it != answers.end()) return it->second;
    const std::string path = target.substr(0, target.find('?'));
    if (const auto it = answers.find(path); it != answers.end()) return it->second;
    return {.status = 404,
            .body = R"({"error": "no stand-in answer for )" + path + R"("})",
            .headers = {},
            .delay = {},
            .chunked = false};
  }
};

namespace {

std::string ReadWholeFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string OpensslBinary() {
  for (const char* path : {"/usr/bin/openssl", "/usr/local/bin/openssl"}) {
    if (std::filesystem::exists(path)) return path;
  }
  throw std::runtime_error("openssl not found: install Debian's openssl package");
}

// A self-signed P-256 certificate for 127.0.0.1 and localhost, made by the openssl
// command as an operator would; the test then trusts it, or not.
void MakeCertificate(ProviderStandIn::State& s) {
  s.cert_dir.emplace();
  const std::string key = (s.cert_dir->path() / "key.pem").string();
  s.ca_file = (s.cert_dir->path() / "cert.pem").string();
  const CommandResult r = RunCommand({OpensslBinary(), "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                      "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                                      "-out", s.ca_file, "-days", "2", "-subj", "/CN=127.0.0.1",
                                      "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"});
  if (r.exit_code != 0) throw std::runtime_error("openssl req failed: " + r.Describe());
  s.tls.emplace(ssl::context::tls_server);
  s.tls->use_certificate_chain_file(s.ca_file);
  s.tls->use_private_key_file(key, ssl::context::pem);
}

// A CA of its own and a P-256 certificate for 127.0.0.1 and localhost it signs, as an
// operator with a private CA makes them; ca_file is the CA's certificate.
void MakeCaSignedCertificate(ProviderStandIn::State& s) {
  s.cert_dir.emplace();
  const auto path = [&s](const char* name) { return (s.cert_dir->path() / name).string(); };
  s.ca_file = path("ca.pem");
  const std::string openssl = OpensslBinary();
  std::ofstream(path("ext.cnf")) << "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                    "basicConstraints=CA:FALSE\n";
  const std::vector<std::vector<std::string>> steps = {
      {openssl,
       "req",
       "-x509",
       "-newkey",
       "ec",
       "-pkeyopt",
       "ec_paramgen_curve:prime256v1",
       "-nodes",
       "-keyout",
       path("ca-key.pem"),
       "-out",
       s.ca_file,
       "-days",
       "2",
       "-subj",
       "/CN=licensed test CA",
       "-addext",
       "basicConstraints=critical,CA:TRUE",
       "-addext",
       "keyUsage=critical,keyCertSign,cRLSign"},
      {openssl, "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
       "-nodes", "-keyout", path("key.pem"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"},
      {openssl, "x509", "-req", "-in", path("server.csr"), "-CA", s.ca_file, "-CAkey",
       path("ca-key.pem"), "-CAcreateserial", "-out", path("cert.pem"), "-days", "2", "-extfile",
       path("ext.cnf")}};
  for (const auto& argv : steps) {
    const CommandResult r = RunCommand(argv);
    if (r.exit_code != 0) throw std::runtime_error("openssl failed: " + r.Describe());
  }
  s.tls.emplace(ssl::context::tls_server);
  s.tls->use_certificate_chain_file(path("cert.pem"));
  s.tls->use_private_key_file(path("key.pem"), ssl::context::pem);
}

ReceivedRequest Record(const http::request<http::string_body>& req) {
  ReceivedRequest r;
  r.method = std::string(req.method_string());
  r.target = std::string(req.target());
  for (const auto& f : req)
    r.headers.push_back({std::string(f.name_string()), std::string(f.value())});
  r.body = req.body();
  return r;
}

// One connection: (a TLS handshake,) one request, its answer, then close.
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(Stream stream, ProviderStandIn::State* state)
      : stream_(std::move(stream)), state_(state), timer_(state->ioc) {}

  void Start() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      Read();
    } else {
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (!ec) self->Read();
                              });
    }
  }

 private:
  void Read() {
    parser_.body_limit(16 * 1024 * 1024);
    http::async_read(stream_, buffer_, parser_,
                     [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) self->OnRequest();
                     });
  }

  void OnRequest() {
    const auto& req = parser_.get();
    {
      std::lock_guard lock(state_->mu);
      state_->received.push_back(Record(req));
    }
    state_->cv.notify_all();
    answer_ = state_->AnswerFor(std::string(req.target()));
    timer_.expires_after(answer_.delay);
    timer_.async_wait([self = this->shared_from_this()](beast::error_code) { self->Write(); });
  }

  void Write() {
    res_.result(answer_.status);
    res_.version(11);
    res_.set(http::field::content_type, "application/json");
    for (const auto& h : answer_.headers) res_.set(h.name, h.value);
    res_.body() = answer_.body;
    res_.keep_alive(false);
    if (answer_.chunked) {
      res_.chunked(true);
    } else {
      res_.prepare_payload();
    }
    http::async_write(stream_, res_,
                      [self = this->shared_from_this()](beast::error_code, std::size_t) {
                        beast::error_code ignored;
                        beast::get_lowest_layer(self->stream_)
                            .socket()
                            .shutdown(tcp::socket::shutdown_both, ignored);
                      });
  }

  Stream stream_;
  ProviderStandIn::State* state_;  // outlives every session: they live in its io_context
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  StandInAnswer answer_;
  http::response<http::string_body> res_;
};

void Accept(ProviderStandIn::State* state) {
  state->acceptor.async_accept([state](beast::error_code ec, tcp::socket socket) {
    if (ec) return;
    {
      std::lock_guard lock(state->mu);
      ++state->connections;
    }
    if (state->tls) {
      using TlsStream = beast::ssl_stream<beast::tcp_stream>;
      std::make_shared<Session<TlsStream>>(TlsStream(std::move(socket), *state->tls), state)
          ->Start();
    } else {
      std::make_shared<Session<beast::tcp_stream>>(beast::tcp_stream(std::move(socket)), state)
          ->Start();
    }
    Accept(state);
  });
}

}  // namespace

ProviderStandIn::ProviderStandIn(Tls tls, std::uint16_t port) : state_(std::make_unique<State>()) {
  if (tls == Tls::kSelfSigned) MakeCertificate(*state_);
  if (tls == Tls::kOwnCa) MakeCaSignedCertificate(*state_);
  const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), port);
  state_->acceptor.open(endpoint.protocol());
  state_->acceptor.set_option(asio::socket_base::reuse_address(true));
  state_->acceptor.bind(endpoint);
  state_->acceptor.listen();
  Accept(state_.get());
  state_->thread = std::thread([s = state_.get()] { s->ioc.run(); });
}

// Stopping the io_context and then destroying it (with State) destroys the pending
// handlers and with them the sessions they keep alive.
ProviderStandIn::~ProviderStandIn() {
  state_->ioc.stop();
  state_->thread.join();
}

void ProviderStandIn::Answer(const std::string& target, StandInAnswer answer) {
  std::lock_guard lock(state_->mu);
  state_->answers[target] = std::move(answer);
}

void ProviderStandIn::AnswerWithFile(const std::string& target, const std::filesystem::path& file,
                                     unsigned status) {
  Answer(target, {.status = status,
                  .body = ReadWholeFile(file),
                  .headers = {},
                  .delay = {},
                  .chunked = false});
}

std::uint16_t ProviderStandIn::port() const {
  return state_->acceptor.local_endpoint().port();
}

std::string ProviderStandIn::base_url() const {
  return std::string(state_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port());
}

std::string ProviderStandIn::ca_file() const {
  return state_->ca_file;
}

std::size_t ProviderStandIn::connections() const {
  std::lock_guard lock(state_->mu);
  return state_->connections;
}

std::vector<ReceivedRequest> ProviderStandIn::Received() const {
  std::lock_guard lock(state_->mu);
  return state_->received;
}

std::vector<ReceivedRequest> ProviderStandIn::WaitFor(std::size_t n,
                                                      std::chrono::seconds deadline) {
  std::unique_lock lock(state_->mu);
  state_->cv.wait_for(lock, deadline, [&] { return state_->received.size() >= n; });
  return state_->received;
}

}  // namespace bb
