#include "http/http_server.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>

namespace licensed {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

// One connection: waits for a request's first byte (idle timeout), reads its header
// (header timeout), routes it and checks its declared size before reading the body
// (body timeout), answers it, and reads the next. Answers go out in request order.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, HttpServer& server)
      : stream_(std::move(socket)), server_(server) {
    server_.add_session(this);
  }
  ~HttpSession() { server_.remove_session(this); }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->await_request(); });
  }

  // Called on the session's executor when the server drains.
  void close_if_idle() {
    if (!busy_) {
      beast::error_code ec;
      stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
      stream_.close();
    }
  }
  net::any_io_executor executor() { return stream_.get_executor(); }

 private:
  const HttpServerConfig& config() const { return server_.config(); }

  // Bytes of a pipelined request may already be buffered; otherwise the connection is
  // idle until the first byte, and only then does the header clock start.
  void await_request() {
    busy_ = false;
    if (server_.draining()) return close();
    if (buffer_.size() > 0) return read_header();
    stream_.expires_after(config().idle_timeout);
    stream_.async_read_some(buffer_.prepare(kFirstRead),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->close();
                              self->buffer_.commit(n);
                              self->read_header();
                            });
  }

  void read_header() {
    busy_ = true;
    started_ = std::chrono::steady_clock::now();
    parser_.emplace();
    apply_limits(*parser_, config().limits);
    stream_.expires_after(config().header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == beast::error::timeout ||
        ec == net::error::connection_reset) {
      return close();
    }
    request_id_ = new_request_id();
    HeaderDecision decision = decide_after_header(server_.service(), *parser_, ec, config().limits);
    path_ = std::move(decision.path);
    route_ = decision.route.value_or(Route{});
    if (decision.refusal) {
      return send(error_response(*decision.refusal, request_id_),
                  decision.refusal->close_connection);
    }
    stream_.expires_after(config().body_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    switch (classify_body_read(ec)) {
      case BodyOutcome::kTooLarge:
        return send(error_response(errors::body_too_large(
                                       static_cast<int64_t>(config().limits.max_body_bytes)),
                                   request_id_),
                    true);
      case BodyOutcome::kBroken:
        return close();
      case BodyOutcome::kComplete:
        break;
    }
    const auto& req = parser_->get();
    if (!peer_) {
      // Asked once per connection: the peer does not change, and getpeername() was a
      // system call on every request.
      beast::error_code peer_ec;
      const auto peer = stream_.socket().remote_endpoint(peer_ec);
      if (peer_ec) return close();
      peer_ = peer.address();
    }
    const auto forwarded = req.find("X-Forwarded-For");
    client_ip_ = config().trusted_proxies.client_address(
        *peer_, forwarded == req.end() ? std::string_view()
                                               : std::string_view(forwarded->value().data(),
                                                                  forwarded->value().size()));
    const RequestContext ctx{path_, client_ip_, request_id_};
    server_.service().serve(route_, req, ctx, [self = shared_from_this()](HttpResponse res) {
      net::post(self->stream_.get_executor(),
                [self, r = std::move(res)]() mutable { self->send(std::move(r), false); });
    });
  }

  void send(HttpResponse res, bool close_after) {
    const bool keep_alive =
        !close_after && parser_ && parser_->get().keep_alive() && !server_.draining();
    // parser_ holds the request this answers until the next read_header().
    finalize_response(server_.service(), res, parser_ && parser_->get().version() == 10 ? 10 : 11,
                      keep_alive, parser_ ? parsed_header(*parser_, path_) : nullptr, path_);
    if (ServerMetrics* metrics = server_.metrics()) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started_;
      metrics->record_request(route_.label, res.result_int(), took.count());
    }
    response_ = std::make_unique<HttpResponse>(std::move(res));
    stream_.expires_after(config().body_timeout);
    http::async_write(stream_, *response_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
                        self->response_.reset();
                        if (ec || !keep_alive) return self->close();
                        self->await_request();
                      });
  }

  // Half-closes, then reads and discards what the client still sends for a moment:
  // closing with unread bytes would reset the connection and could destroy the answer
  // (a 413 to a client still sending its body) before the client reads it.
  void close() {
    busy_ = false;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return stream_.close();
    stream_.expires_after(std::chrono::seconds(2));
    drain();
  }

  void drain() {
    stream_.async_read_some(net::buffer(discard_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->stream_.close();
                              self->drain();
                            });
  }

  static constexpr size_t kFirstRead = 4096;

  beast::tcp_stream stream_;
  HttpServer& server_;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::unique_ptr<HttpResponse> response_;
  std::string request_id_;
  std::string path_;
  std::string client_ip_;
  std::optional<net::ip::address> peer_;  // the connection's peer, once known
  Route route_;
  std::chrono::steady_clock::time_point started_;
  bool busy_ = false;
  std::array<char, 4096> discard_{};
};

