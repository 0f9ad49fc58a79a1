// One client connection held open across several exchanges, for what the one-shot
// client cannot show: keep-alive, pipelining, slow senders, idle and capped connections.
// Every call is bounded by a timeout; nothing here blocks forever.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/http_client.h"

namespace bb {

class RawConnection {
 public:
  // Connects to 127.0.0.1:port; connected() tells whether it worked.
  explicit RawConnection(std::uint16_t port);
  // The same from another loopback address (every 127.x.y.z is loopback on Linux), so
  // that one host can play several clients; nullptr: whatever the kernel picks.
  RawConnection(std::uint16_t port, const char* from_address);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  // False when the peer closed or reset the connection.
  bool Write(std::string_view bytes) const;
  // Reads one response (status 0 and `error` set when none arrived in time or the
  // connection ended first). Bytes after it stay buffered for the next call.
  HttpResponse Read(std::chrono::milliseconds timeout = kDefaultTimeout);
  // True when the peer closes (EOF or reset) within `timeout` without sending anything
  // more; false when it sends bytes or stays open.
  bool ClosedByPeer(std::chrono::milliseconds timeout);

 private:
  // Appends what arrives within `timeout` to buffer_; 0 on EOF or error, -1 on timeout.
  long Fill(std::chrono::milliseconds timeout);

  int fd_ = -1;
  std::string buffer_;
};

}  // namespace bb
