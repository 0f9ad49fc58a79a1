#include "http/http_server.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstring>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include "http/access_log.h"

namespace licensed {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Socket = ConnectionSocket;
using Deadline = std::chrono::steady_clock;

// How often a network thread looks for sessions past their deadline: timeouts are
// whole seconds, so one is enforced at most this much late.
constexpr auto kSweepPeriod = std::chrono::milliseconds(250);
// How long the acceptor waits after accept() failed before it tries again.
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

class HttpSession;

// The X-Forwarded-For list. Several lines of one field are one comma-separated list in
// their order (RFC 9110, section 5.3): a proxy may add a line of its own after the
// client's instead of appending to it, and reading the first line alone would let the
// client's forged line decide the address.
std::string forwarded_for(const http::request_header<>& req) {
  std::string list;
  for (auto [it, end] = req.equal_range("X-Forwarded-For"); it != end; ++it) {
    if (!list.empty()) list += ", ";
    list.append(it->value().data(), it->value().size());
  }
  return list;
}

// One network thread: its io_context, the sessions living on it, and the sweep that
// enforces their deadlines. Members are destroyed bottom-up, so handlers still queued
// in `io` (and the sessions they hold) go before the set they unregister from.
struct NetworkThread {
  // Locked because a session's last owner may be a store thread (its reply).
  Mutex sessions_mu;
  std::unordered_set<HttpSession*> sessions GUARDED_BY(sessions_mu);
  net::io_context io{1};
  net::executor_work_guard<net::io_context::executor_type> work{io.get_executor()};
  net::steady_timer sweep{io};
  std::thread thread;
};

// One connection: waits for a request's first byte (idle timeout), reads its header
// (header timeout), routes it and checks its declared size before reading the body
// (body timeout), answers it, and reads the next. Answers go out in request order.
//
// A session lives on one network thread's io_context, which only that thread runs, so
// its handlers never race and need no strand. Its socket is bound to that context's
// concrete executor, and its deadlines are a time stamp the thread's sweep checks,
// instead of a timer armed and cancelled around every read and write
// (beast::tcp_stream): both showed up in profiles of the request path.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // `counted`: the connection counts against the per-address cap (its peer is not a
  // trusted proxy, and there is such a cap).
  HttpSession(Socket socket, HttpServer& server, NetworkThread& thread, net::ip::address peer,
              bool counted)
      : socket_(std::move(socket)),
        server_(server),
        thread_(thread),
        buffer_(connection_buffer_limit(server.config().limits)),
        peer_(std::move(peer)),
        counted_(counted) {}
  ~HttpSession() {
    {
      MutexLock lock(thread_.sessions_mu);
      thread_.sessions.erase(this);
    }
    server_.remove_session(this);
  }

  // On the session's own thread.
  void start() {
    {
      MutexLock lock(thread_.sessions_mu);
      thread_.sessions.insert(this);
    }
    await_request();
  }

  // On the session's thread, when the server drains.
  void close_if_idle() {
    if (!busy_) {
      beast::error_code ec;
      socket_.shutdown(tcp::socket::shutdown_both, ec);
      socket_.close(ec);
    }
  }

  // On the session's thread, from the sweep: ends what waits past its deadline by
  // closing the socket. Cancelling would not do: a read whose step already completed
  // but whose handler is still queued would go on to its next step with no deadline.
  // Every later operation on the closed socket fails at once, and the session ends.
  // While the server is crowded, waiting for the next request has the short deadline.
  void enforce_deadline(Deadline::time_point now, bool crowded) {
    if (crowded && idle_since_ && now - *idle_since_ >= crowded_idle_timeout()) deadline_ = now;
    if (now < deadline_) return;
    deadline_ = Deadline::time_point::max();
    beast::error_code ec;
    socket_.close(ec);
  }

  net::io_context& context() { return thread_.io; }
  const net::ip::address& peer() const { return peer_; }
  bool counted() const { return counted_; }

 private:
  const HttpServerConfig& config() const { return server_.config(); }
  void expires_after(std::chrono::seconds timeout) { deadline_ = Deadline::now() + timeout; }
  void no_deadline() { deadline_ = Deadline::time_point::max(); }
  std::chrono::seconds crowded_idle_timeout() const {
    return std::min(config().crowded_idle_timeout, config().idle_timeout);
  }

