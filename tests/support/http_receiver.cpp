#include "support/http_receiver.h"

#include <strings.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace bb {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct HttpReceiver::State {
  unsigned status = 200;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  mutable std::mutex mu;
  std::condition_variable cv;
  std::vector<ReceivedRequest> received;
};

namespace {

// One connection: one request, one answer (or none), then close.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpReceiver::State* state)
      : stream_(std::move(socket)), state_(state) {}

  void Start() {
    parser_.body_limit(16 * 1024 * 1024);
    http::async_read(stream_, buffer_, parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) self->OnRequest();
                     });
  }

 private:
  void OnRequest() {
    const auto& req = parser_.get();
    ReceivedRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    for (const auto& f : req) {
      r.headers.push_back({std::string(f.name_string()), std::string(f.value())});
    }
    r.body = req.body();
    {
      std::lock_guard lock(state_->mu);
      state_->received.push_back(std::move(r));
    }
    state_->cv.notify_all();
    if (state_->status == 0) {
      // Hold the connection open, unanswered, until the peer gives up or we stop.
      stream_.async_read_some(asio::buffer(discard_),
                              [self = shared_from_this()](beast::error_code, std::size_t) {});
      return;
    }
    res_.result(state_->status);
    res_.version(11);
    res_.set(http::field::content_type, "application/json");
    res_.body() = R"({"id":"00000000000000000000000000000000"})";
    res_.keep_alive(false);
    res_.prepare_payload();
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code, std::size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    });
  }

  beast::tcp_stream stream_;
  HttpReceiver::State* state_;  // outlives every session: sessions live in its io_context
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> res_;
  char discard_[512];
};

void Accept(HttpReceiver::State* state) {
  state->acceptor.async_accept([state](beast::error_code ec, tcp::socket socket) {
    if (ec) return;
    std::make_shared<Session>(std::move(socket), state)->Start();
    Accept(state);
  });
}

}  // namespace

std::optional<std::string> ReceivedRequest::header(std::string_view name) const {
  for (const auto& h : headers) {
    if (h.name.size() == name.size() &&
        ::strncasecmp(h.name.data(), name.data(), name.size()) == 0) {
      return h.value;
    }
  }
  return std::nullopt;
}

std::string ReceivedRequest::Describe() const {
  std::string s = method + " " + target + "\n";
  for (const auto& h : headers) s += h.name + ": " + h.value + "\n";
  return s + "\n" + body;
}

HttpReceiver::HttpReceiver(unsigned status) : state_(std::make_unique<State>()) {
  state_->status = status;
  const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), 0);
  state_->acceptor.open(endpoint.protocol());
  state_->acceptor.set_option(asio::socket_base::reuse_address(true));
  state_->acceptor.bind(endpoint);
  state_->acceptor.listen();
  Accept(state_.get());
  state_->thread = std::thread([s = state_.get()] { s->ioc.run(); });
}

// Stopping the io_context and then destroying it (with State) destroys the pending
// handlers and with them the sessions they keep alive.
HttpReceiver::~HttpReceiver() {
  state_->ioc.stop();
  state_->thread.join();
}

std::uint16_t HttpReceiver::port() const {
  return state_->acceptor.local_endpoint().port();
}

std::vector<ReceivedRequest> HttpReceiver::WaitFor(std::size_t n, std::chrono::seconds deadline) {
  std::unique_lock lock(state_->mu);
  state_->cv.wait_for(lock, deadline, [&] { return state_->received.size() >= n; });
  return state_->received;
}

std::vector<ReceivedRequest> HttpReceiver::Received() const {
  std::lock_guard lock(state_->mu);
  return state_->received;
}

}  // namespace bb
