// The network side: a thread per core, each running its own io_context with the
// sessions (one per connection) accepted onto it, and a graceful drain on stop().
// Store work never runs on these threads.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/log_throttle.h"
#include "core/mutex.h"
#include "http/client_address.h"
#include "http/http_service.h"
#include "http/request_intake.h"
#include "observability/server_metrics.h"

namespace licensed {

struct HttpServerConfig {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  size_t threads = 0;  // 0: one per core
  HttpLimits limits;
  // A keep-alive connection may wait this long for its next request's first byte.
  std::chrono::seconds idle_timeout{60};
  // Once a request's first byte arrived, its whole header must arrive within this,
  // however slowly it trickles in (slowloris).
  std::chrono::seconds header_timeout{10};
  // The body, and writing the answer, must each finish within this.
  std::chrono::seconds body_timeout{30};
  // Connections over the cap are closed as soon as they are accepted.
  size_t max_connections = 10000;
  // Open connections from one address at most, so that one client cannot take every
  // slot of the cap; 0: no such cap. Connections from a trusted proxy are not counted:
  // many clients share its address.
  size_t max_connections_per_address = 0;
  // Near the cap (90% of it open), an idle keep-alive connection may wait only this
  // long for its next request: slots held by idle clients go to new ones.
  std::chrono::seconds crowded_idle_timeout{2};
  TrustedProxies trusted_proxies;
  // One log line per answered request (http/access_log.h).
  bool access_log = false;
};

// Network threads for a configured number: 0 means one per core.
size_t network_thread_count(size_t configured);

class HttpSession;
struct NetworkThread;
// A connection's socket, bound to its network thread's concrete executor type.
using ConnectionSocket =
    boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;

class HttpServer {
 public:
  // `metrics` may be null (the admin listener does not count itself).
  HttpServer(HttpServerConfig config, const HttpService& service, ServerMetrics* metrics);
  ~HttpServer();

  // Binds and starts accepting; returns the bound endpoint (port 0 picks one). The host
  // is an IP address or a name resolved once here (an IPv4 address of it first).
  Result<boost::asio::ip::tcp::endpoint> start();
  // Stops accepting, lets in-flight requests finish (at most `grace`), closes idle
  // connections, and joins the threads.
  void stop(std::chrono::milliseconds grace);

  // For sessions.
  const HttpServerConfig& config() const { return config_; }
  const HttpService& service() const { return service_; }
  ServerMetrics* metrics() const { return metrics_; }
  size_t open_connections() EXCLUDES(sessions_mu_);
  bool draining() const { return draining_.load(); }
  // At or above 90% of the connection cap: idle connections get the short timeout.
  bool crowded() const;
  void add_session(HttpSession* s) EXCLUDES(sessions_mu_);
  void remove_session(HttpSession* s) EXCLUDES(sessions_mu_);

 private:
  void accept_next();
  void retry_accept_later(const boost::system::error_code& ec);
  void admit(ConnectionSocket socket, NetworkThread& target);
  bool has_room_for(const boost::asio::ip::address& peer, bool counted) EXCLUDES(sessions_mu_);

  HttpServerConfig config_;
  const HttpService& service_;
  ServerMetrics* metrics_;
  std::atomic<bool> draining_{false};
  bool stopped_ = false;
  // Every open session, across threads: for the connection cap and the drain.
  Mutex sessions_mu_;
  std::unordered_set<HttpSession*> sessions_ GUARDED_BY(sessions_mu_);
  // Open connections per client address (by client_block), trusted proxies left out (no
  // entry at zero).
  std::unordered_map<boost::asio::ip::address, size_t> per_address_ GUARDED_BY(sessions_mu_);
  // sessions_.size(), readable without the lock by the sweeps.
  std::atomic<size_t> open_count_{0};
  // Declared after the session set: destroying a thread's io_context ends the sessions
  // its queued handlers still hold, and they unregister from the set.
  std::vector<std::unique_ptr<NetworkThread>> network_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  // Waits before accepting again after accept() failed (out of descriptors).
  std::unique_ptr<boost::asio::steady_timer> accept_retry_;
  LogThrottle accept_failure_log_;
  LogThrottle address_cap_log_;
  size_t next_thread_ = 0;
};

// HOST:PORT for logs, an IPv6 host in brackets ([::1]:8080).
std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace licensed