  // Bytes of a pipelined request may already be buffered; otherwise the connection is
  // idle until the first byte, and only then does the header clock start.
  void await_request() {
    busy_ = false;
    if (server_.draining()) return close();
    if (buffer_.size() > 0) return read_header();
    expires_after(config().idle_timeout);
    idle_since_ = Deadline::now();
    socket_.async_read_some(buffer_.prepare(kFirstRead),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->close();
                              self->buffer_.commit(n);
                              self->read_header();
                            });
  }

  void read_header() {
    busy_ = true;
    idle_since_.reset();
    started_ = std::chrono::steady_clock::now();
    parser_.emplace();
    apply_limits(*parser_, config().limits);
    buffer_.max_size(std::max(buffer_.size(), connection_buffer_limit(config().limits)));
    expires_after(config().header_timeout);
    http::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset) {
      return close();
    }
    request_id_ = new_request_id();
    HeaderDecision decision = decide_after_header(server_.service(), *parser_, ec, config().limits);
    path_ = std::move(decision.path);
    route_ = decision.route.value_or(Route{});
    header_fields_ = decision.header_fields;
    if (decision.refusal) {
      return send(error_response(*decision.refusal, request_id_),
                  decision.refusal->close_connection);
    }
    // Chunk framing beyond the route's body fills the buffer (kBadFraming), not memory.
    buffer_.max_size(
        std::max(buffer_.size(), connection_buffer_limit_for(route_, config().limits)));
    expires_after(config().body_timeout);
    http::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    switch (classify_body_read(ec)) {
      case BodyOutcome::kTooLarge:
        return send(error_response(errors::body_too_large(static_cast<int64_t>(
                                       body_limit_for(route_, config().limits))),
                                   request_id_),
                    true);
      case BodyOutcome::kBadFraming:
        return send(error_response(errors::bad_chunk_framing(), request_id_), true);
      case BodyOutcome::kBroken:
        return close();
      case BodyOutcome::kComplete:
        break;
    }
    if (auto refused = refuse_trailer_fields(*parser_, header_fields_)) {
      return send(error_response(*refused, request_id_), true);
    }
    // The store and Redis bound their own work (queue limit, busy timeout, Redis' command
    // timeout); the write that follows sets the next deadline.
    no_deadline();
    const auto& req = parser_->get();
    client_ip_ = config().trusted_proxies.client_address(peer_, forwarded_for(req));
    // A request that parks (on Redis) resumes on this thread; until it is answered the
    // session reads nothing, so the request and these strings stay as they are.
    const RequestContext ctx{path_, client_ip_, request_id_, thread_.io.get_executor()};
    server_.service().serve(route_, req, ctx, [self = shared_from_this()](HttpResponse res) {
      // An answer made at once (a refusal) is written at once; one from a store thread
      // or a Redis worker is handed back to the session's thread.
      net::dispatch(self->thread_.io,
                    [self, r = std::move(res)]() mutable { self->send(std::move(r), false); });
    });
  }

  void send(HttpResponse res, bool close_after) {
    const bool keep_alive =
        !close_after && parser_ && parser_->get().keep_alive() && !server_.draining();
    // parser_ holds the request this answers until the next read_header().
    finalize_response(server_.service(), res, parser_ && parser_->get().version() == 10 ? 10 : 11,
                      keep_alive, parser_ ? parsed_header(*parser_, path_) : nullptr, route_,
                      path_);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started_;
    if (ServerMetrics* metrics = server_.metrics()) {
      metrics->record_request(route_.label, res.result_int(), took.count());
      if (res.result_int() >= 400) record_api_error(*metrics, res.body());
    }
    if (config().access_log) {
      const bool whole = parser_ && parser_->is_done();
      log_access({request_id_, route_.label, res.result_int(), took.count(),
                  whole ? &parser_->get() : nullptr});
    }
    response_ = std::make_unique<HttpResponse>(std::move(res));
    expires_after(config().body_timeout);
    http::async_write(socket_, *response_,
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
    idle_since_.reset();
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    if (ec) {
      socket_.close(ec);
      return;
    }
    expires_after(std::chrono::seconds(2));
    drain();
  }

  void drain() {
    socket_.async_read_some(net::buffer(discard_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) {
                                beast::error_code ignored;
                                self->socket_.close(ignored);
                                return;
                              }
                              self->drain();
                            });
  }

  static constexpr size_t kFirstRead = 4096;

  Socket socket_;
  HttpServer& server_;
  NetworkThread& thread_;
  Deadline::time_point deadline_ = Deadline::time_point::max();
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::unique_ptr<HttpResponse> response_;
  std::string request_id_;
  std::string path_;
  std::string client_ip_;
  const net::ip::address peer_;  // asked once, at accept: it does not change
  const bool counted_;
  // When the connection began waiting for its next request; none while it is busy.
  std::optional<Deadline::time_point> idle_since_;
  Route route_;
  size_t header_fields_ = 0;  // fields before the body: any more came in a trailer
  std::chrono::steady_clock::time_point started_;
  bool busy_ = false;
  std::array<char, 4096> discard_{};
};