HttpServer::HttpServer(HttpServerConfig config, const HttpService& service, ServerMetrics* metrics)
    : config_(std::move(config)), service_(service), metrics_(metrics) {
  size_t n = config_.threads != 0 ? config_.threads : std::thread::hardware_concurrency();
  if (n == 0) n = 1;
  for (size_t i = 0; i < n; ++i) {
    contexts_.push_back(std::make_unique<net::io_context>(1));
    work_.emplace_back(net::make_work_guard(*contexts_.back()));
  }
}

HttpServer::~HttpServer() {
  stop(std::chrono::milliseconds(0));
}

Result<tcp::endpoint> HttpServer::start() {
  boost::system::error_code ec;
  const auto address = net::ip::make_address(config_.host, ec);
  if (ec) return errors::malformed("listen", "not an IP address: " + config_.host);
  tcp::endpoint endpoint(address, config_.port);
  acceptor_ = std::make_unique<tcp::acceptor>(*contexts_[0]);
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec) acceptor_->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return errors::malformed("listen", "cannot listen on " + config_.host + ":" +
                                           std::to_string(config_.port) + ": " + ec.message());
  }
  const auto bound = acceptor_->local_endpoint();
  accept_next();
  for (auto& ctx : contexts_) {
    threads_.emplace_back([c = ctx.get()] { c->run(); });
  }
  return bound;
}

void HttpServer::accept_next() {
  auto& ctx = *contexts_[next_context_++ % contexts_.size()];
  acceptor_->async_accept(net::make_strand(ctx), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_->is_open()) return;
    if (!ec) {
      if (open_connections() >= config_.max_connections || draining_) {
        if (metrics_ && !draining_) metrics_->record_connection_refused();
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        socket.set_option(tcp::no_delay(true), ec);
        std::make_shared<HttpSession>(std::move(socket), *this)->start();
      }
    }
    accept_next();
  });
}

size_t HttpServer::open_connections() {
  std::lock_guard lock(sessions_mu_);
  return sessions_.size();
}

void HttpServer::add_session(HttpSession* s) {
  std::lock_guard lock(sessions_mu_);
  sessions_.insert(s);
}

void HttpServer::remove_session(HttpSession* s) {
  std::lock_guard lock(sessions_mu_);
  sessions_.erase(s);
}

void HttpServer::stop(std::chrono::milliseconds grace) {
  if (threads_.empty()) return;
  draining_ = true;
  if (acceptor_) {
    net::post(acceptor_->get_executor(), [this] {
      beast::error_code ec;
      acceptor_->close(ec);
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    {
      // Idle keep-alive connections are closed; busy ones close after their answer.
      std::lock_guard lock(sessions_mu_);
      for (HttpSession* s : sessions_) {
        net::post(s->executor(), [w = s->weak_from_this()] {
          if (auto session = w.lock()) session->close_if_idle();
        });
      }
      if (sessions_.empty()) break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  work_.clear();
  for (auto& ctx : contexts_) ctx->stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace licensed
