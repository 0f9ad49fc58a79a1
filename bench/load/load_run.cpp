#include "load/load_run.h"

#include <fmt/format.h>

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <memory>
#include <stdexcept>
#include <thread>

#include "load/answer_check.h"
#include "load/request_signer.h"

namespace licensed::bench {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;
// A socket bound to its io_context's own executor type: beast::tcp_stream's per-operation
// timers and the type-erased any_io_executor cost the generator more CPU per request than
// signing it, CPU the server under test then lacks. Timeouts are a watchdog's job instead.
using Socket = net::basic_stream_socket<tcp, net::io_context::executor_type>;

// A connection that cannot connect this many times in a row gives up, so a run against
// a dead server ends instead of spinning until its deadline (or forever with --requests).
constexpr int kMaxConnectFailures = 50;
constexpr auto kReconnectDelay = std::chrono::milliseconds(10);

constexpr size_t kEndpoints = 4;
constexpr std::array<Endpoint, kEndpoints> kAllEndpoints = {
    Endpoint::kActivate, Endpoint::kHeartbeat, Endpoint::kStatus, Endpoint::kDeactivate};

// The paths of the four endpoints: the API path is signed, the target is sent.
struct Paths {
  std::array<std::string, kEndpoints> api, target;

  explicit Paths(const std::string& prefix) {
    for (Endpoint e : kAllEndpoints) {
      api[index(e)] = "/api/v1/license/" + std::string(endpoint_name(e));
      target[index(e)] = prefix + api[index(e)];
    }
  }
  static size_t index(Endpoint e) { return static_cast<size_t>(e); }
};

// Shared by every connection: when to stop and where measuring starts.
struct RunControl {
  SteadyClock::time_point measure_from;
  SteadyClock::time_point deadline = SteadyClock::time_point::max();
  std::atomic<int64_t> budget{INT64_MAX};  // requests that may still be sent
  std::atomic<bool> stop{false};

  bool running() const {
    return !stop.load(std::memory_order_relaxed) && SteadyClock::now() < deadline;
  }
  // Claims the right to send one more request.
  bool take() { return running() && budget.fetch_sub(1, std::memory_order_relaxed) > 0; }
};

// "409 1705 LICENSE_API_LIMIT_REACHED" from an error body; just "409" when the body
// names no API error (a proxy's page, nginx in a ceiling run).
std::string error_key(unsigned status, const std::string& body, std::optional<int>& code) {
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(body, ec);
  if (!ec && parsed.is_object()) {
    const auto& o = parsed.get_object();
    const auto* c = o.if_contains("code");
    const auto* e = o.if_contains("error");
    if (c != nullptr && c->is_int64()) code = static_cast<int>(c->get_int64());
    std::string key = std::to_string(status);
    if (code) key += " " + std::to_string(*code);
    if (e != nullptr && e->is_string()) key += " " + std::string(e->get_string());
    return key;
  }
  return std::to_string(status);
}

struct LoadThread;

class Connection {
 public:
  Connection(LoadThread& thread, RequestSource source);
  void start() { connect(); }
  // Called by the thread's watchdog: ends an operation that has waited longer than the
  // timeout; its handler then counts a timeout.
  void check_timeout(SteadyClock::time_point now);

 private:
  void connect();
  void on_connect(beast::error_code ec);
  void send_next();
  void on_write(beast::error_code ec);
  void on_read(beast::error_code ec);
  // Verifies the answer's signature and counts the outcome (a sampled answer).
  void check_signature(const http::response<http::string_body>& res);
  void fail(const char* where, beast::error_code ec);
  void finish();
  void close_socket();

  LoadThread& thread_;
  RequestSource source_;
  Socket socket_;
  net::steady_timer retry_timer_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  std::optional<http::response_parser<http::string_body>> response_;
  SignedHeaders headers_;
  SteadyClock::time_point sent_at_;
  // When the pending connect, write or read began; max() when none is pending.
  SteadyClock::time_point pending_since_ = SteadyClock::time_point::max();
  bool timed_out_ = false;
  int connect_failures_ = 0;
};

struct LoadThread {
  LoadThread(const LoadConfig& c, RunControl& ctl, const tcp::resolver::results_type& eps,
             const Paths& p)
      : config(c),
        control(ctl),
        endpoints(eps),
        paths(p),
        signer(c.key_id, c.secret),
        sample(c.verify_every) {}

