#include "auth/response_key.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "auth/base64.h"
#include "auth/request_signature.h"
#include "auth/stored_response_key.h"
#include "core/hex.h"
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

// Both algorithms behave alike as files and PEM text.
class ResponseKeyOfEachAlgorithm : public ::testing::TestWithParam<ResponseAlgorithm> {};

INSTANTIATE_TEST_SUITE_P(Algorithms, ResponseKeyOfEachAlgorithm,
                         ::testing::Values(ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256),
                         [](const auto& info) { return std::string(algorithm_token(info.param)); });

TEST_P(ResponseKeyOfEachAlgorithm, GeneratedKeyRoundTripsThroughPem) {
  const auto key = ResponseKey::generate(GetParam());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->algorithm(), GetParam());
  const auto pem = key->to_pem();
  ASSERT_TRUE(pem.ok());
  EXPECT_EQ(pem->rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  const auto again = ResponseKey::from_pem(pem.value(), "test");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->algorithm(), GetParam());
  EXPECT_EQ(again->public_key(), key->public_key());
  EXPECT_EQ(again->kid(), key->kid());
}

TEST_P(ResponseKeyOfEachAlgorithm, KidIsTheAlgorithmAndTheStartOfTheRawPublicKeysSha256) {
  const auto key = ResponseKey::generate(GetParam());
  ASSERT_TRUE(key.ok());
  const std::string token(algorithm_token(GetParam()));
  const auto& raw = key->public_key();
  const Sha256Digest digest =
      sha256(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
  EXPECT_EQ(key->kid(), token + "-" + to_hex(digest.data(), 8));
  EXPECT_EQ(key->pinned().kid, key->kid());
  EXPECT_EQ(key->pinned().algorithm, GetParam());
  EXPECT_EQ(base64_decode(key->public_key_base64()), raw);
}

TEST_P(ResponseKeyOfEachAlgorithm, WriteNewFileIsPrivateAndNeverOverwrites) {
  TempDir dir;
  const auto key = ResponseKey::generate(GetParam());
  ASSERT_TRUE(key.ok());
  const std::string path = dir.file("key.pem");
  ASSERT_TRUE(key->write_new_file(path).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const auto loaded = ResponseKey::load_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->kid(), key->kid());
  EXPECT_EQ(loaded->algorithm(), GetParam());

  const auto other = ResponseKey::generate(GetParam());
  ASSERT_TRUE(other.ok());
  const auto refused = other->write_new_file(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("exists"), std::string::npos);
  EXPECT_EQ(ResponseKey::load_file(path)->kid(), key->kid());
}

TEST(ResponseKey, AnEs256KeysPublicKeyIsTheUncompressedP256Point) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  ASSERT_EQ(key->public_key().size(), 65u);
  EXPECT_EQ(key->public_key()[0], 0x04);
  EXPECT_EQ(key->kid().rfind("es256-", 0), 0u);
  EXPECT_EQ(key->kid().size(), std::string("es256-").size() + 16);
  // The point parses back as a pinned ES256 key under the same kid.
  const auto pinned = parse_pinned_response_key(key->public_key_base64());
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->kid, key->kid());
  EXPECT_EQ(pinned->algorithm, ResponseAlgorithm::kEs256);
}

// A P-256 key written the older way (SEC1, "BEGIN EC PRIVATE KEY") is the same key.
TEST(ResponseKey, AP256KeyInSec1FormLoadsToo) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  BIO* out = BIO_new(BIO_s_mem());
  ASSERT_EQ(
      PEM_write_bio_PrivateKey_traditional(out, key->pkey(), nullptr, nullptr, 0, nullptr, nullptr),
      1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  const std::string pem(data, static_cast<size_t>(size));
  BIO_free(out);
  ASSERT_EQ(pem.rfind("-----BEGIN EC PRIVATE KEY-----", 0), 0u) << pem.substr(0, 40);
  const auto again = ResponseKey::from_pem(pem, "sec1");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->kid(), key->kid());
}

TEST(ResponseKey, AnEcKeyOnAnotherCurveIsRefused) {
  EVP_PKEY* p384 = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384");
  ASSERT_NE(p384, nullptr);
  BIO* out = BIO_new(BIO_s_mem());
  ASSERT_EQ(PEM_write_bio_PrivateKey(out, p384, nullptr, nullptr, 0, nullptr, nullptr), 1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  const std::string pem(data, static_cast<size_t>(size));
  BIO_free(out);
  EVP_PKEY_free(p384);
  const auto key = ResponseKey::from_pem(pem, "p384.pem");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.error().message.find("p384.pem: not an Ed25519 or P-256"), std::string::npos)
      << key.error().message;
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

TEST(StoredResponseKey, OneKeyPerAlgorithmIsMadeOnceThenReused) {
  auto store = open_store("sqlite::memory:");
  ASSERT_TRUE(store.ok());
  std::vector<std::string> kids;
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    SCOPED_TRACE(algorithm_token(a));
    auto none = run_blocking(*store.value(), TxKind::kRead,
                             [a](StoreTx& tx) { return find_stored_response_key(tx, a); });
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_FALSE(none->has_value());
    auto made = run_blocking(*store.value(), TxKind::kWrite,
                             [a](StoreTx& tx) { return stored_response_key(tx, a, 1); });
    ASSERT_TRUE(made.ok()) << made.error().message;
    EXPECT_EQ(made->algorithm(), a);
    auto again = run_blocking(*store.value(), TxKind::kWrite,
                              [a](StoreTx& tx) { return stored_response_key(tx, a, 2); });
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->kid(), made->kid());
    kids.push_back(made->kid());
  }
  // Each algorithm finds its own key, whichever was stored first.
  for (size_t i = 0; i < 2; ++i) {
    const ResponseAlgorithm a = i == 0 ? ResponseAlgorithm::kEd25519 : ResponseAlgorithm::kEs256;
    auto found = run_blocking(*store.value(), TxKind::kRead,
                              [a](StoreTx& tx) { return find_stored_response_key(tx, a); });
    ASSERT_TRUE(found.ok() && found->has_value());
    EXPECT_EQ(found.value()->kid(), kids[i]);
  }
  auto rows = run_blocking(*store.value(), TxKind::kRead,
                           [](StoreTx& tx) { return tx.find_response_keys(); });
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 2u);
}

TEST(StoredResponseKey, AStoredTextThatIsNoKeyIsAnErrorNotANewKey) {
  auto store = open_store("sqlite::memory:");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(run_blocking(*store.value(), TxKind::kWrite, [](StoreTx& tx) {
                return tx.insert_response_key("not a key", 1);
              }).ok());
  auto made = run_blocking(*store.value(), TxKind::kWrite, [](StoreTx& tx) {
    return stored_response_key(tx, ResponseAlgorithm::kEs256, 1);
  });
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().message.find("the response key kept in the store"), std::string::npos)
      << made.error().message;
}

}  // namespace
}  // namespace licensed
