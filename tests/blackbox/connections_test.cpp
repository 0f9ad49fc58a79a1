// One client taking every connection slot (issue item 4): a cap per client address
// (--max-connections-per-ip) closes its connections beyond it at accept, so others are
// still served; a trusted proxy, whose address many clients share, is not held to it.
// And near the overall cap, idle keep-alive connections are cut after a short wait
// instead of the full idle timeout. Clients are told apart by loopback address (every
// 127.x.y.z is loopback on Linux).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "support/fixture.h"
#include "support/raw_connection.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

class Connections : public BlackboxTest {
 protected:
  // A connection from `from` that has been served one request and is kept alive.
  std::unique_ptr<RawConnection> ServedConnection(const char* from, const std::string& license) {
    auto c = std::make_unique<RawConnection>(port(), from);
    EXPECT_TRUE(c->connected()) << "from " << from;
    EXPECT_TRUE(c->Write(StatusBytes(license))) << "from " << from;
    EXPECT_OK(c->Read());
    return c;
  }

  std::string StatusBytes(const std::string& license) const {
    return Serialize(port(), Signed("status", Body(license)));
  }
};

TEST_F(Connections, OneAddressHoldingItsCapCannotStopAnotherFromBeingServed) {
  ServerOptions options;
  options.args = {"--max-connections", "8", "--max-connections-per-ip", "4"};
  Start(options);
  const std::string license = NewLicense(1);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 4; ++i) held.push_back(ServedConnection("127.0.0.1", license));

  // Enough more to fill the whole cap, were they let in, all held at once: each is
  // closed at accept.
  std::vector<std::unique_ptr<RawConnection>> extra;
  for (int i = 0; i < 4; ++i) {
    extra.push_back(std::make_unique<RawConnection>(port(), "127.0.0.1"));
    ASSERT_TRUE(extra.back()->connected());  // the kernel accepts; the server closes
    (void)extra.back()->Write(StatusBytes(license));
    EXPECT_TRUE(extra.back()->ClosedByPeer(5s)) << "extra connection " << i << " was kept";
  }
  EXPECT_TRUE(server().LogEventually("closed a connection from 127.0.0.1")) << server().log();

  // Another address is served, and the held connections still are.
  auto other = ServedConnection("127.0.0.2", license);
  for (auto& c : held) {
    ASSERT_TRUE(c->Write(StatusBytes(license)));
    EXPECT_OK(c->Read());
  }
}

TEST_F(Connections, ATrustedProxyIsNotHeldToThePerAddressCap) {
  ServerOptions options;
  options.args = {"--max-connections-per-ip", "2"};
  options.env = {{"LICENSED_TRUSTED_PROXIES", "127.0.0.3/32"}};
  Start(options);
  const std::string license = NewLicense(1);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 5; ++i) held.push_back(ServedConnection("127.0.0.3", license));
  // An untrusted address still is.
  held.push_back(ServedConnection("127.0.0.2", license));
  held.push_back(ServedConnection("127.0.0.2", license));
  RawConnection third(port(), "127.0.0.2");
  (void)third.Write(StatusBytes(license));
  EXPECT_TRUE(third.ClosedByPeer(5s));
}

TEST_F(Connections, AClosedConnectionGivesItsAddressItsSlotBack) {
  ServerOptions options;
  options.args = {"--max-connections-per-ip", "1"};
  Start(options);
  const std::string license = NewLicense(1);
  ServedConnection("127.0.0.1", license).reset();
  // The server notices the close asynchronously.
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {
    RawConnection again(port(), "127.0.0.1");
    if (again.Write(StatusBytes(license))) served = again.Read(2s).status == 200;
    if (!served) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(served);
}

TEST_F(Connections, NearTheCapIdleConnectionsAreCutLongBeforeTheIdleTimeout) {
  // The idle timeout stays at its 60 s default; requests in progress may take long.
  ServerOptions options;
  options.args = {"--max-connections", "10", "--header-timeout", "120"};
  Start(options);
  const std::string license = NewLicense(1);
  auto idle = ServedConnection("127.0.0.1", license);
  // Far from the cap, an idle connection keeps its full timeout.
  EXPECT_FALSE(idle->ClosedByPeer(4s)) << "cut while the server had room";

  // Eight requests in progress (header half sent) bring the server to 9 of 10.
  std::vector<std::string> requests;
  std::vector<std::unique_ptr<RawConnection>> busy;
  for (int i = 0; i < 8; ++i) {
    requests.push_back(StatusBytes(license));
    busy.push_back(std::make_unique<RawConnection>(port(), "127.0.0.2"));
    ASSERT_TRUE(busy.back()->Write(std::string_view(requests.back()).substr(0, 20)));
  }
  // A third of the idle timeout: only the short one near the cap can end it this soon.
  EXPECT_TRUE(idle->ClosedByPeer(20s)) << "an idle connection kept its slot near the cap";

  // Requests in progress are not idle, and are answered.
  for (size_t i = 0; i < busy.size(); ++i) {
    ASSERT_TRUE(busy[i]->Write(std::string_view(requests[i]).substr(20)));
    EXPECT_OK(busy[i]->Read());
  }
}

}  // namespace
}  // namespace bb