namespace {

void sweep_deadlines(NetworkThread& t, const HttpServer& server) {
  t.sweep.expires_after(kSweepPeriod);
  t.sweep.async_wait([&t, &server](beast::error_code ec) {
    if (ec) return;
    const auto now = Deadline::now();
    const bool crowded = server.crowded();
    // Copied first: a session closed here may end, and erase itself, at once.
    std::vector<std::weak_ptr<HttpSession>> due;
    {
      MutexLock lock(t.sessions_mu);
      due.reserve(t.sessions.size());
      for (HttpSession* s : t.sessions) due.push_back(s->weak_from_this());
    }
    for (auto& w : due) {
      if (auto s = w.lock()) s->enforce_deadline(now, crowded);
    }
    sweep_deadlines(t, server);
  });
}

}  // namespace

size_t network_thread_count(size_t configured) {
  const size_t n = configured != 0 ? configured : std::thread::hardware_concurrency();
  return n != 0 ? n : 1;
}

HttpServer::HttpServer(HttpServerConfig config, const HttpService& service, ServerMetrics* metrics)
    : config_(std::move(config)), service_(service), metrics_(metrics) {
  const size_t n = network_thread_count(config_.threads);
  for (size_t i = 0; i < n; ++i) network_.push_back(std::make_unique<NetworkThread>());
}

HttpServer::~HttpServer() {
  stop(std::chrono::milliseconds(0));
}

std::string endpoint_text(const tcp::endpoint& endpoint) {
  const std::string host = endpoint.address().to_string();
  return (endpoint.address().is_v6() ? "[" + host + "]" : host) + ":" +
         std::to_string(endpoint.port());
}

namespace {

// An IP address as it is, or a name (localhost) resolved, an IPv4 address preferred so
// that a name means what clients connecting to 127.0.0.1 expect.
Result<net::ip::address> listen_address(net::io_context& io, const std::string& host) {
  boost::system::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (!ec) return address;
  tcp::resolver resolver(io);
  const auto results = resolver.resolve(host, "", ec);
  if (ec || results.empty()) {
    return Error::invalid_argument("listen", "cannot resolve the host to listen on: " + host);
  }
  for (const auto& r : results) {
    if (r.endpoint().address().is_v4()) return r.endpoint().address();
  }
  return results.begin()->endpoint().address();
}

}  // namespace

Result<tcp::endpoint> HttpServer::start() {
  boost::system::error_code ec;
  ASSIGN_OR_RETURN(const net::ip::address address, listen_address(network_[0]->io, config_.host));
  tcp::endpoint endpoint(address, config_.port);
  acceptor_ = std::make_unique<tcp::acceptor>(network_[0]->io);
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec) acceptor_->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    // Taken or refused now (a port in use, a privileged port): another try may succeed.
    return Error::unavailable("cannot listen on " + config_.host + ":" +
                              std::to_string(config_.port) + ": " + ec.message());
  }
  const auto bound = acceptor_->local_endpoint();
  accept_retry_ = std::make_unique<net::steady_timer>(network_[0]->io);
  accept_next();
  for (auto& t : network_) {
    sweep_deadlines(*t, *this);
    t->thread = std::thread([io = &t->io] { io->run(); });
  }
  return bound;
}

void HttpServer::accept_next() {
  NetworkThread& target = *network_[next_thread_++ % network_.size()];
  // Accepted straight into a socket of the target thread's concrete executor type.
  auto socket = std::make_shared<Socket>(target.io);
  acceptor_->async_accept(*socket, [this, &target, socket](beast::error_code ec) {
    if (ec == net::error::operation_aborted || !acceptor_->is_open()) return;
    if (ec) return retry_accept_later(ec);
    admit(std::move(*socket), target);
    accept_next();
  });
}

