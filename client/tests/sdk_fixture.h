// Tests of the SDK and licensectl against the real `licensed` (tests/support's fixture
// starts it on port 0): a client configured for that server, a cache directory of the
// test's own, and injected time where the test needs to move it.
#pragma once

#include <memory>
#include <string>

#include "license_client.h"
#include "support/fixture.h"

namespace licensed::client::test {

class SdkTest : public bb::BlackboxTest {
 protected:
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  // A license of the test product with `max` machines and `seats` concurrent seats, plus
  // any further `license create` flags (a lease TTL, a borrow limit).
  std::string SeatLicense(int max, int seats, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"license",
                                     "create",
                                     "--product",
                                     std::string(bb::kProduct),
                                     "--max",
                                     std::to_string(max),
                                     "--max-concurrent",
                                     std::to_string(seats)};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--json");
    const bb::CommandResult r = admin().Run(args);
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return bb::Str(bb::ParseJson(r.out), "licenseKey");
  }
  std::filesystem::path CacheDir() const { return dir().path() / "cache"; }

  // A config for this server, the fixture's signing key, `license` and a fresh machine.
  // `url` is for a server already stopped (Url() needs a running one).
  ClientConfig Config(const std::string& license, const std::string& url = "") const {
    ClientConfig c;
    c.url = url.empty() ? Url() : url;
    c.key_id = bb::kPluginKey.id;
    c.secret = bb::kPluginKey.secret;
    c.license_key = license;
    c.machine_id = bb::NewMachineId();
    c.cache_dir = CacheDir();
    c.timeout = std::chrono::seconds(10);
    return c;
  }

  static std::shared_ptr<Client> Make(ClientConfig config) {
    std::string error;
    auto client = Client::create(std::move(config), error);
    EXPECT_TRUE(client) << error;
    return client;
  }
};

// Describes an answer for failure messages.
inline std::string Describe(const Answer& a) {
  return std::string("outcome=") + outcome_name(a.outcome) + " source=" + source_name(a.source) +
         " http=" + std::to_string(a.http_status) + " code=" + std::to_string(a.code) +
         " attempts=" + std::to_string(a.attempts) + " error=" + a.error + " message=" + a.message +
         " body=" + a.body;
}

}  // namespace licensed::client::test
