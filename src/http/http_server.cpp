#include "http/http_server.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http/routes.h"

namespace licensed {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {
std::optional<std::string_view> header(const http::request_header<>& h, std::string_view name) {
  const auto it = h.find(name);
  if (it == h.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}
}  // namespace

// One connection: reads a request (header first, so route and size are checked before
// the body is read), answers it, and reads the next. Answers go out in request order.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, HttpServer& server)
      : stream_(std::move(socket)), server_(server) {
    server_.add_session(this);
  }
  ~HttpSession() { server_.remove_session(this); }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
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
  void read_header() {
    busy_ = false;
    if (server_.draining()) return close();
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(server_.config().max_header_bytes));
    parser_->body_limit(server_.config().max_body_bytes);
    stream_.expires_after(buffer_.size() > 0 ? server_.config().read_timeout
                                             : server_.config().idle_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    busy_ = true;
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == beast::error::timeout) {
      return close();
    }
    request_id_ = new_request_id();
    if (ec == http::error::header_limit) {
      HttpResponse res{http::status::request_header_fields_too_large, 11};
      res.set(http::field::date, http_date_now());
      res.set("X-Request-Id", request_id_);
      return send(std::move(res), true);
    }
    // Beast refuses a declared Content-Length over the body limit while it reads the
    // header; the header is parsed by then, and the route (check 1) still comes first.
    const bool declared_too_large = ec == http::error::body_limit;
    if (ec && !declared_too_large) return send_bad_request();

    const auto& req = parser_->get();
    path_ = std::string(path_of(req.target()));
    auto route = route_license_request(req.method_string(), path_);
    if (!route.ok()) return finish_unrouted(std::move(route.error()));
    endpoint_ = route.value();

    // Check 2: a declared length over the limit is refused before reading the body.
    if (declared_too_large ||
        parser_->content_length().value_or(0) > server_.config().max_body_bytes) {
      return send(
          error_response(errors::body_too_large(server_.config().max_body_bytes), request_id_),
          true);
    }
    stream_.expires_after(server_.config().read_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  // 404 and 405 answer without the body; the connection closes when a body was sent,
  // since it was not read.
  void finish_unrouted(ApiError error) {
    const bool has_body = !parser_->is_header_done() || parser_->content_length().value_or(0) > 0 ||
                          parser_->chunked();
    send(error_response(error, request_id_), has_body);
  }

  void on_body(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      return send(
          error_response(errors::body_too_large(server_.config().max_body_bytes), request_id_),
          true);
    }
    if (ec) return close();
    const auto& req = parser_->get();
    beast::error_code peer_ec;
    const auto peer = stream_.socket().remote_endpoint(peer_ec);
    if (peer_ec) return close();
    client_ip_ = server_.config().trusted_proxies.client_address(
        peer.address(), header(req.base(), "X-Forwarded-For").value_or(""));

    IncomingRequest in;
    in.method = req.method_string();
    in.path = path_;
    in.content_type = header(req.base(), "Content-Type").value_or("");
    in.body = req.body();
    in.client_ip = client_ip_;
    in.signing.key_id = header(req.base(), "X-License-Key-Id");
    in.signing.timestamp = header(req.base(), "X-License-Timestamp");
    in.signing.nonce = header(req.base(), "X-License-Nonce");
    in.signing.signature = header(req.base(), "X-License-Signature");

    server_.handler().handle(
        endpoint_, in, request_id_, [self = shared_from_this()](HttpResponse res) {
          net::post(self->stream_.get_executor(),
                    [self, r = std::move(res)]() mutable { self->send(std::move(r), false); });
        });
  }

  void send_bad_request() {
    HttpResponse res{http::status::bad_request, 11};
    res.set(http::field::date, http_date_now());
    res.set("X-Request-Id", request_id_);
    res.set(http::field::content_type, "application/json");
    res.body() =
        R"({"ok":false,"error":"BAD_REQUEST","message":"malformed HTTP request","requestId":")" +
        request_id_ + "\"}";
    send(std::move(res), true);
  }

  void send(HttpResponse res, bool close_after) {
    const bool keep_alive =
        !close_after && parser_ && parser_->get().keep_alive() && !server_.draining();
    res.version(parser_ && parser_->get().version() == 10 ? 10 : 11);
    res.keep_alive(keep_alive);
    res.prepare_payload();
    response_ = std::make_unique<HttpResponse>(std::move(res));
    stream_.expires_after(server_.config().read_timeout);
    http::async_write(stream_, *response_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
                        self->response_.reset();
                        if (ec || !keep_alive) return self->close();
                        self->read_header();
                      });
  }

  // Half-closes, then reads and discards what the client still sends for a moment:
  // closing with unread bytes would reset the connection and could destroy the answer
  // (a 413 to a client still sending its body) before the client reads it.
  void close() {
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

  beast::tcp_stream stream_;
  HttpServer& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::unique_ptr<HttpResponse> response_;
  std::string request_id_;
  std::string path_;
  std::string client_ip_;
  Endpoint endpoint_{};
  bool busy_ = false;
  std::array<char, 4096> discard_{};
};

HttpServer::HttpServer(HttpServerConfig config, const LicenseHandler& handler)
    : config_(std::move(config)), handler_(handler) {
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
      size_t open_sessions;
      {
        std::lock_guard lock(sessions_mu_);
        open_sessions = sessions_.size();
      }
      if (open_sessions >= config_.max_connections || draining_) {
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
