// The network side: an io_context per core, a Beast session per connection, and a
// graceful drain on stop(). Store work never runs on these threads.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "http/client_address.h"
#include "http/license_handler.h"

namespace licensed {

struct HttpServerConfig {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  size_t threads = 0;  // 0: one per core
  size_t max_body_bytes = 16 * 1024;
  size_t max_header_bytes = 8 * 1024;
  std::chrono::seconds read_timeout{30};
  std::chrono::seconds idle_timeout{60};
  size_t max_connections = 10000;
  TrustedProxies trusted_proxies;
};

class HttpSession;

class HttpServer {
 public:
  HttpServer(HttpServerConfig config, const LicenseHandler& handler);
  ~HttpServer();

  // Binds and starts accepting; returns the bound endpoint (port 0 picks one).
  Result<boost::asio::ip::tcp::endpoint> start();
  // Stops accepting, lets in-flight requests finish (at most `grace`), closes idle
  // connections, and joins the threads.
  void stop(std::chrono::milliseconds grace);

  // For sessions.
  const HttpServerConfig& config() const { return config_; }
  const LicenseHandler& handler() const { return handler_; }
  bool draining() const { return draining_.load(); }
  void add_session(HttpSession* s);
  void remove_session(HttpSession* s);

 private:
  void accept_next();

  HttpServerConfig config_;
  const LicenseHandler& handler_;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<std::thread> threads_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  size_t next_context_ = 0;
  std::atomic<bool> draining_{false};
  std::mutex sessions_mu_;
  std::unordered_set<HttpSession*> sessions_;
  using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<WorkGuard> work_;
};

}  // namespace licensed
