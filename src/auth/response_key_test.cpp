#include "auth/response_key.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "auth/stored_response_key.h"
#include "store/store.h"

namespace licensed {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "response_key_test_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }

 private:
  std::string path_;
};

// openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:512 (never a real key).
constexpr char kRsaPem[] = R"(-----BEGIN PRIVATE KEY-----
MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAw6SdfYkyl1BuVEQ5
izrMA6XbUD2WU0w8loTKsLwwzK5byTELEudOclHru8bGsyO2coap+k6yc02kpw9L
Ps1ScQIDAQABAkBi2A11ulZkGo/TZTDJhihDA43daXBEn3TQ+0BIsJvbHK4/74tV
uQLx2lc04yCJXMo9gHqPiPti2LCA+TYCjPttAiEA4Wl9/9AFTQBFhI3li5gG85U/
UYw87+kMiDRPqe0mDKsCIQDeMPyhh6z4OwNPbRM4TaSzYi3G0jpIHKqfA4wvNeel
UwIhAKZKiOWbtQ1lUePEOr+M3DP+usOSTbI/nzssPEkD5roZAiEAsPtAH8IcatVG
u7tcNdrSt/gaEmZd+haraWHABdLgIvUCIAfk7zB/w556lRDS8xCdDiJu5PD/gixD
LrDXQANMO/Fv
-----END PRIVATE KEY-----
)";

TEST(ResponseKey, GeneratedKeyRoundTripsThroughPem) {
  const auto key = ResponseKey::generate();
  ASSERT_TRUE(key.ok());
  const auto pem = key->to_pem();
  ASSERT_TRUE(pem.ok());
  EXPECT_EQ(pem->rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  const auto again = ResponseKey::from_pem(pem.value(), "test");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->public_key(), key->public_key());
  EXPECT_EQ(again->kid(), key->kid());
  EXPECT_EQ(key->kid().size(), std::string("ed25519-").size() + 16);
  EXPECT_EQ(key->kid().rfind("ed25519-", 0), 0u);
}

TEST(ResponseKey, WriteNewFileIsPrivateAndNeverOverwrites) {
  TempDir dir;
  const auto key = ResponseKey::generate();
  ASSERT_TRUE(key.ok());
  const std::string path = dir.file("key.pem");
  ASSERT_TRUE(key->write_new_file(path).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const auto loaded = ResponseKey::load_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->kid(), key->kid());

  const auto other = ResponseKey::generate();
  ASSERT_TRUE(other.ok());
  const auto refused = other->write_new_file(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("exists"), std::string::npos);
  EXPECT_EQ(ResponseKey::load_file(path)->kid(), key->kid());
}

TEST(ResponseKey, UnusableFilesAreRefusedByNameWithoutTheirContents) {
  TempDir dir;
  const std::string secret_looking = "MC4CAQAwBQYDK2VwBCIEIDEADBEEF";
  const std::vector<std::string> bad = {
      dir.write("garbage.pem", "not a key " + secret_looking),
      dir.write("rsa.pem", kRsaPem),
      dir.write(
          "public.pem",
          "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs="
          "\n-----END PUBLIC KEY-----\n"),
      // Encrypted: must fail at once, not prompt for a passphrase.
      dir.write("encrypted.pem", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + secret_looking +
                                     "\n-----END ENCRYPTED PRIVATE KEY-----\n"),
      dir.write("empty.pem", ""),
      dir.file("missing.pem"),
  };
  for (const auto& path : bad) {
    const auto key = ResponseKey::load_file(path);
    ASSERT_FALSE(key.ok()) << path;
    EXPECT_NE(key.error().message.find(path), std::string::npos) << key.error().message;
    EXPECT_EQ(key.error().message.find(secret_looking), std::string::npos) << key.error().message;
    EXPECT_EQ(key.error().message.find("MIIB"), std::string::npos) << key.error().message;
  }
  EXPECT_NE(ResponseKey::load_file(dir.file("rsa.pem")).error().message.find("not an Ed25519"),
            std::string::npos);
}

TEST(StoredResponseKey, MadeOnceThenReused) {
  auto store = open_store("sqlite::memory:");
  ASSERT_TRUE(store.ok());
  auto none = run_blocking(*store.value(), TxKind::kRead,
                           [](StoreTx& tx) { return find_stored_response_key(tx); });
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto made = run_blocking(*store.value(), TxKind::kWrite,
                           [](StoreTx& tx) { return stored_response_key(tx, 1); });
  ASSERT_TRUE(made.ok()) << made.error().message;
  auto again = run_blocking(*store.value(), TxKind::kWrite,
                            [](StoreTx& tx) { return stored_response_key(tx, 2); });
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->kid(), made->kid());
  auto found = run_blocking(*store.value(), TxKind::kRead,
                            [](StoreTx& tx) { return find_stored_response_key(tx); });
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ(found.value()->public_key(), made->public_key());
}

}  // namespace
}  // namespace licensed
