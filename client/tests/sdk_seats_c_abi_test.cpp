// The C ABI of the seat session (lc_seat_join / lc_seat_state / lc_seat_leave, docs/sdk.md
// 5b) against the real server: instances made through the C ABI share one seat, and a
// lost seat reaches the C callback with the server's 1710.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "license_client/license_client.h"
#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

class SdkSeatsCAbi : public SdkTest {
 protected:
  lc_client* NewClient(const std::string& license, const std::string& machine) const {
    const std::string url = Url();
    lc_options o{};
    o.struct_size = sizeof(o);
    o.url = url.c_str();
    o.key_id = bb::kPluginKey.id.c_str();
    o.secret = bb::kPluginKey.secret.c_str();
    o.license_key = license.c_str();
    o.machine_id = machine.c_str();
    const std::string cache = CacheDir().string();
    o.cache_dir = cache.c_str();
    char error[256] = {};
    lc_client* c = lc_client_new(&o, error, sizeof(error));
    EXPECT_NE(c, nullptr) << error;
    return c;
  }
  template <class Pred>
  static bool Eventually(Pred pred) {
    for (int i = 0; i < 400 && !pred(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return pred();
  }
};

std::atomic<int> g_lost_code{0};
void OnLost(void*, const lc_result* why) {
  g_lost_code = lc_result_api_code(why);
}

TEST_F(SdkSeatsCAbi, InstancesShareOneSeatAndALostSeatReachesTheCallback) {
  Start();
  const std::string license = SeatLicense(3, 1);
  lc_client* a = NewClient(license, "c-abi-machine-01");
  ASSERT_EQ(lc_activate(a, nullptr), LC_OK);
  lc_seat* first = lc_seat_join(a, nullptr, nullptr);
  lc_seat* second = lc_seat_join(a, nullptr, nullptr);
  ASSERT_TRUE(Eventually([&] { return lc_seat_state(first) == 1; }));
  EXPECT_EQ(lc_seat_state(second), 1);
  EXPECT_EQ(bb::Int(bb::BodyJson(Status(license)), "leases"), 1);

  lc_client* b = NewClient(license, "c-abi-machine-02");
  ASSERT_EQ(lc_activate(b, nullptr), LC_OK);
  lc_seat* other = lc_seat_join(b, &OnLost, nullptr);
  EXPECT_TRUE(Eventually([&] { return lc_seat_state(other) == 2; }));
  EXPECT_TRUE(Eventually([] { return g_lost_code.load() == 1710; }));

  lc_seat_leave(other);
  lc_seat_leave(first);
  lc_seat_leave(second);
  EXPECT_TRUE(Eventually([&] { return bb::Int(bb::BodyJson(Status(license)), "leases") == 0; }));
  lc_client_free(b);
  lc_client_free(a);
}

// lc_seat_borrow takes the seat for a while and installs its lease file (start-up checks then
// answer from it, source lease); lc_seat_return deletes the file and checks the seat in.
TEST_F(SdkSeatsCAbi, ABorrowedSeatAnswersFromItsLeaseFileUntilItIsReturned) {
  Start();
  const std::string license = SeatLicense(3, 1, {"--max-borrow", "7d"});
  const std::string url = Url();
  const std::string public_key = SigningPublicKey();
  const std::string offline_dir = (dir().path() / "machine-wide").string();
  const std::string cache = CacheDir().string();
  lc_options o{};
  o.struct_size = sizeof(o);
  o.url = url.c_str();
  o.key_id = bb::kPluginKey.id.c_str();
  o.secret = bb::kPluginKey.secret.c_str();
  o.license_key = license.c_str();
  o.machine_id = "c-abi-laptop-01";
  o.public_key = public_key.c_str();
  o.offline_dir = offline_dir.c_str();
  o.cache_dir = cache.c_str();
  char error[256] = {};
  lc_client* c = lc_client_new(&o, error, sizeof(error));
  ASSERT_NE(c, nullptr) << error;
  ASSERT_EQ(lc_activate(c, nullptr), LC_OK);

  lc_result* r = nullptr;
  EXPECT_EQ(lc_seat_borrow(c, "", &r), LC_USAGE);
  lc_result_free(r);
  ASSERT_EQ(lc_seat_borrow(c, "2d", &r), LC_OK) << lc_result_message(r);
  EXPECT_EQ(std::string(lc_result_file_text(r)).rfind("-----BEGIN LICENSE LEASE-----", 0), 0u);
  EXPECT_EQ(lc_result_warning(r), nullptr) << "the lease file was installed";
  lc_result_free(r);
  ASSERT_EQ(lc_check_cached(c, &r), LC_OK);
  EXPECT_EQ(lc_result_source(r), LC_SOURCE_LEASE);
  lc_result_free(r);

  ASSERT_EQ(lc_seat_return(c, &r), LC_OK) << lc_result_message(r);
  EXPECT_TRUE(bb::Bool(bb::ParseJson(lc_result_body(r)), "released"));
  lc_result_free(r);
  lc_check_cached(c, &r);
  EXPECT_NE(lc_result_source(r), LC_SOURCE_LEASE) << "the lease file is gone";
  lc_result_free(r);
  lc_client_free(c);
}

}  // namespace
}  // namespace licensed::client::test
