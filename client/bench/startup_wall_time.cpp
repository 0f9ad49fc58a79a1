// Measures what a host waits for the start-up check: the wall time of
// lc_check_at_startup for one plugin instance or for several loaded one after the other
// on one thread (as a host loads a project), in one situation of the network, and the
// time the whole process takes to free its clients and exit.
//
// It uses only the C ABI the first SDK shipped (lc_client_new, lc_check_at_startup,
// lc_client_free), so the same program measures an SDK before and after a change.
// The situations are made here, on loopback, by the program itself: a closed port, a
// listener whose accept queue is full (SYNs are dropped, as on an unroutable route), a
// listener that accepts and never answers, a server answering 503, and, for the two DNS
// situations, a resolver configuration of its own (a mount namespace with its own
// /etc/resolv.conf: needs root) naming a loopback DNS address where nothing listens
// (the name does not resolve) or where a socket swallows every query (a DNS server that
// never answers). "up" uses the real server given by --url.
//
// Usage: startup_wall_time --situation S --instances N [--budget-ms B] --url URL
//        --license-key K --public-key P --cache-dir D --machine-id M
// Prints one line: situation, instances, each check's ms, the slowest, the total.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "license_client/license_client.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int listening_socket(const char* address, int type, int backlog) {
  const int fd = socket(AF_INET, type, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(type == SOCK_DGRAM ? 53 : 0);
  inet_pton(AF_INET, address, &a.sin_addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (type == SOCK_STREAM && listen(fd, backlog) != 0)) {
    std::perror("listening socket");
    std::exit(2);
  }
  return fd;
}

int port_of(int fd) {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  return ntohs(a.sin_port);
}

// Starts a connection without waiting for it (the second one to a full queue never ends).
void connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  (void)connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);  // kept open on purpose
}

// Accepts connections and hands each to `serve` on a thread of its own, forever.
void accept_forever(int fd, void (*serve)(int)) {
  std::thread([fd, serve] {
    for (;;) {
      const int c = accept(fd, nullptr, nullptr);
      if (c >= 0) std::thread(serve, c).detach();
    }
  }).detach();
}

void never_answer(int) {}  // the connection stays open, unanswered

void answer_503(int c) {
  char buf[4096];
  (void)read(c, buf, sizeof buf);
  const char body[] =
      "{\"ok\":false,\"error\":\"LICENSE_API_UNAVAILABLE\",\"code\":1708,\"message\":\"busy\","
      "\"retryAfter\":1}";
  const std::string reply =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
      "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
      std::to_string(sizeof body - 1) + "\r\n\r\n" + body;
  (void)write(c, reply.data(), reply.size());
  close(c);
}

// This process (and only it) resolves names through `nameserver`.
void use_nameserver(const std::string& nameserver) {
  const std::string conf = "/tmp/startup-wall-time-resolv-" + std::to_string(getpid());
  std::ofstream(conf) << "nameserver " << nameserver << "\n";
  if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
      mount(conf.c_str(), "/etc/resolv.conf", nullptr, MS_BIND, nullptr) != 0) {
    std::perror("a resolver configuration of our own (needs root)");
    std::exit(2);
  }
  unlink(conf.c_str());  // the mount keeps it for this process
}

// The URL this situation is reached at, with its loopback stand-in started.
std::string set_up(const std::string& situation, const std::string& up_url) {
  const auto local = [](int fd) { return "http://127.0.0.1:" + std::to_string(port_of(fd)); };
  if (situation == "up") return up_url;
  if (situation == "refused") {
    const int fd = listening_socket("127.0.0.1", SOCK_STREAM, 1);
    std::string url = local(fd);
    close(fd);
    return url;
  }
  if (situation == "unroutable") {
    // A backlog of 0 holds one connection; with it (and one more) taken, the kernel drops
    // further SYNs without an answer, as a route to nowhere does.
    const int fd = listening_socket("127.0.0.1", SOCK_STREAM, 0);
    connect_to(port_of(fd));
    connect_to(port_of(fd));
    usleep(100 * 1000);  // both handshakes done (or dropped) before the client's
    return local(fd);
  }
  if (situation == "silent") {
    const int fd = listening_socket("127.0.0.1", SOCK_STREAM, 64);
    accept_forever(fd, never_answer);
    return local(fd);
  }
  if (situation == "503") {
    const int fd = listening_socket("127.0.0.1", SOCK_STREAM, 64);
    accept_forever(fd, answer_503);
    return local(fd);
  }
  // The DNS situations: a loopback address of their own, so parallel runs do not meet.
  const std::string dns = "127.53." + std::to_string(getpid() % 250) + ".1";
  if (situation == "unresolvable") {
    use_nameserver(dns);  // nothing listens there: every query is refused at once
    return "http://license.test:8080";
  }
  if (situation == "dns-silent") {
    (void)listening_socket(dns.c_str(), SOCK_DGRAM, 0);  // receives, never answers
    use_nameserver(dns);
    return "http://license.test:8080";
  }
  std::fprintf(stderr, "unknown situation %s\n", situation.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> arg;
  for (int i = 1; i + 1 < argc; i += 2) arg[argv[i]] = argv[i + 1];
  const std::string situation = arg["--situation"];
  const int instances = std::atoi(arg["--instances"].c_str());
  const std::string url = set_up(situation, arg["--url"]);

  lc_options o = lc_options_init();
  o.url = url.c_str();
  o.key_id = "plugin-2026";
  o.secret = arg["--secret"].c_str();
  o.license_key = arg["--license-key"].c_str();
  o.machine_id = arg["--machine-id"].c_str();
  o.public_key = arg["--public-key"].c_str();
  o.cache_dir = arg["--cache-dir"].c_str();
  if (!arg["--budget-ms"].empty()) o.startup_budget_ms = std::atoll(arg["--budget-ms"].c_str());

  std::vector<lc_client*> clients;
  std::string times;
  double slowest = 0;
  int last_status = -1;
  int last_source = -1;
  const auto all = Clock::now();
  for (int i = 0; i < instances; ++i) {
    char error[256] = {0};
    lc_client* c = lc_client_new(&o, error, sizeof error);
    if (c == nullptr) {
      std::fprintf(stderr, "lc_client_new: %s\n", error);
      return 2;
    }
    clients.push_back(c);
    const auto start = Clock::now();
    lc_result* r = nullptr;
    last_status = lc_check_at_startup(c, &r);
    const double took = ms_since(start);
    last_source = lc_result_source(r);
    lc_result_free(r);
    slowest = took > slowest ? took : slowest;
    times += (times.empty() ? "" : ",") + std::to_string(static_cast<int>(took));
  }
  const double checks = ms_since(all);
  const auto freeing = Clock::now();
  for (lc_client* c : clients) lc_client_free(c);
  std::printf(
      "situation=%s instances=%d status=%d source=%d checks_ms=[%s] slowest_ms=%.0f "
      "total_ms=%.0f free_ms=%.0f\n",
      situation.c_str(), instances, last_status, last_source, times.c_str(), slowest, checks,
      ms_since(freeing));
  std::fflush(stdout);
  return 0;
}
