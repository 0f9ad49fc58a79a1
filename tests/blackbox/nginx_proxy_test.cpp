// docs/deploy.md's setup, tested: Debian's nginx in front of two instances that share
// Redis. licensed trusts only nginx's address as a proxy, so the ip bucket counts the
// client nginx saw, and a client that forges X-Forwarded-For (through nginx or straight
// to an instance) is still counted by its own address.
//
// Everything runs on one host, and every 127.x.y.z address is loopback on Linux, so the
// addresses tell the parties apart: clients connect from 127.0.0.2, 127.0.0.4 and
// 127.0.0.5, nginx reaches the instances from 127.0.0.3 (proxy_bind), and licensed
// trusts 127.0.0.3/32 only.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/fixture.h"
#include "support/free_port.h"
#include "support/redis_server.h"

namespace bb {
namespace {

constexpr const char* kNginxAddress = "127.0.0.3";

std::string NginxBinary() {
  for (const char* path : {"/usr/sbin/nginx", "/usr/local/sbin/nginx"}) {
    if (std::filesystem::exists(path)) return path;
  }
  throw std::runtime_error("nginx not found: run scripts/install-deps.sh (Debian package nginx)");
}

// The configuration docs/deploy.md explains, with the test's paths, ports and
// proxy_bind (which only a single-host test needs).
constexpr std::string_view kNginxConfig = R"(worker_processes 1;
pid @DIR@/nginx.pid;
error_log stderr notice;
events { worker_connections 256; }
http {
  access_log off;
  client_body_buffer_size 32k;
  client_body_temp_path @DIR@/client_body;
  proxy_temp_path @DIR@/proxy;
  fastcgi_temp_path @DIR@/fastcgi;
  uwsgi_temp_path @DIR@/uwsgi;
  scgi_temp_path @DIR@/scgi;
  upstream licensed {
@SERVERS@    keepalive 16;
  }
  server {
    listen 127.0.0.1:@PORT@;
    location = /nginx-ready { return 204; }
    # Staff only (docs/deploy.md): the admin API and the support view stay off the
    # public listener; ^~ so that no other location can take them.
    location ^~ /api/v1/admin { return 404; }
    location ^~ /dashboard/support { return 404; }
    location /api/ {
      proxy_pass http://licensed;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_bind @NGINX_ADDRESS@;
    }
  }
}
)";

std::string NginxConfig(const std::filesystem::path& dir, std::uint16_t listen,
                        const std::vector<std::uint16_t>& instances) {
  std::string servers;
  for (auto port : instances) servers += "    server 127.0.0.1:" + std::to_string(port) + ";\n";
  std::string text(kNginxConfig);
  const std::pair<std::string, std::string> values[] = {{"@DIR@", dir.string()},
                                                        {"@SERVERS@", servers},
                                                        {"@PORT@", std::to_string(listen)},
                                                        {"@NGINX_ADDRESS@", kNginxAddress}};
  for (const auto& [name, value] : values) {
    for (std::size_t at; (at = text.find(name)) != std::string::npos;) {
      text.replace(at, name.size(), value);
    }
  }
  return text;
}

class NginxProxy : public BlackboxTest {
 protected:
  // Two instances sharing Redis, trusting only nginx, with an ip limit of 3 an hour;
  // nginx in front of them.
  void StartDeployment() {
    ServerOptions options = WithRateLimits("3/1h", "off");
    options.args.insert(options.args.end(), {"--redis", redis_.url(), "--redis-timeout", "2000"});
    options.env.push_back({"LICENSED_TRUSTED_PROXIES", std::string(kNginxAddress) + "/32"});
    Start(options);
    other_ = StartAnother(options);

    nginx_port_ = FreeLoopbackPort();
    const auto config = nginx_dir_.WriteFile(
        "nginx.conf", NginxConfig(nginx_dir_.path(), nginx_port_, {port(), other_->port()}));
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

  void TearDown() override {
    if (nginx_) nginx_->Terminate();
    if (other_) other_->Terminate();
    BlackboxTest::TearDown();
  }

  HttpResponse ActivateViaNginx(const std::string& client, const std::string& license,
                                const std::string& machine,
                                const std::optional<std::string>& forged_for = {}) {
    HttpRequest req = Signed("activate", Body(license, machine));
    if (forged_for) req.Set("X-Forwarded-For", *forged_for);
    return SendFrom(client, nginx_port_, req);
  }
  HttpResponse ActivateDirectly(const std::string& client, const std::string& license,
                                const std::string& machine, const std::string& forged_for) {
    HttpRequest req = Signed("activate", Body(license, machine));
    req.Set("X-Forwarded-For", forged_for);
    return SendFrom(client, port(), req);
  }
  std::string AuditIp(const std::string& license, const std::string& machine) {
    for (const auto& rec : AuditRecords(license, "license.activate")) {
      if (Str(rec, "machineId") == machine) return Str(rec, "ip");
    }
    return "<no record>";
  }

  RedisServer redis_;
  TempDir nginx_dir_;
  std::uint16_t nginx_port_ = 0;
  std::unique_ptr<ServerProcess> other_;
  std::unique_ptr<ServerProcess> nginx_;
};

// Issue 24 item 8: the documented configuration keeps the admin API and the support view
// off the public listener, however the path is spelled; the instance itself still has them.
TEST_F(NginxProxy, TheAdminApiAndTheSupportViewAreNotOnThePublicListener) {
  StartDeployment();
  for (const char* target :
       {"/api/v1/admin/products", "/api/v1/admin", "/api/v1//admin/products",
        "/api/v1/%61dmin/products", "/api/v1/admin/../admin/products", "/dashboard/support"}) {
    HttpRequest req;
    req.method = "GET";
    req.target = target;
    req.Set("Authorization", "Bearer anything");
    const HttpResponse r = bb::Send(nginx_port_, req);
    EXPECT_EQ(r.status, 404) << target;
    EXPECT_EQ(r.body.find("\"ok\""), std::string::npos) << target << ": answered by licensed";
  }
  HttpRequest direct;
  direct.method = "GET";
  direct.target = "/api/v1/admin/products";
  EXPECT_EQ(bb::Send(port(), direct).status, 401) << "the instance still serves its staff";
}

TEST_F(NginxProxy, TheIpBucketCountsTheClientNginxSawAcrossBothInstances) {
  StartDeployment();
  const std::string license = NewLicense(10);
  // nginx alternates between the instances; the bucket is shared, so 3 in total.
  for (int i = 1; i <= 3; ++i) {
    const std::string machine = "machine-000" + std::to_string(i);
    ASSERT_OK(ActivateViaNginx("127.0.0.2", license, machine));
    EXPECT_EQ(AuditIp(license, machine), "127.0.0.2");
  }
  EXPECT_RATE_LIMITED(ActivateViaNginx("127.0.0.2", license, "machine-0004"), "ip", 3600);
  // A forged hop arrives left of the address nginx adds, so it is not believed.
  EXPECT_RATE_LIMITED(ActivateViaNginx("127.0.0.2", license, "machine-0004", "198.51.100.7"), "ip",
                      3600);
  // nginx's own address is not the bucket: another client behind it is admitted.
  ASSERT_OK(ActivateViaNginx("127.0.0.4", license, "machine-0005"));
  EXPECT_EQ(AuditIp(license, "machine-0005"), "127.0.0.4");
}

TEST_F(NginxProxy, AClientForgingXForwardedForStraightToAnInstanceIsCountedByItsOwnAddress) {
  StartDeployment();
  const std::string license = NewLicense(10);
  for (int i = 1; i <= 3; ++i) {
    ASSERT_OK(ActivateViaNginx("127.0.0.2", license, "machine-000" + std::to_string(i)));
  }
  // Going around nginx and claiming another address does not buy a fresh bucket ...
  EXPECT_RATE_LIMITED(ActivateDirectly("127.0.0.2", license, "machine-0004", "203.0.113.9"), "ip",
                      3600);
  // ... and claiming an exhausted one does not frame it: the forger has its own.
  ASSERT_OK(ActivateDirectly("127.0.0.5", license, "machine-0005", "127.0.0.2"));
  EXPECT_EQ(AuditIp(license, "machine-0005"), "127.0.0.5");
}

}  // namespace
}  // namespace bb