  const LoadConfig& config;
  RunControl& control;
  const tcp::resolver::results_type& endpoints;
  const Paths& paths;
  net::io_context io{1};
  net::steady_timer watchdog{io};
  RequestSigner signer;
  AnswerSample sample;
  std::vector<PinnedResponseKey> pinned;  // the server's published keys
  std::vector<std::unique_ptr<Connection>> connections;
  RunStats stats;  // this thread's alone until it has finished
  SteadyClock::time_point last_answer{};
  // Read by the progress line while the run goes on.
  std::atomic<uint64_t> answered{0};
  std::atomic<uint64_t> refused{0};  // non-2xx the scenario does not expect
  std::atomic<uint64_t> transport_failures{0};
  std::atomic<uint64_t> signature_failures{0};
  size_t connections_done = 0;  // connections that will send nothing more
};

// Every quarter second, ends the operations that have waited longer than the timeout;
// stops once every connection of the thread is done, so the io_context runs out of work.
void arm_watchdog(LoadThread& t) {
  t.watchdog.expires_after(std::chrono::milliseconds(250));
  t.watchdog.async_wait([&t](beast::error_code ec) {
    if (ec || t.connections_done >= t.connections.size()) return;
    const auto now = SteadyClock::now();
    for (auto& c : t.connections) c->check_timeout(now);
    arm_watchdog(t);
  });
}

Connection::Connection(LoadThread& thread, RequestSource source)
    : thread_(thread),
      source_(std::move(source)),
      socket_(thread.io.get_executor()),
      retry_timer_(thread.io) {
  request_.version(11);
  request_.method(http::verb::post);
  request_.set(http::field::host,
               thread.config.target.host + ":" + std::to_string(thread.config.target.port));
  request_.set(http::field::content_type, "application/json");
  request_.set(http::field::user_agent, "licensed-bench");
  request_.keep_alive(true);
}

void Connection::check_timeout(SteadyClock::time_point now) {
  if (now - pending_since_ < thread_.config.timeout) return;
  timed_out_ = true;
  pending_since_ = SteadyClock::time_point::max();
  beast::error_code ignored;
  socket_.close(ignored);  // the pending operation completes with operation_aborted
}

void Connection::connect() {
  if (!thread_.control.running()) return finish();
  pending_since_ = SteadyClock::now();
  net::async_connect(socket_, thread_.endpoints,
                     [this](beast::error_code ec, const tcp::endpoint&) { on_connect(ec); });
}

void Connection::on_connect(beast::error_code ec) {
  pending_since_ = SteadyClock::time_point::max();
  if (ec) {
    fail("connect", ec);
    if (++connect_failures_ >= kMaxConnectFailures) {
      ++thread_.stats.transport_errors["connect: gave up"];
      return finish();
    }
    retry_timer_.expires_after(kReconnectDelay);
    retry_timer_.async_wait([this](beast::error_code) { connect(); });
    return;
  }
  connect_failures_ = 0;
  beast::error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  send_next();
}

void Connection::send_next() {
  if (!thread_.control.take()) return finish();
  const PlannedRequest& planned = source_.next();
  const size_t i = Paths::index(planned.endpoint);
  if (!thread_.signer.sign("POST", thread_.paths.api[i], planned.body_sha256_hex,
                           unix_seconds_now(), headers_)) {
    ++thread_.stats.transport_errors["sign: OpenSSL failed"];
    thread_.control.stop = true;
    return finish();
  }
  request_.target(thread_.paths.target[i]);
  request_.set("X-License-Key-Id", headers_.key_id);
  request_.set("X-License-Timestamp", headers_.timestamp);
  request_.set("X-License-Nonce", headers_.nonce);
  request_.set("X-License-Signature", headers_.signature);
  request_.body() = planned.body;
  request_.prepare_payload();
  sent_at_ = SteadyClock::now();
  pending_since_ = sent_at_;
  http::async_write(socket_, request_, [this](beast::error_code ec, size_t) { on_write(ec); });
}

void Connection::on_write(beast::error_code ec) {
  if (ec) return fail("write", ec);
  response_.emplace();
  response_->body_limit(1 << 20);
  http::async_read(socket_, buffer_, *response_,
                   [this](beast::error_code ec, size_t) { on_read(ec); });
}

void Connection::on_read(beast::error_code ec) {
  if (ec) return fail("read", ec);
  pending_since_ = SteadyClock::time_point::max();
  const auto now = SteadyClock::now();
  const auto& res = response_->get();
  const unsigned status = res.result_int();
  const bool measured = sent_at_ >= thread_.control.measure_from;
  RunStats& stats = thread_.stats;
  thread_.answered.fetch_add(1, std::memory_order_relaxed);
  thread_.last_answer = now;
  bool expected = status / 100 == 2;
  std::string key;
  if (!expected) {
    std::optional<int> code;
    key = error_key(status, res.body(), code);
    expected = source_.limit_expected() && status == 409 && code == 1705;
    if (!expected) thread_.refused.fetch_add(1, std::memory_order_relaxed);
  }
  if (measured) {
    stats.latency.record(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - sent_at_).count()));
    ++stats.answered;
    ++stats.by_status[static_cast<int>(status)];
    if (status / 100 == 2) {
      ++stats.ok;
    } else {
      ++stats.errors[key];
      if (expected) ++stats.expected_refusals;
    }
  } else {
    ++stats.warmup_answered;
  }
  if (thread_.sample.take()) check_signature(res);
  if (!res.keep_alive()) {
    // The server ended the connection after answering: open a new one, as a client would.
    close_socket();
    return connect();
  }
  send_next();
}

