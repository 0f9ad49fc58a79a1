// A minimal HTTP/1.1 client over Boost.Beast: one fresh connection to 127.0.0.1 per
// request, the whole exchange bounded by a timeout. SendRaw writes bytes exactly as
// given, for requests a well-behaved client would not send.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bb {

struct Header {
  std::string name;
  std::string value;
};

struct HttpRequest {
  std::string method = "POST";
  std::string target;
  std::vector<Header> headers;  // Host and Content-Length are added when sent
  std::string body;

  void Set(std::string_view name, std::string value);  // replaces every same-named header
  void Remove(std::string_view name);
  std::optional<std::string> Get(std::string_view name) const;
};

struct HttpResponse {
  int status = 0;     // 0 when no response was read; see `error`
  std::string error;  // transport failure, if any
  std::vector<Header> headers;
  std::string body;

  // The first header of that name (case-insensitive).
  std::optional<std::string> header(std::string_view name) const;
  // Status, headers and (the start of) the body, for failure messages.
  std::string Describe() const;
};

inline constexpr std::chrono::milliseconds kDefaultTimeout{10000};

HttpResponse Send(std::uint16_t port, const HttpRequest& request,
                  std::chrono::milliseconds timeout = kDefaultTimeout);
// Send() from a chosen local address, e.g. "127.0.0.2", to look like another client.
HttpResponse SendFrom(std::string_view source, std::uint16_t port, const HttpRequest& request,
                      std::chrono::milliseconds timeout = kDefaultTimeout);
// The request's bytes as Send() would write them (Host and Content-Length added).
std::string Serialize(std::uint16_t port, const HttpRequest& request);
HttpResponse SendRaw(std::uint16_t port, std::string_view bytes,
                     std::chrono::milliseconds timeout = kDefaultTimeout);

}  // namespace bb
