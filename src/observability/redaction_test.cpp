#include "observability/redaction.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(MaskLicenseKey, KeepsFourCharactersEachSideOfAUuidKey) {
  EXPECT_EQ(mask_license_key("1b4e28ba-2fa1-41d2-883f-0016d3cca427"), "1b4e...a427");
}

TEST(MaskLicenseKey, NeverContainsTheMiddleOfTheKey) {
  const std::string key = "1b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const std::string masked = mask_license_key(key);
  EXPECT_EQ(masked.find("28ba"), std::string::npos);
  EXPECT_EQ(masked.find(key), std::string::npos);
  EXPECT_LT(masked.size(), key.size());
}

TEST(MaskLicenseKey, ShortValuesAreMaskedWhole) {
  EXPECT_EQ(mask_license_key(""), "***");
  EXPECT_EQ(mask_license_key("abc"), "***");
  EXPECT_EQ(mask_license_key("0123456789abcde"), "***");  // 15: too short to show parts
  EXPECT_EQ(mask_license_key("0123456789abcdef"), "0123...cdef");
}

TEST(MaskLicenseKey, ValuesThatAreNotKeyShapedAreMaskedWhole) {
  EXPECT_EQ(mask_license_key("\"quoted\" and spaces here"), "***");
  EXPECT_EQ(mask_license_key("1b4e28ba-2fa1-41d2-883f-0016d3cca42\n"), "***");
  EXPECT_EQ(mask_license_key("1b4e28ba-2fa1-41d2-883f-0016d3cca4\xc3\xa9"), "***");
}

TEST(RedactUrlCredentials, BlanksThePasswordOfTheUserinfo) {
  EXPECT_EQ(redact_url_credentials("postgresql://app:s3cret@db:5432/licensed"),
            "postgresql://app:***@db:5432/licensed");
  EXPECT_EQ(redact_url_credentials("postgresql://app:p%40ss:word@db/licensed"),
            "postgresql://app:***@db/licensed");
}

TEST(RedactUrlCredentials, BlanksAPasswordQueryParameter) {
  EXPECT_EQ(redact_url_credentials("postgresql://db/licensed?user=app&password=s3cret&ssl=1"),
            "postgresql://db/licensed?user=app&password=***&ssl=1");
  EXPECT_EQ(redact_url_credentials("postgresql://db/x?password=s3cret"),
            "postgresql://db/x?password=***");
}

TEST(RedactUrlCredentials, LeavesUrlsWithoutCredentialsAlone) {
  EXPECT_EQ(redact_url_credentials("sqlite:./licensed.db"), "sqlite:./licensed.db");
  EXPECT_EQ(redact_url_credentials("sqlite:/var/lib/a@b:c/licensed.db"),
            "sqlite:/var/lib/a@b:c/licensed.db");
  EXPECT_EQ(redact_url_credentials("postgresql://app@db/licensed"), "postgresql://app@db/licensed");
  EXPECT_EQ(redact_url_credentials("postgresql://db/x?mypassword=1"),
            "postgresql://db/x?mypassword=1");
}

}  // namespace
}  // namespace licensed