void Connection::check_signature(const http::response<http::string_body>& res) {
  const auto it = res.find("X-License-Response-Signature");
  std::optional<std::string_view> header;
  if (it != res.end()) header = std::string_view(it->value().data(), it->value().size());
  RunStats& stats = thread_.stats;
  switch (check_answer_signature(thread_.pinned, header, headers_.signature, res.result_int(),
                                 res.body())) {
    case AnswerCheck::kPlain:
      ++stats.signatures_plain;
      break;
    case AnswerCheck::kTree:
      ++stats.signatures_in_trees;
      break;
    case AnswerCheck::kFailed:
      ++stats.signatures_failed;
      thread_.signature_failures.fetch_add(1, std::memory_order_relaxed);
      break;
  }
}

void Connection::fail(const char* where, beast::error_code ec) {
  pending_since_ = SteadyClock::time_point::max();
  const bool counted = thread_.control.running() || std::string_view(where) != "connect";
  if (counted) {
    const std::string what = timed_out_ ? "timeout" : ec.message();
    ++thread_.stats.transport_errors[fmt::format("{}: {}", where, what)];
    thread_.transport_failures.fetch_add(1, std::memory_order_relaxed);
  }
  timed_out_ = false;
  beast::error_code ignored;
  socket_.close(ignored);
  buffer_.clear();
  if (std::string_view(where) == "connect") return;  // on_connect retries
  retry_timer_.expires_after(kReconnectDelay);
  retry_timer_.async_wait([this](beast::error_code) { connect(); });
}

void Connection::finish() {
  close_socket();
  if (++thread_.connections_done == thread_.connections.size()) thread_.watchdog.cancel();
}

void Connection::close_socket() {
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  buffer_.clear();
}

// Runs `io` until the operations started on it complete; beast::tcp_stream's timeout
// bounds each of them, so a server that never answers fails the preparation instead of
// hanging it (blocking calls would ignore the timeout).
void run_until_done(net::io_context& io, beast::error_code& result) {
  io.restart();
  io.run();
  if (result) throw boost::system::system_error(result);
}