// accept() failed, nearly always for want of descriptors (EMFILE, ENFILE) or kernel
// memory. The waiting connection stays queued and the listening socket readable, so
// accepting again at once fails again at once: a loop that keeps a core busy and
// serves no one. Waiting a moment lets idle connections close and free descriptors.
//
// Nothing here may need a descriptor, nor a virtual call not made before: UBSan checks
// one by probing memory through a pipe, which it cannot open now, and then reports a
// wrong type that is not there. Hence the plain clock, and strerror (accept's errors
// are errno values) instead of the error category's message().
void HttpServer::retry_accept_later(const beast::error_code& ec) {
  if (const auto left_out = accept_failure_log_.admit(system_now_ms())) {
    beast::error_code ignored;
    spdlog::error("cannot accept connections on {}: {} ({} open); trying again every {} ms{}",
                  endpoint_text(acceptor_->local_endpoint(ignored)), std::strerror(ec.value()),
                  open_connections(), kAcceptRetry.count(), left_out_note(*left_out));
  }
  accept_retry_->expires_after(kAcceptRetry);
  accept_retry_->async_wait([this](beast::error_code wait_ec) {
    if (wait_ec || !acceptor_->is_open()) return;
    accept_next();
  });
}

// A connection becomes a session, or is closed at once when the server drains or has
// no room for it (the socket's destructor closes it).
void HttpServer::admit(Socket socket, NetworkThread& target) {
  beast::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return;  // the client has gone already
  const net::ip::address peer = endpoint.address();
  const bool counted =
      config_.max_connections_per_address != 0 && !config_.trusted_proxies.trusts(peer);
  if (draining_ || !has_room_for(peer, counted)) {
    if (metrics_ && !draining_) metrics_->record_connection_refused();
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);
  auto session = std::make_shared<HttpSession>(std::move(socket), *this, target, peer, counted);
  // Registered only now that make_shared has set the session's weak self, which stop()
  // reads under the same lock (TSan saw the constructor's registration race with it).
  add_session(session.get());
  net::post(target.io, [session] { session->start(); });
}

// Only the acceptor adds sessions, so room found here is still there when it adds one.
bool HttpServer::has_room_for(const net::ip::address& peer, bool counted) {
  size_t from_peer = 0;
  {
    MutexLock lock(sessions_mu_);
    if (sessions_.size() >= config_.max_connections) return false;
    if (!counted) return true;
    if (const auto it = per_address_.find(client_block(peer)); it != per_address_.end()) {
      from_peer = it->second;
    }
  }
  if (from_peer < config_.max_connections_per_address) return true;
  if (const auto left_out = address_cap_log_.admit(system_now_ms())) {
    spdlog::warn("closed a connection from {}: it has {} open already (--max-connections-per-ip){}",
                 peer.to_string(), from_peer, left_out_note(*left_out));
  }
  return false;
}

size_t HttpServer::open_connections() {
  MutexLock lock(sessions_mu_);
  return sessions_.size();
}

bool HttpServer::crowded() const {
  return open_count_.load(std::memory_order_relaxed) * 10 >= config_.max_connections * 9;
}

void HttpServer::add_session(HttpSession* s) {
  MutexLock lock(sessions_mu_);
  sessions_.insert(s);
  open_count_.store(sessions_.size(), std::memory_order_relaxed);
  if (s->counted()) ++per_address_[client_block(s->peer())];
}

void HttpServer::remove_session(HttpSession* s) {
  MutexLock lock(sessions_mu_);
  if (sessions_.erase(s) == 0) return;
  open_count_.store(sessions_.size(), std::memory_order_relaxed);
  if (!s->counted()) return;
  const auto it = per_address_.find(client_block(s->peer()));
  if (it != per_address_.end() && --it->second == 0) per_address_.erase(it);
}

void HttpServer::stop(std::chrono::milliseconds grace) {
  if (stopped_ || network_.empty() || !network_[0]->thread.joinable()) return;
  stopped_ = true;
  draining_ = true;
  if (acceptor_) {
    net::post(acceptor_->get_executor(), [this] {
      beast::error_code ec;
      acceptor_->close(ec);
      if (accept_retry_) accept_retry_->cancel();
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    {
      // Idle keep-alive connections are closed; busy ones close after their answer.
      MutexLock lock(sessions_mu_);
      for (HttpSession* s : sessions_) {
        net::post(s->context(), [w = s->weak_from_this()] {
          if (auto session = w.lock()) session->close_if_idle();
        });
      }
      if (sessions_.empty()) break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& t : network_) {
    t->work.reset();
    t->io.stop();
  }
  for (auto& t : network_) t->thread.join();
  // The contexts stay until ~HttpServer: a store thread may still hand a session its
  // answer (posting to a stopped context is safe), and the sessions queued handlers
  // hold end with the contexts, while the server they unregister from is whole.
}

}  // namespace licensed
