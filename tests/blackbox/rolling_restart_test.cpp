// docs/deploy.md's rolling restart, scripted (scripts/rolling-restart.sh) and tested: two
// instances sharing Redis and the store behind Debian's nginx, clients sending signed
// requests through nginx the whole time, and the script restarting one instance, waiting
// for its /readyz, then the other. No request may be lost (restarting two instances 5 s
// apart by hand lost 51 of 144). The instances are started by a small control script of
// the test's, as systemd would start them, so that the restart script can restart them.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "support/fixture.h"
#include "support/free_port.h"
#include "support/redis_server.h"

namespace bb {
namespace {

namespace fs = std::filesystem;

std::string NginxBinary() {
  for (const char* path : {"/usr/sbin/nginx", "/usr/local/sbin/nginx"}) {
    if (fs::exists(path)) return path;
  }
  throw std::runtime_error("nginx not found: run scripts/install-deps.sh (Debian package nginx)");
}

// docs/deploy.md's upstream settings for a rolling restart: a connection refused by an
// instance that is restarting is retried on the other, a POST included
// (non_idempotent: a request the stopped instance had already processed would be refused
// there as a reused nonce, never applied twice).
constexpr std::string_view kNginxConfig = R"(worker_processes 1;
pid @DIR@/nginx.pid;
error_log stderr notice;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path @DIR@/client_body;
  proxy_temp_path @DIR@/proxy;
  fastcgi_temp_path @DIR@/fastcgi;
  uwsgi_temp_path @DIR@/uwsgi;
  scgi_temp_path @DIR@/scgi;
  upstream licensed {
    server 127.0.0.1:@A@ max_fails=1 fail_timeout=2s;
    server 127.0.0.1:@B@ max_fails=1 fail_timeout=2s;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:@PORT@;
    location = /nginx-ready { return 204; }
    location /api/ {
      proxy_pass http://licensed;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_next_upstream error timeout non_idempotent;
    }
  }
}
)";

std::string Replaced(std::string text,
                     const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    for (std::size_t at; (at = text.find(name)) != std::string::npos;) {
      text.replace(at, name.size(), value);
    }
  }
  return text;
}

// Stops the instance whose pid file is given (SIGTERM, which drains it) and starts it
// again on the same ports, in the background, as `systemctl restart` would.
constexpr std::string_view kControlScript = R"(#!/usr/bin/env bash
set -eu
pidfile=@DIR@/@NAME@.pid
if [ -f "$pidfile" ]; then
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  # Not kill -0: an orphan whose parent does not reap it stays a zombie.
  while [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
    sleep 0.05
  done
fi
@START@ >>@DIR@/@NAME@.log 2>&1 &
echo $! >"$pidfile"
)";

class RollingRestart : public BlackboxTest {
 protected:
  struct Instance {
    std::string name;
    std::uint16_t port = 0;
    std::uint16_t admin_port = 0;
    fs::path control;
    std::string readyz() const {
      return "http://127.0.0.1:" + std::to_string(admin_port) + "/readyz";
    }
  };

  void SetUp() override {
    BlackboxTest::SetUp();
    for (const char* name : {"a", "b"}) {
      Instance in;
      in.name = name;
      in.port = FreeLoopbackPort();
      in.admin_port = FreeLoopbackPort();
      in.control = MakeControlScript(in, "");
      instances_.push_back(in);
    }
  }

  void TearDown() override {
    if (nginx_) nginx_->Terminate();
    for (const auto& in : instances_) StopInstance(in);
    BlackboxTest::TearDown();
  }

  // The control script of `in` (its pid and log files are the instance's own);
  // `start_override`, when given, replaces its start command, in a file of its own.
  fs::path MakeControlScript(const Instance& in, const std::string& start_override) {
    std::string start = "exec env LICENSED_SIGNING_KEYS=" + kPluginKey.id + "=" +
                        kPluginKey.secret + " " + LicensedBinary() +
                        " serve --listen 127.0.0.1:" + std::to_string(in.port) +
                        " --admin-listen 127.0.0.1:" + std::to_string(in.admin_port) + " --store " +
                        store() + " --redis " + redis_.url() +
                        " --redis-timeout 2000 --rate-limit-key off --rate-limit-ip off";
    if (!start_override.empty()) start = start_override;
    const std::string text =
        Replaced(std::string(kControlScript),
                 {{"@DIR@", dir().path().string()}, {"@NAME@", in.name}, {"@START@", start}});
    return dir().WriteFile(
        "control-" + in.name + (start_override.empty() ? "" : "-override") + ".sh", text);
  }