// One request and its answer, for the preparation pass (not timed, so the plain
// tcp_stream is fine here).
void send_and_check(net::io_context& io, beast::tcp_stream& stream, const LoadConfig& config,
                    const Paths& paths, RequestSigner& signer, const PlannedRequest& planned) {
  const size_t i = Paths::index(planned.endpoint);
  SignedHeaders h;
  if (!signer.sign("POST", paths.api[i], planned.body_sha256_hex, unix_seconds_now(), h)) {
    throw std::runtime_error("cannot sign: OpenSSL failed");
  }
  http::request<http::string_body> req{http::verb::post, paths.target[i], 11};
  req.set(http::field::host, config.target.host + ":" + std::to_string(config.target.port));
  req.set(http::field::content_type, "application/json");
  req.set("X-License-Key-Id", h.key_id);
  req.set("X-License-Timestamp", h.timestamp);
  req.set("X-License-Nonce", h.nonce);
  req.set("X-License-Signature", h.signature);
  req.body() = planned.body;
  req.prepare_payload();
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  beast::error_code result;
  stream.expires_after(config.timeout);
  http::async_write(stream, req, [&](beast::error_code ec, size_t) {
    if (ec) {
      result = ec;
      return;
    }
    stream.expires_after(config.timeout);
    http::async_read(stream, buffer, res, [&](beast::error_code ec, size_t) { result = ec; });
  });
  run_until_done(io, result);
  if (res.result_int() / 100 != 2) {
    throw std::runtime_error(
        fmt::format("preparation: {} answered {}: {}", paths.api[i], res.result_int(), res.body()));
  }
}

// GET /api/v1/license/public-keys: the keys the sampled answers are verified with.
std::vector<PinnedResponseKey> fetch_public_keys(const LoadConfig& config,
                                                 const tcp::resolver::results_type& endpoints) {
  net::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code result;
  stream.expires_after(config.timeout);
  stream.async_connect(endpoints, [&](beast::error_code ec, const tcp::endpoint&) { result = ec; });
  run_until_done(io, result);
  const std::string path = config.target.path_prefix + "/api/v1/license/public-keys";
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, config.target.host + ":" + std::to_string(config.target.port));
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  stream.expires_after(config.timeout);
  http::async_write(stream, req, [&](beast::error_code ec, size_t) {
    if (ec) {
      result = ec;
      return;
    }
    http::async_read(stream, buffer, res, [&](beast::error_code ec, size_t) { result = ec; });
  });
  run_until_done(io, result);
  auto pinned = res.result_int() == 200
                    ? pinned_keys_of(res.body())
                    : Result<std::vector<PinnedResponseKey>>(Error::invalid_argument(
                          "publicKeys", fmt::format("{} answered {}", path, res.result_int())));
  if (!pinned.ok()) {
    throw std::runtime_error(
        fmt::format("no response keys to verify answers with ({}); --verify-every 0 checks none",
                    pinned.error().message));
  }
  return std::move(pinned.value());
}

void prepare(const LoadConfig& config, const tcp::resolver::results_type& endpoints,
             const Paths& paths) {
  RequestSigner signer(config.key_id, config.secret);
  net::io_context io;
  beast::tcp_stream stream(io);
  bool connected = false;
  for (size_t c = 0; c < config.connections; ++c) {
    RequestSource source(config.scenario, config.license_keys, c, config.connections,
                         config.run_id);
    const auto planned = source.preparation();
    if (!planned) continue;
    if (!connected) {
      beast::error_code result;
      stream.expires_after(config.timeout);
      stream.async_connect(endpoints,
                           [&](beast::error_code ec, const tcp::endpoint&) { result = ec; });
      run_until_done(io, result);
      connected = true;
    }
    send_and_check(io, stream, config, paths, signer, *planned);
  }
  if (connected) {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }
}

std::string progress_line(double elapsed, double warmup, uint64_t answered_now,
                          uint64_t answered_before, double interval, uint64_t refused,
                          uint64_t transport, uint64_t unverified) {
  return fmt::format(
      "[{:5.1f} s]{} {:8.0f} req/s  {:10} answered  {} refused  {} transport errors{}", elapsed,
      elapsed <= warmup ? " warm-up" : "",
      static_cast<double>(answered_now - answered_before) / interval, answered_now, refused,
      transport,
      unverified > 0 ? fmt::format("  {} SIGNATURES NOT VERIFIED", unverified) : std::string());
}

}  // namespace

