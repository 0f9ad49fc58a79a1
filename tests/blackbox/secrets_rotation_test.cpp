// Issue 24 item 8: each secret rotated the way docs/secrets-rotation.md says, with the real
// binary: response keys (published before they sign, kept published after), admin tokens
// (a new one works and the old one is refused at once, no restart), the PostgreSQL
// password (the store URL read from a file, ALTER ROLE, restart) and the Redis password
// (an ACL user with two passwords for the change-over). Signing keys have their own tests
// (OperationsConfig.SighupAddsASecondSigningKeyThenDropsTheOldWithoutARestart).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>

#include "auth/response_signature.h"
#include "support/fixture.h"
#include "support/pg_server.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

struct ResponseKey {
  std::string path;
  std::string kid;
  std::string public_key;
};

class SecretsRotation : public BlackboxTest {
 protected:
  // `licensed admin response-key generate --out <dir>/<name> --json`: docs step 1.
  ResponseKey GenerateResponseKey(const std::string& name) const {
    const std::string path = (dir().path() / name).string();
    const CommandResult r = admin().Run({"response-key", "generate", "--out", path, "--json"});
    if (r.exit_code != 0) throw std::runtime_error("generate failed\n" + r.Describe());
    const json::value v = ParseJson(r.out);
    return {path, Str(v, "kid"), Str(v, "publicKey")};
  }

  // The published Ed25519 keys' kids, in order.
  std::vector<std::string> PublishedEd25519Kids() const {
    std::vector<std::string> kids;
    const json::value published = ParseJson(GetPublicKeys().body);
    for (const auto& key : Arr(published, "keys")) {
      if (Str(key, "alg") == "Ed25519") kids.push_back(Str(key, "kid"));
    }
    return kids;
  }

  // A status answer, and whether the verifier the SDK and licensectl run accepts it
  // with exactly these keys pinned.
  std::vector<bool> AcceptedBy(const std::vector<std::vector<ResponseKey>>& pinnings) const {
    const HttpRequest request = Signed("status", Body(RandomUuidV4()));
    const HttpResponse r = Send(request);
    const std::string bound = BoundTo(request);
    std::vector<bool> accepted;
    for (const auto& pinning : pinnings) {
      std::vector<licensed::PinnedResponseKey> pinned;
      for (const auto& key : pinning) {
        auto parsed = licensed::parse_pinned_response_key(key.public_key);
        if (!parsed) throw std::runtime_error("cannot pin " + key.kid);
        pinned.push_back(*parsed);
      }
      accepted.push_back(
          licensed::verify_response_signature(pinned, r.header(kResponseSignature).value_or(""),
                                              bound, static_cast<unsigned>(r.status), r.body)
              .has_value());
    }
    return accepted;
  }
};

void WriteSecretFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text << "\n";
  ::chmod(path.c_str(), 0600);
}

TEST_F(SecretsRotation, AResponseKeyIsPublishedBeforeItSignsAndKeptPublishedAfter) {
  const ResponseKey old_key = GenerateResponseKey("old.pem");
  const ResponseKey new_key = GenerateResponseKey("new.pem");
  const std::vector<std::vector<ResponseKey>> pinnings = {{old_key}, {new_key}, {old_key, new_key}};

  // Step 1: the new key after the old: the old signs, both are published, so plugins
  // pinning either (or both) can be shipped before anything changes for old builds.
  ServerOptions options;
  options.args = {"--response-key", old_key.path, "--response-key", new_key.path};
  Start(options);
  EXPECT_EQ(PublishedEd25519Kids(), (std::vector<std::string>{old_key.kid, new_key.kid}));
  EXPECT_EQ(AcceptedBy(pinnings), (std::vector<bool>{true, false, true}));

  // Step 3: the order swapped and a restart: the new key signs, the old stays published.
  Stop();
  options.args = {"--response-key", new_key.path, "--response-key", old_key.path};
  Start(options);
  EXPECT_EQ(PublishedEd25519Kids(), (std::vector<std::string>{new_key.kid, old_key.kid}));
  EXPECT_EQ(AcceptedBy(pinnings), (std::vector<bool>{false, true, true}));

  // Step 4: the old key dropped: no longer published, the new one signs alone.
  Stop();
  options.args = {"--response-key", new_key.path};
  Start(options);
  EXPECT_EQ(PublishedEd25519Kids(), (std::vector<std::string>{new_key.kid}));
  EXPECT_EQ(AcceptedBy(pinnings), (std::vector<bool>{false, true, true}));
}

