// The HTTP layer under hostile or unusual clients: header size, slow senders, idle and
// capped connections, keep-alive, pipelining, Connection: close, HTTP/1.0 and garbage.
// None of these may hurt other connections.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "support/fixture.h"
#include "support/raw_connection.h"
#include "support/response_verifier.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

class HttpLimits : public BlackboxTest {
 protected:
  std::string SignedBytes(std::string_view endpoint, std::string body,
                          const std::vector<Header>& extra = {}) const {
    HttpRequest r = Signed(endpoint, std::move(body));
    for (const auto& h : extra) r.Set(h.name, h.value);
    return Serialize(port(), r);
  }

  // The header fields of serialized `request`, without its Content-Length and without
  // the blank line that ends the header: framing lines go after it.
  static std::string FieldsWithoutLength(std::string request) {
    request.erase(request.find("\r\n\r\n") + 2);
    const size_t length = request.find("Content-Length:");
    request.erase(length, request.find("\r\n", length) + 2 - length);
    return request;
  }

  // `request`'s body sent as one chunk, then `trailer` (field lines).
  std::string Chunked(const HttpRequest& request, const std::string& trailer = "") const {
    std::ostringstream out;
    out << FieldsWithoutLength(Serialize(port(), request)) << "Transfer-Encoding: chunked\r\n\r\n"
        << std::hex << request.body.size() << "\r\n"
        << request.body << "\r\n0\r\n"
        << trailer << "\r\n";
    return out.str();
  }

  // A signed request to `endpoint` with `framing` (header lines) in place of its
  // Content-Length, and nothing after the header; returns it and its nonce.
  std::pair<std::string, std::string> Reframed(std::string_view endpoint,
                                               const std::string& framing) const {
    const HttpRequest r = Signed(endpoint, Body(RandomUuidV4()));
    return {FieldsWithoutLength(Serialize(port(), r)) + framing + "\r\n",
            r.Get("X-License-Nonce").value()};
  }
};

TEST_F(HttpLimits, OversizedHeaderIs431AndClosesTheConnection) {
  Start();
  RawConnection c(port());
  ASSERT_TRUE(c.connected());
  const std::string huge(9 * 1024, 'a');
  ASSERT_TRUE(
      c.Write("POST /api/v1/license/status HTTP/1.1\r\nHost: x\r\nX-Filler: " + huge + "\r\n\r\n"));
  const HttpResponse r = c.Read();
  ASSERT_EQ(r.status, 431) << r.Describe();
  ExpectRouteError(r, 431, "REQUEST_HEADER_FIELDS_TOO_LARGE");
  EXPECT_EQ(r.header("Connection"), "close");
  EXPECT_TRUE(c.ClosedByPeer(5s));
}

TEST_F(HttpLimits, HeaderJustUnderTheLimitIsServed) {
  Start();
  const std::string license = NewLicense(1);
  HttpRequest r = Signed("status", Body(license));
  r.Set("X-Filler", std::string(6 * 1024, 'b'));
  EXPECT_OK(Send(r));
}

TEST_F(HttpLimits, SlowHeaderIsCutOffWhenTheHeaderTimeoutPasses) {
  ServerOptions options;
  options.args = {"--header-timeout", "2"};
  Start(options);
  const std::string license = NewLicense(1);
  const std::string request = SignedBytes("status", Body(license));
  RawConnection c(port());
  ASSERT_TRUE(c.connected());
  // One byte every 200 ms: the header alone would take over a minute. The server must
  // hang up long before, well ahead of the request's end; its answer never comes.
  size_t sent = 0;
  bool cut_off = false;
  while (sent < request.size()) {
    if (!c.Write(std::string_view(request).substr(sent, 1))) {
      cut_off = true;
      break;
    }
    ++sent;
    if (c.ClosedByPeer(200ms)) {
      cut_off = true;
      break;
    }
  }
  EXPECT_TRUE(cut_off) << "the server waited for all " << request.size() << " bytes";
  EXPECT_LT(sent, request.size() / 2);
  // Other clients were served meanwhile and still are.
  EXPECT_OK(Status(license));
}