  std::string InstanceLog(const Instance& in) const {
    std::ifstream f(dir().path() / (in.name + ".log"));
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

  static bool Ready(const Instance& in) {
    HttpRequest r;
    r.method = "GET";
    r.target = "/readyz";
    try {
      return bb::Send(in.admin_port, r).status == 200;
    } catch (const std::exception&) {
      return false;
    }
  }

  void StartInstance(const Instance& in) {
    const CommandResult r = RunCommand({"/bin/bash", in.control.string()});
    ASSERT_EQ(r.exit_code, 0) << r.Describe();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!Ready(in)) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << InstanceLog(in);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void StopInstance(const Instance& in) const {
    std::ifstream f(dir().path() / (in.name + ".pid"));
    pid_t pid = 0;
    if (!(f >> pid) || pid <= 0) return;
    ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (fs::exists("/proc/" + std::to_string(pid)) &&
           std::chrono::steady_clock::now() < deadline) {
      std::ifstream status("/proc/" + std::to_string(pid) + "/status");
      std::string line;
      bool zombie = false;
      while (std::getline(status, line)) {
        if (line.rfind("State:", 0) == 0) zombie = line.find('Z') != std::string::npos;
      }
      if (zombie) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void StartNginx() {
    nginx_port_ = FreeLoopbackPort();
    const auto config = nginx_dir_.WriteFile(
        "nginx.conf",
        Replaced(std::string(kNginxConfig), {{"@DIR@", nginx_dir_.path().string()},
                                             {"@A@", std::to_string(instances_[0].port)},
                                             {"@B@", std::to_string(instances_[1].port)},
                                             {"@PORT@", std::to_string(nginx_port_)}}));
    nginx_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{NginxBinary(), "-p", nginx_dir_.path().string(), "-c",
                                 config.string(), "-e", "stderr", "-g", "daemon off;"},
        EnvVars{});
    HttpRequest ready;
    ready.method = "GET";
    ready.target = "/nginx-ready";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (bb::Send(nginx_port_, ready).status != 204) {
      if (nginx_->ExitedOnItsOwn() || std::chrono::steady_clock::now() > deadline) {
        FAIL() << "nginx did not start:\n" << nginx_->log();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  CommandResult RollingRestartScript(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"/bin/bash", LICENSED_ROLLING_RESTART_SCRIPT};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, {}, std::chrono::seconds(180));
  }

  RedisServer redis_;
  TempDir nginx_dir_;
  std::uint16_t nginx_port_ = 0;
  std::unique_ptr<ServerProcess> nginx_;
  std::vector<Instance> instances_;
};

TEST_F(RollingRestart, TheScriptRestartsBothInstancesBehindNginxAndNoRequestIsLost) {
  for (const auto& in : instances_) StartInstance(in);
  StartNginx();
  const std::string license = NewLicense(100000);

  // Two clients, each a request after another through nginx, as plugins would: a new
  // machine's activation, then its status.
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<std::string> failures;
  std::atomic<int> answered{0};
  auto client = [&](int id) {
    for (int n = 0; !stop.load(); ++n) {
      const std::string machine = "machine-roll-" + std::to_string(id) + "-" + std::to_string(n);
      for (const char* endpoint : {"activate", "status"}) {
        HttpResponse r;
        try {
          r = bb::Send(nginx_port_, Signed(endpoint, Body(license, machine)));
        } catch (const std::exception& e) {
          r.status = 0;
          r.body = e.what();
        }
        if (r.status != 200) {
          std::lock_guard lock(mu);
          failures.push_back(std::string(endpoint) + " " + machine + ": " +
                             std::to_string(r.status) + " " + r.error + r.body);
        }
        ++answered;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  std::thread c1(client, 1), c2(client, 2);
  std::this_thread::sleep_for(std::chrono::seconds(1));

  const CommandResult r =
      RollingRestartScript({"--timeout", "30", "--settle", "3", instances_[0].readyz(),
                            "bash " + instances_[0].control.string(), instances_[1].readyz(),
                            "bash " + instances_[1].control.string()});
  std::this_thread::sleep_for(std::chrono::seconds(1));
  stop = true;
  c1.join();
  c2.join();

  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.err.find("all 2 instance(s) restarted and ready"), std::string::npos) << r.err;
  for (const auto& in : instances_) {
    const std::string log = InstanceLog(in);
    std::size_t starts = 0;
    for (std::size_t at = 0; (at = log.find("licensed ready", at)) != std::string::npos; ++at) {
      ++starts;
    }
    EXPECT_EQ(starts, 2u) << "instance " << in.name << " was not restarted once:\n" << log;
  }
  EXPECT_GT(answered.load(), 100) << "too few requests to say anything";
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << answered.load()
                                << " requests failed, the first: "
                                << (failures.empty() ? "" : failures.front());
}

TEST_F(RollingRestart, AnInstanceThatDoesNotComeBackStopsTheScriptBeforeTheNext) {
  for (const auto& in : instances_) StartInstance(in);
  // Instance a's restart stops it and starts nothing that answers.
  const fs::path broken = MakeControlScript(instances_[0], "sleep 600");
  const CommandResult r = RollingRestartScript(
      {"--timeout", "3", "--settle", "0", instances_[0].readyz(), "bash " + broken.string(),
       instances_[1].readyz(), "bash " + instances_[1].control.string()});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_NE(r.err.find("not ready after 3s"), std::string::npos) << r.err;
  EXPECT_TRUE(Ready(instances_[1])) << "the second instance was touched";
  const std::string log = InstanceLog(instances_[1]);
  EXPECT_EQ(log.find("received SIGTERM"), std::string::npos) << log;

  // And with one instance down, the script restarts nothing.
  const CommandResult refused = RollingRestartScript(
      {"--timeout", "3", "--settle", "0", instances_[1].readyz(),
       "bash " + instances_[1].control.string(), instances_[0].readyz(), "true"});
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_NE(refused.err.find("is not ready: not restarting"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace bb
