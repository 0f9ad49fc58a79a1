// The C ABI's promises that need no server: bad options are reported through the error
// buffer, NULL is accepted everywhere and answered with LC_USAGE, 0 or NULL, and the
// result of a call that reached no server still reads.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "license_client/license_client.h"

namespace {

lc_options Complete() {
  lc_options o = lc_options_init();
  o.url = "http://127.0.0.1:9";  // discard port: nothing answers
  o.key_id = "plugin-2026";
  o.secret = "secret";
  o.license_key = "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c";
  o.machine_id = "c-abi-machine-01";
  o.timeout_ms = 300;
  return o;
}

TEST(CAbi, MissingOptionsAreReportedInTheErrorBuffer) {
  char error[64];
  lc_options o = Complete();
  o.url = nullptr;
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_STREQ(error, "no server URL");
  o = Complete();
  o.public_key = "not a key";
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_NE(std::strstr(error, "public key"), nullptr) << error;
  o = Complete();
  o.struct_size = 0;  // a host that did not start from lc_options_init()
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_NE(std::strstr(error, "lc_options_init"), nullptr) << error;
  char tiny[4];
  EXPECT_EQ(lc_client_new(nullptr, tiny, sizeof tiny), nullptr);
  EXPECT_STREQ(tiny, "no ");  // truncated, still terminated
  EXPECT_EQ(lc_client_new(nullptr, nullptr, 0), nullptr);
}

TEST(CAbi, NullIsAcceptedEverywhere) {
  lc_result* r = reinterpret_cast<lc_result*>(0x1);
  EXPECT_EQ(lc_activate(nullptr, &r), LC_USAGE);
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(lc_check_at_startup(nullptr, nullptr), LC_USAGE);
  EXPECT_EQ(lc_client_machine_id(nullptr), nullptr);
  EXPECT_EQ(lc_result_status(nullptr), LC_USAGE);
  EXPECT_EQ(lc_result_body(nullptr), nullptr);
  EXPECT_EQ(lc_result_activations(nullptr), -1);
  lc_result_free(nullptr);
  lc_client_free(nullptr);
}

TEST(CAbi, NoServerIsUnavailableWithAReadableResult) {
  char error[128];
  const lc_options o = Complete();
  lc_client* c = lc_client_new(&o, error, sizeof error);
  ASSERT_NE(c, nullptr) << error;
  EXPECT_STREQ(lc_client_machine_id(c), "c-abi-machine-01");
  lc_result* r = nullptr;
  EXPECT_EQ(lc_activate(c, &r), LC_UNAVAILABLE);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(lc_result_status(r), LC_UNAVAILABLE);
  EXPECT_EQ(lc_result_http_status(r), 0);
  EXPECT_STREQ(lc_result_error(r), "NETWORK");
  EXPECT_STREQ(lc_result_body(r), "");
  EXPECT_EQ(lc_result_max(r), -1);
  EXPECT_EQ(lc_result_license_status(r), nullptr);
  EXPECT_GE(lc_result_attempts(r), 1);
  lc_result_free(r);
  EXPECT_EQ(lc_deactivate(c, nullptr), LC_UNAVAILABLE) << "a NULL result pointer is fine";
  lc_client_free(c);
}

// A host compiled against the first lc_options (no `product`) is still accepted, and
// plain http:// to a remote host needs a pinned key (review item 5).
TEST(CAbi, AFirstVersionStructIsAcceptedAndRemotePlainHttpRefused) {
  char error[128];
  lc_options o = Complete();
  o.struct_size = static_cast<uint32_t>(offsetof(lc_options, product));
  o.product = "garbage the SDK must not read";
  lc_client* c = lc_client_new(&o, error, sizeof error);
  EXPECT_NE(c, nullptr) << error;
  lc_client_free(c);
  o = Complete();
  o.url = "http://licenses.example.com";
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_NE(std::strstr(error, "http://"), nullptr) << error;
}

}  // namespace