TEST_F(HttpLimits, IdleKeepAliveConnectionIsClosed) {
  ServerOptions options;
  options.args = {"--idle-timeout", "1"};
  Start(options);
  const std::string license = NewLicense(1);
  RawConnection c(port());
  ASSERT_TRUE(c.Write(SignedBytes("status", Body(license))));
  EXPECT_OK(c.Read());
  EXPECT_TRUE(c.ClosedByPeer(10s)) << "an idle connection was kept open";
}

TEST_F(HttpLimits, ConnectionsOverTheCapAreClosedAndOthersKeepWorking) {
  ServerOptions options;
  options.args = {"--max-connections", "4"};
  Start(options);
  const std::string license = NewLicense(1);
  std::vector<std::unique_ptr<RawConnection>> open;
  for (int i = 0; i < 4; ++i) {
    open.push_back(std::make_unique<RawConnection>(port()));
    ASSERT_TRUE(open.back()->Write(SignedBytes("status", Body(license))));
    ASSERT_OK(open.back()->Read());
  }
  RawConnection extra(port());
  ASSERT_TRUE(extra.connected());  // the kernel accepts; the server closes at once
  (void)extra.Write(SignedBytes("status", Body(license)));
  EXPECT_TRUE(extra.ClosedByPeer(5s));
  // The four admitted connections are unharmed.
  for (auto& c : open) {
    ASSERT_TRUE(c->Write(SignedBytes("status", Body(license))));
    EXPECT_OK(c->Read());
  }
  // A slot freed is a slot reused (the server notices the close asynchronously).
  open.pop_back();
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {
    RawConnection again(port());
    if (again.Write(SignedBytes("status", Body(license)))) {
      served = again.Read(2s).status == 200;
    }
    if (!served) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(served);
}

TEST_F(HttpLimits, PipelinedRequestsAreAnsweredInOrder) {
  Start();
  const std::string license = NewLicense(2);
  const std::string unknown = "2f4b7b4e-8a9c-4c3d-9e7f-0a1b2c3d4e5f";
  const std::string machine = NewMachineId();
  std::string burst;
  burst += SignedBytes("activate", Body(license, machine));
  burst += SignedBytes("status", Body(unknown));
  burst += "GET /api/v1/license/nope HTTP/1.1\r\nHost: x\r\n\r\n";
  burst += SignedBytes("heartbeat", Body(license, machine));
  burst += SignedBytes("status", Body(license));
  RawConnection c(port());
  ASSERT_TRUE(c.Write(burst));  // all five in one write
  const HttpResponse activated = c.Read();
  const HttpResponse not_found = c.Read();
  const HttpResponse no_route = c.Read();
  const HttpResponse heartbeat = c.Read();
  const HttpResponse status = c.Read();
  EXPECT_OK(activated);
  EXPECT_API_ERROR(not_found, 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_ROUTE_ERROR(no_route, 404, "NOT_FOUND");
  EXPECT_OK(heartbeat);
  ASSERT_OK(status);
  EXPECT_EQ(Int(BodyJson(status), "activations"), 1);
  // Still open for more.
  ASSERT_TRUE(c.Write(SignedBytes("status", Body(license))));
  EXPECT_OK(c.Read());
}

TEST_F(HttpLimits, ConnectionCloseIsHonoured) {
  Start();
  const std::string license = NewLicense(1);
  RawConnection c(port());
  ASSERT_TRUE(c.Write(SignedBytes("status", Body(license), {{"Connection", "close"}})));
  const HttpResponse r = c.Read();
  EXPECT_OK(r);
  EXPECT_EQ(r.header("Connection"), "close");
  EXPECT_TRUE(c.ClosedByPeer(5s));
}

TEST_F(HttpLimits, Http10IsAnsweredInKindAndClosedUnlessKeptAlive) {
  Start();
  const std::string license = NewLicense(1);
  auto http10 = [&](const std::vector<Header>& extra) {
    std::string bytes = SignedBytes("status", Body(license), extra);
    bytes.replace(bytes.find("HTTP/1.1"), 8, "HTTP/1.0");
    return bytes;
  };
  {
    RawConnection c(port());
    ASSERT_TRUE(c.Write(http10({})));
    const HttpResponse r = c.Read();
    EXPECT_OK(r);
    EXPECT_TRUE(c.ClosedByPeer(5s)) << "HTTP/1.0 without keep-alive must close";
  }
  {
    RawConnection c(port());
    ASSERT_TRUE(c.Write(http10({{"Connection", "keep-alive"}})));
    EXPECT_OK(c.Read());
    ASSERT_TRUE(c.Write(http10({{"Connection", "keep-alive"}})));
    EXPECT_OK(c.Read());
  }
}

TEST_F(HttpLimits, MalformedRequestsAre400WithoutHarmToOtherConnections) {
  Start();
  const std::string license = NewLicense(1);
  RawConnection bystander(port());
  ASSERT_TRUE(bystander.Write(SignedBytes("status", Body(license))));
  ASSERT_OK(bystander.Read());
  for (const std::string& garbage :
       {std::string("GARBAGE\r\n\r\n"), std::string("POST  HTTP/1.1\r\n\r\n"),
        std::string("POST /api/v1/license/status HTTP/9.9\r\nHost: x\r\n\r\n"),
        std::string("POST /api/v1/license/status HTTP/1.1\r\nBad Header\r\n\r\n"),
        std::string("POST /api/v1/license/status HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
        std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11)}) {
    RawConnection c(port());
    ASSERT_TRUE(c.Write(garbage));
    const HttpResponse r = c.Read();
    ExpectRouteError(r, 400, "BAD_REQUEST");
    EXPECT_TRUE(c.ClosedByPeer(5s));
  }
  ASSERT_TRUE(bystander.Write(SignedBytes("status", Body(license))));
  EXPECT_OK(bystander.Read());
}

// RFC 9112 6.3: with a transfer coding other than chunked the body's length cannot be
// known. Read as bodiless, the bytes after the header would be taken for a second
// request that no proxy in front saw: a smuggled one. Refused as nginx does, and closed.
TEST_F(HttpLimits, ATransferCodingOtherThanChunkedIs501AndWhatFollowsIsNeverServed) {
  Start();
  const std::string license = NewLicense(1);
  const std::string public_key = SigningPublicKey();
  for (const std::string coding : {"gzip", "chunked, gzip", "gzip, chunked"}) {
    SCOPED_TRACE(coding);
    const auto [head, nonce] = Reframed("status", "Transfer-Encoding: " + coding + "\r\n");
    const std::string smuggled = SignedBytes("status", Body(license));
    RawConnection c(port());
    ASSERT_TRUE(c.Write(head + smuggled));
    const HttpResponse r = c.Read();
    ExpectRouteError(r, 501, "NOT_IMPLEMENTED");
    EXPECT_EQ(r.header("Connection"), "close");
    // A License API answer, as 413 and 431, bound to "-" like them (docs/protocol.md §13.5).
    EXPECT_TRUE(SignedFor(r, public_key, std::nullopt));
    EXPECT_FALSE(nonce.empty());
    EXPECT_TRUE(c.ClosedByPeer(5s)) << "the bytes after the header were answered";
    // Never served: its nonce is still unused.
    RawConnection again(port());
    ASSERT_TRUE(again.Write(smuggled));
    EXPECT_OK(again.Read());
  }
}

TEST_F(HttpLimits, AMalformedTransferEncodingIs400AndCloses) {
  Start();
  for (const std::string coding : {"", " , ", "chunked, x y", "\"chunked\""}) {
    SCOPED_TRACE(coding);
    RawConnection c(port());
    ASSERT_TRUE(c.Write(Reframed("status", "Transfer-Encoding: " + coding + "\r\n").first));
    ExpectRouteError(c.Read(), 400, "BAD_REQUEST");
    EXPECT_TRUE(c.ClosedByPeer(5s));
  }
}

// Beast adds a chunked body's trailer fields to the request's own, where signing headers
// sent after the body (so after any proxy looked at the header) would count as sent.
TEST_F(HttpLimits, AChunkedRequestWithATrailerIs400AndNotServed) {
  Start();
  const std::string license = NewLicense(1);
  const HttpRequest request = Signed("status", Body(license));
  // The signature moves from the header to the trailer.
  HttpRequest header_unsigned = request;
  header_unsigned.Remove("X-License-Signature");
  RawConnection c(port());
  ASSERT_TRUE(c.Write(Chunked(
      header_unsigned, "X-License-Signature: " + *request.Get("X-License-Signature") + "\r\n")));
  ExpectRouteError(c.Read(), 400, "BAD_REQUEST");
  EXPECT_TRUE(c.ClosedByPeer(5s));
  // Not served: the same request, signed in its header, still has an unused nonce.
  RawConnection again(port());
  ASSERT_TRUE(again.Write(Chunked(request)));
  EXPECT_OK(again.Read());
}

// Beast bounds a header and a body, not a chunk's size line, its extensions or the
// trailer: without a bound of the server's own, a client sending them for ever grew the
// connection's buffer for the whole body timeout. Refused once the buffer is full.
TEST_F(HttpLimits, EndlessChunkFramingIs400AndClosedInsteadOfBuffered) {
  Start();
  const std::string endless_extension = "1;" + std::string(64 * 1024, 'a');
  const std::string endless_trailer = "0\r\nX-Filler: " + std::string(64 * 1024, 'a');
  for (const std::string& framing : {endless_extension, endless_trailer}) {
    RawConnection c(port());
    ASSERT_TRUE(c.connected());
    const std::string head = "POST " + Endpoint("status") +
                             " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n";
    // The server stops reading once its buffer is full: the write may not finish.
    (void)c.Write(head + framing);
    ExpectRouteError(c.Read(), 400, "BAD_REQUEST");
    EXPECT_TRUE(c.ClosedByPeer(5s));
  }
}

TEST_F(HttpLimits, AChunkSizeThatIsNoHexNumberIs400AndClosed) {
  Start();
  for (const std::string size : {"-5", "zz", "ffffffffffffffffffff1"}) {
    SCOPED_TRACE(size);
    RawConnection c(port());
    ASSERT_TRUE(c.Write("POST " + Endpoint("status") +
                        " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n" +
                        size + "\r\n{}\r\n0\r\n\r\n"));
    ExpectRouteError(c.Read(), 400, "BAD_REQUEST");
    EXPECT_TRUE(c.ClosedByPeer(5s));
  }
}

TEST_F(HttpLimits, AChunkedRequestWithoutATrailerIsServed) {
  Start();
  RawConnection c(port());
  ASSERT_TRUE(c.Write(Chunked(Signed("status", Body(NewLicense(1))))));
  EXPECT_OK(c.Read());
}

// RFC 9112 3.2: a server must answer 400 to an HTTP/1.1 request without exactly one
// Host; HTTP/1.0 needs none.
TEST_F(HttpLimits, AnHttp11RequestWithoutHostIs400) {
  Start();
  const std::string license = NewLicense(1);
  const std::string request = SignedBytes("status", Body(license));
  const size_t at = request.find("Host:");
  ASSERT_NE(at, std::string::npos);
  const std::string host_line = request.substr(at, request.find("\r\n", at) + 2 - at);
  std::string without = request;
  without.erase(at, host_line.size());
  std::string twice = request;
  twice.insert(at, "Host: other.example\r\n");
  for (const std::string& bytes : {without, twice}) {
    RawConnection c(port());
    ASSERT_TRUE(c.Write(bytes));
    ExpectRouteError(c.Read(), 400, "BAD_REQUEST");
    EXPECT_TRUE(c.ClosedByPeer(5s));
  }
  // The same request with its one Host is served: neither refusal used its nonce.
  RawConnection c(port());
  ASSERT_TRUE(c.Write(request));
  EXPECT_OK(c.Read());
}

}  // namespace
}  // namespace bb