RunSummary run_load(const LoadConfig& config) {
  if (config.license_keys.empty()) throw std::runtime_error("no license keys to send");
  net::io_context resolve_io;
  tcp::resolver resolver(resolve_io);
  boost::system::error_code ec;
  const auto endpoints =
      resolver.resolve(config.target.host, std::to_string(config.target.port), ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("cannot resolve {}: {}", config.target.host, ec.message()));
  }
  const Paths paths(config.target.path_prefix);
  std::vector<PinnedResponseKey> pinned;
  try {
    if (config.verify_every > 0) pinned = fetch_public_keys(config, endpoints);
    prepare(config, endpoints, paths);
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error(fmt::format("cannot reach {}:{}: {}", config.target.host,
                                         config.target.port, e.code().message()));
  }

  const size_t threads = std::max<size_t>(1, std::min(config.threads, config.connections));
  RunControl control;
  std::vector<std::unique_ptr<LoadThread>> loads;
  for (size_t t = 0; t < threads; ++t) {
    loads.push_back(std::make_unique<LoadThread>(config, control, endpoints, paths));
    loads.back()->pinned = pinned;
  }
  for (size_t c = 0; c < config.connections; ++c) {
    LoadThread& load = *loads[c % threads];
    load.connections.push_back(std::make_unique<Connection>(
        load,
        RequestSource(config.scenario, config.license_keys, c, config.connections, config.run_id)));
  }

  const auto start = SteadyClock::now();
  control.measure_from = start + config.warmup;
  if (config.duration.count() > 0) control.deadline = start + config.warmup + config.duration;
  if (config.requests) control.budget = static_cast<int64_t>(*config.requests);
  std::atomic<size_t> finished{0};
  std::vector<std::thread> workers;
  for (auto& load : loads) {
    workers.emplace_back([&load, &finished] {
      arm_watchdog(*load);
      for (auto& c : load->connections) c->start();
      load->io.run();
      finished.fetch_add(1);
    });
  }

  // Progress once a second until every thread has run out of work.
  const double warmup_s = std::chrono::duration<double>(config.warmup).count();
  auto last_tick = start;
  uint64_t last_answered = 0;
  while (finished.load() < workers.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (config.interrupted && config.interrupted()) control.stop = true;
    const auto now = SteadyClock::now();
    const double interval = std::chrono::duration<double>(now - last_tick).count();
    if (interval < 1.0 || !config.progress) continue;
    uint64_t answered = 0, refused = 0, transport = 0, unverified = 0;
    for (const auto& load : loads) {
      answered += load->answered.load(std::memory_order_relaxed);
      refused += load->refused.load(std::memory_order_relaxed);
      transport += load->transport_failures.load(std::memory_order_relaxed);
      unverified += load->signature_failures.load(std::memory_order_relaxed);
    }
    config.progress(progress_line(std::chrono::duration<double>(now - start).count(), warmup_s,
                                  answered, last_answered, interval, refused, transport,
                                  unverified));
    last_tick = now;
    last_answered = answered;
  }
  for (auto& w : workers) w.join();

  RunSummary summary;
  summary.scenario = std::string(scenario_name(config.scenario));
  summary.target = fmt::format("http://{}:{}{}", config.target.host, config.target.port,
                               config.target.path_prefix);
  summary.connections = config.connections;
  summary.threads = threads;
  summary.verify_every = config.verify_every;
  summary.warmup_seconds = warmup_s;
  SteadyClock::time_point last_answer = control.measure_from;
  for (const auto& load : loads) {
    summary.stats.merge(load->stats);
    last_answer = std::max(last_answer, load->last_answer);
  }
  summary.measured_seconds =
      std::chrono::duration<double>(last_answer - control.measure_from).count();
  return summary;
}

}  // namespace licensed::bench