TEST_F(SecretsRotation, ANewAdminTokenWorksAndTheRevokedOneIsRefusedAtOnceWithoutARestart) {
  Start();
  const auto pid_before = server().pid();
  auto create = [this](const std::string& name) {
    const CommandResult r = admin().Run({"token", "create", "--name", name, "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return Str(ParseJson(r.out), "token");
  };
  auto products = [this](const std::string& token) {
    return Send(AdminApiRequest(token, "GET", "/products")).status;
  };
  const std::string old_token = create("ci-2026");
  EXPECT_EQ(products(old_token), 200);
  // The documented order: make the new token, move the tools to it, revoke the old.
  const std::string new_token = create("ci-2027");
  EXPECT_EQ(products(new_token), 200);
  EXPECT_EQ(products(old_token), 200) << "both live during the move";
  const CommandResult revoked = admin().Run({"token", "revoke", "--name", "ci-2026"});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.Describe();
  EXPECT_EQ(products(old_token), 401);
  EXPECT_EQ(products(new_token), 200);
  EXPECT_EQ(server().pid(), pid_before) << "no restart";
}

// The test's own PostgreSQL server (its password rules are changed, which the shared
// one's other tests must not see), with passwords checked for every role but the
// superuser: the shared scripts/postgres.sh trusts loopback, which would accept any.
class PasswordCheckingPostgres {
 public:
  PasswordCheckingPostgres() {
    PgSession su(server_.url());
    const std::string hba = su.Exec("SHOW hba_file");
    su.Exec(
        "COPY (VALUES ('local all all trust'), ('host all postgres 127.0.0.1/32 trust'), "
        "('host all all 127.0.0.1/32 scram-sha-256')) TO '" +
        hba + "'");
    su.Exec("SET password_encryption = 'scram-sha-256'");
    su.Exec("SELECT pg_reload_conf()");
    std::smatch m;
    if (!std::regex_search(server_.url(), m, std::regex(R"(@([^/]+)/)"))) {
      throw std::runtime_error("no host:port in " + server_.url());
    }
    host_port_ = m[1];
  }
  const std::string& superuser_url() const { return server_.url(); }
  std::string url(const std::string& role, const std::string& password) const {
    return "postgresql://" + role + ":" + password + "@" + host_port_ + "/" + role;
  }

 private:
  PgServer server_;
  std::string host_port_;
};

TEST_F(SecretsRotation, ThePostgresPasswordChangesByAlterRoleTheStoreFileAndARestart) {
  if (!on_postgres()) GTEST_SKIP() << "a PostgreSQL password";
  PasswordCheckingPostgres pg;
  PgSession su(pg.superuser_url());
  su.Exec("CREATE ROLE licensed_app LOGIN PASSWORD 'password-A'");
  su.Exec("CREATE DATABASE licensed_app OWNER licensed_app");
  const std::string url_a = pg.url("licensed_app", "password-A");
  const std::string url_b = pg.url("licensed_app", "password-B");
  const std::filesystem::path store_file = dir().path() / "store-url";
  WriteSecretFile(store_file, url_a);
  InitStore(url_a);
  const Admin on_a(url_a);
  on_a.CreateProduct(std::string(kProduct), std::string(kProductName));
  const std::string license = on_a.CreateLicense(std::string(kProduct), 5);

  // One pool connection, so the one open when the password changes is the one used.
  ServerOptions options;
  options.store_flag = false;
  options.args = {"--store-pool-size", "1"};
  options.env = {{"LICENSED_STORE_FILE", store_file.string()}};
  Start(options);
  ASSERT_OK(Activate(license, "machine-before"));

  // Step 1: the new password on the role, the new URL in the file, a restart.
  su.Exec("ALTER ROLE licensed_app PASSWORD 'password-B'");
  // An open connection keeps working meanwhile.
  EXPECT_OK(Heartbeat(license, "machine-before"));
  WriteSecretFile(store_file, url_b);
  Stop();
  Start(options);
  ASSERT_OK(Activate(license, "machine-after"));
  EXPECT_OK(Heartbeat(license, "machine-before"));
  const json::value shown = Admin(url_b).Show(license);
  EXPECT_EQ(Arr(shown, "activations").size(), 2u);

  // The old password is refused: a server given the old URL does not start, and says
  // why without the password.
  const CommandResult refused =
      RunCommand({LicensedBinary(), "serve", "--listen", "127.0.0.1:0", "--store", url_a,
                  "--signing-key", kPluginKey.id + "=" + kPluginKey.secret},
                 {}, 30s);
  EXPECT_NE(refused.exit_code, 0) << refused.Describe();
  EXPECT_NE(refused.err.find("password authentication failed"), std::string::npos)
      << refused.Describe();
  EXPECT_EQ(refused.err.find("password-A"), std::string::npos) << refused.Describe();
  EXPECT_EQ(server().log().find("password-B"), std::string::npos) << server().log();
}

// redis-cli against the test's Redis, as its default (password-less) user.
std::string RedisCli(const RedisServer& redis, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/redis-cli", "-p", std::to_string(redis.port())};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult r = RunCommand(argv);
  if (r.exit_code != 0) throw std::runtime_error(r.Describe());
  return r.out;
}

TEST_F(SecretsRotation, TheRedisPasswordChangesThroughAnAclUserWithTwoPasswords) {
  if (!std::filesystem::exists("/usr/bin/redis-cli")) GTEST_SKIP() << "no redis-cli";
  RedisServer redis;
  const std::string address = "@127.0.0.1:" + std::to_string(redis.port());
  const std::string url_old = "redis://licensed:old-password" + address;
  const std::string url_new = "redis://licensed:new-password" + address;
  RedisCli(redis, {"ACL", "SETUSER", "licensed", "on", ">old-password", "~*", "&*", "+@all"});
  const std::string license = NewLicense(5);
  ServerOptions options;
  options.args = {"--redis", url_old, "--redis-timeout", "2000"};
  Start(options);
  ASSERT_OK(Activate(license, "machine-before"));

  // The new password added beside the old, the instance restarted with it.
  RedisCli(redis, {"ACL", "SETUSER", "licensed", ">new-password"});
  Stop();
  options.args = {"--redis", url_new, "--redis-timeout", "2000"};
  Start(options);
  ASSERT_OK(Activate(license, "machine-after"));

  // The old password removed: the running instance keeps serving; one given the old URL
  // is refused at start, naming Redis and never the password.
  RedisCli(redis, {"ACL", "SETUSER", "licensed", "<old-password"});
  EXPECT_OK(Heartbeat(license, "machine-after"));
  const CommandResult refused = RunCommand(
      {LicensedBinary(), "serve", "--listen", "127.0.0.1:0", "--store", store(), "--signing-key",
       kPluginKey.id + "=" + kPluginKey.secret, "--redis", url_old, "--redis-timeout", "2000"},
      {}, 30s);
  EXPECT_NE(refused.exit_code, 0) << refused.Describe();
  EXPECT_NE(refused.err.find("redis"), std::string::npos) << refused.Describe();
  EXPECT_EQ(refused.err.find("old-password"), std::string::npos) << refused.Describe();
  EXPECT_EQ(server().log().find("new-password"), std::string::npos) << server().log();
}

}  // namespace
}  // namespace bb
