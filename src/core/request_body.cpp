#include "core/request_body.h"

// basic_parser's member definitions live in the _impl header (the SAX parser is a
// template over the handler).
#include <algorithm>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/hex.h"
#include "core/text.h"
#include "core/utf8.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr std::string_view kLicenseKey = "licenseKey";
constexpr std::string_view kMachineId = "machineId";
constexpr std::string_view kMachineName = "machineName";
constexpr std::string_view kProduct = "product";
constexpr std::string_view kEmail = "email";
constexpr std::string_view kSessionId = "sessionId";
constexpr std::string_view kBorrowFor = "borrowFor";
constexpr size_t kEmailMax = 254;
constexpr size_t kProductMax = 64;

constexpr size_t kMachineIdMin = 8;
constexpr size_t kMachineIdMax = 128;
constexpr size_t kMachineNameMax = 100;

enum class ValueKind { kAbsent, kNull, kString, kNumber, kBool, kObject, kArray };

std::string_view kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kAbsent:
      return "absent";
    case ValueKind::kNull:
      return "null";
    case ValueKind::kString:
      return "a string";
    case ValueKind::kNumber:
      return "a number";
    case ValueKind::kBool:
      return "a boolean";
    case ValueKind::kObject:
      return "an object";
    case ValueKind::kArray:
      return "an array";
  }
  return "unknown";
}

// What the body said about one member we care about.
struct Member {
  ValueKind kind = ValueKind::kAbsent;
  std::string text;  // the decoded string when kind == kString
};

// SAX handler: sees every event of the document, so it can check what a DOM parser
// cannot report (duplicate names, which boost::json::parse silently resolves) while
// capturing only the three top-level members of the schema. It never fails the parse
// itself: JSON validity is decided first, then the schema, so a body that is both
// broken and has a duplicate is reported as broken whatever the order of the faults.
class BodyHandler {
 public:
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  explicit BodyHandler(Endpoint endpoint) : endpoint_(endpoint) {}

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }

  bool on_object_begin(json::error_code&) {
    on_value(ValueKind::kObject);
    frames_.push_back(Frame{true, {}});
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    frames_.pop_back();
    return true;
  }
  bool on_array_begin(json::error_code&) {
    on_value(ValueKind::kArray);
    frames_.push_back(Frame{false, {}});
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) {
    frames_.pop_back();
    return true;
  }

  // Keys and strings may arrive in parts (around escapes), so they are accumulated.
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    // Names compare after unescaping: {"a":1,"\u0061":2} is a duplicate.
    if (!frames_.back().keys.insert(key_).second && !duplicate_) duplicate_ = key_;
    pending_ = frames_.size() == 1 ? member_named(key_) : nullptr;
    if (pending_ != nullptr) pending_->text.clear();
    key_.clear();
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (pending_ != nullptr) pending_->text.append(s.data(), s.size());
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    if (pending_ != nullptr) pending_->text.append(s.data(), s.size());
    on_value(ValueKind::kString);
    return true;
  }

  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) {
    on_value(ValueKind::kNumber);
    return true;
  }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) {
    on_value(ValueKind::kNumber);
    return true;
  }
  bool on_double(double, json::string_view, json::error_code&) {
    on_value(ValueKind::kNumber);
    return true;
  }
  bool on_bool(bool, json::error_code&) {
    on_value(ValueKind::kBool);
    return true;
  }
  bool on_null(json::error_code&) {
    on_value(ValueKind::kNull);
    return true;
  }
  // Comments are off in parse_options; these are never called.
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

  bool top_level_is_object() const { return top_level_ == ValueKind::kObject; }
  // The schema member whose value was being read when the parser stopped (a bad escape or
  // bad UTF-8 inside it), so that the error can name it; empty when there is none.
  std::string_view member_in_progress() const {
    if (pending_ == &license_key_) return kLicenseKey;
    if (pending_ == &machine_id_) return kMachineId;
    if (pending_ == &machine_name_) return kMachineName;
    if (pending_ == &product_) return kProduct;
    if (pending_ == &email_) return kEmail;
    if (pending_ == &session_id_) return kSessionId;
    if (pending_ == &borrow_for_) return kBorrowFor;
    return {};
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }
  const Member& license_key() const { return license_key_; }
  const Member& machine_id() const { return machine_id_; }
  const Member& machine_name() const { return machine_name_; }
  const Member& product() const { return product_; }
  const Member& email() const { return email_; }
  const Member& session_id() const { return session_id_; }
  const Member& borrow_for() const { return borrow_for_; }

 private:
  struct Frame {
    bool is_object;
    std::unordered_set<std::string> keys;  // names seen so far in this object
  };

  Member* member_named(std::string_view name) {
    if (name == kLicenseKey) return &license_key_;
    if (name == kMachineId) return &machine_id_;
    // For the other endpoints machineName is just an unknown member.
    const bool names_machine = endpoint_ == Endpoint::kActivate || endpoint_ == Endpoint::kTrial;
    if (name == kMachineName && names_machine) return &machine_name_;
    if (name == kProduct && endpoint_ == Endpoint::kTrial) return &product_;
    if (name == kEmail && endpoint_ == Endpoint::kTrial) return &email_;
    const bool seats = endpoint_ == Endpoint::kCheckout || endpoint_ == Endpoint::kCheckin;
    if (name == kSessionId && seats) return &session_id_;
    if (name == kBorrowFor && endpoint_ == Endpoint::kCheckout) return &borrow_for_;
    return nullptr;
  }

  // Every value, scalar or container, passes here before any nested event.
  void on_value(ValueKind kind) {
    if (frames_.empty()) {
      top_level_ = kind;
      return;
    }
    if (pending_ != nullptr) {
      pending_->kind = kind;
      pending_ = nullptr;
    }
  }

  Endpoint endpoint_;
  std::vector<Frame> frames_;
  std::string key_;
  Member* pending_ = nullptr;  // the schema member whose value comes next, if any
  ValueKind top_level_ = ValueKind::kAbsent;
  std::optional<std::string> duplicate_;
  Member license_key_;
  Member machine_id_;
  Member machine_name_;
  Member product_;
  Member email_;
  Member session_id_;
  Member borrow_for_;
};

std::string describe_json_error(const json::error_code& ec, std::size_t offset) {
  if (ec == json::error::incomplete) return "request body is truncated JSON";
  if (ec == json::error::too_deep) return "request body nests too deeply";
  if (ec == json::error::illegal_leading_surrogate ||
      ec == json::error::illegal_trailing_surrogate) {
    return "request body has an invalid surrogate escape at byte " + std::to_string(offset);
  }
  // Boost.JSON reports bad UTF-8 as a plain syntax error, so say both.
  return "request body is not valid JSON in UTF-8 (error at byte " + std::to_string(offset) + ")";
}

bool is_json_whitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_uuid_v4(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!is_hex_digit(s[i])) {
      return false;
    }
  }
  const char variant = to_lower_ascii(s[19]);
  return s[14] == '4' && (variant == '8' || variant == '9' || variant == 'a' || variant == 'b');
}

ApiError wrong_type(std::string_view field, const Member& m, std::string_view expected) {
  return errors::malformed(field, std::string(field) + " must be " + std::string(expected) +
                                      ", not " + std::string(kind_name(m.kind)));
}

// Checks a string member against the length and control-character rules.
std::optional<ApiError> check_text(std::string_view field, const std::string& text,
                                   size_t min_code_points, size_t max_code_points) {
  const size_t n = count_code_points(text);
  if (n < min_code_points || n > max_code_points) {
    const std::string f(field);
    if (min_code_points == 0) {
      return errors::malformed(
          field, f + " must be at most " + std::to_string(max_code_points) + " characters");
    }
    return errors::malformed(field, f + " must be " + std::to_string(min_code_points) + " to " +
                                        std::to_string(max_code_points) + " characters");
  }
  if (has_control_char(text)) {
    return errors::malformed(field, std::string(field) + " must not contain control characters");
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> check_machine_id_text(std::string_view text) {
  // Text from a URL path is not checked by a JSON parser: ill-formed UTF-8 is refused
  // here, as the body's parser would refuse it.
  if (valid_utf8(text) != text) {
    return errors::malformed(kMachineId, "machineId must be valid UTF-8");
  }
  return check_text(kMachineId, std::string(text), kMachineIdMin, kMachineIdMax);
}

namespace {

std::optional<ApiError> check_machine_id(const Member& m, bool required) {
  switch (m.kind) {
    case ValueKind::kString:
      return check_text(kMachineId, m.text, kMachineIdMin, kMachineIdMax);
    case ValueKind::kAbsent:
    case ValueKind::kNull:
      if (!required) return std::nullopt;
      return errors::malformed(kMachineId, "machineId is required");
    default:
      return wrong_type(kMachineId, m, "a string");
  }
}

}  // namespace

std::string_view endpoint_name(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kActivate:
      return "activate";
    case Endpoint::kHeartbeat:
      return "heartbeat";
    case Endpoint::kStatus:
      return "status";
    case Endpoint::kDeactivate:
      return "deactivate";
    case Endpoint::kTrial:
      return "trial";
    case Endpoint::kOfflineActivate:
      return "offline-activate";
    case Endpoint::kOfflineDeactivate:
      return "offline-deactivate";
    case Endpoint::kCheckout:
      return "checkout";
    case Endpoint::kCheckin:
      return "checkin";
  }
  return "unknown";
}

namespace {

// The rules every JSON body shares: not empty, valid JSON in UTF-8, nothing after it,
// an object, no duplicate names at any depth.
std::optional<ApiError> check_json_object(json::basic_parser<BodyHandler>& parser,
                                          std::string_view body) {
  size_t first = 0;
  while (first < body.size() && is_json_whitespace(body[first])) ++first;
  if (first == body.size()) {
    return errors::malformed("", "request body is empty; expected a JSON object");
  }

  // Default options are strict JSON: no comments, no trailing commas, UTF-8 validated
  // (including overlong forms and encoded surrogates), lone surrogate escapes refused.
  json::error_code ec;
  const size_t consumed = parser.write_some(false, body.data(), body.size(), ec);
  if (ec) {
    // A body that ends early has no offending member; a fault inside a member's value
    // (bad UTF-8, a bad escape, a raw control character) names it.
    const std::string_view field =
        ec == json::error::incomplete ? std::string_view() : parser.handler().member_in_progress();
    return errors::malformed(field, describe_json_error(ec, consumed));
  }
  // The parser stops after the first complete value (and the whitespace after it) and
  // reports success; anything left over is ours to refuse.
  if (consumed != body.size()) {
    return errors::malformed(
        "", "unexpected data after the JSON object at byte " + std::to_string(consumed));
  }

  const BodyHandler& h = parser.handler();
  if (!h.top_level_is_object()) {
    return errors::malformed("", "request body must be a JSON object");
  }
  if (h.duplicate()) {
    return errors::malformed(*h.duplicate(), "duplicate member \"" + *h.duplicate() + "\"");
  }
  return std::nullopt;
}

}  // namespace

ApiResult<json::object> parse_json_object_body(std::string_view body) {
  // The SAX pass decides validity and duplicates (a DOM parse keeps the last of two
  // equal names silently); the endpoint only picks which members it captures.
  json::basic_parser<BodyHandler> parser(json::parse_options{}, Endpoint::kStatus);
  if (auto refused = check_json_object(parser, body)) return std::move(*refused);
  json::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return errors::malformed("", "request body must be a JSON object");
  return std::move(v.as_object());
}

namespace {

std::optional<ApiError> take_machine_name(const Member& name, LicenseRequest& req) {
  switch (name.kind) {
    case ValueKind::kAbsent:
    case ValueKind::kNull:
      return std::nullopt;
    case ValueKind::kString:
      if (auto err = check_text(kMachineName, name.text, 0, kMachineNameMax)) return err;
      req.machine_name = name.text;
      return std::nullopt;
    default:
      return wrong_type(kMachineName, name, "a string or null");
  }
}

bool slug_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

std::optional<ApiError> take_product(const Member& m, LicenseRequest& req) {
  if (m.kind == ValueKind::kAbsent || m.kind == ValueKind::kNull) {
    return errors::malformed(kProduct, "product is required");
  }
  if (m.kind != ValueKind::kString) return wrong_type(kProduct, m, "a string");
  const bool ok = !m.text.empty() && m.text.size() <= kProductMax &&
                  std::all_of(m.text.begin(), m.text.end(), slug_char);
  if (!ok) return errors::malformed(kProduct, "product must be a product slug ([a-z0-9._-], 1-64)");
  req.product = m.text;
  return std::nullopt;
}

// An address as people type it: local@domain, at most 254 characters, no spaces or
// control characters. Compared lowercased.
std::optional<ApiError> take_email(const Member& m, LicenseRequest& req) {
  if (m.kind == ValueKind::kAbsent || m.kind == ValueKind::kNull) return std::nullopt;
  if (m.kind != ValueKind::kString) return wrong_type(kEmail, m, "a string or null");
  if (auto err = check_text(kEmail, m.text, 3, kEmailMax)) return err;
  const auto at = m.text.find('@');
  if (at == 0 || at == std::string::npos || at + 1 == m.text.size() ||
      m.text.find(' ') != std::string::npos) {
    return errors::malformed(kEmail, "email must be an address, local@domain");
  }
  std::string lower;
  for (const char c : m.text) lower.push_back(to_lower_ascii(c));
  req.email = std::move(lower);
  return std::nullopt;
}

// docs/protocol.md §27: sessionId as machineId's rules; borrowFor a string or null, its value
// checked by the operation (after 1707).
std::optional<ApiError> take_seat_members(const BodyHandler& h, LicenseRequest& req) {
  const Member& session = h.session_id();
  if (session.kind == ValueKind::kString) {
    if (auto err = check_text(kSessionId, session.text, kMachineIdMin, kMachineIdMax)) return err;
    req.session_id = session.text;
  } else if (session.kind != ValueKind::kAbsent && session.kind != ValueKind::kNull) {
    return wrong_type(kSessionId, session, "a string or null");
  }
  const Member& borrow = h.borrow_for();
  if (borrow.kind == ValueKind::kString) {
    req.borrow_for = borrow.text;
  } else if (borrow.kind != ValueKind::kAbsent && borrow.kind != ValueKind::kNull) {
    return wrong_type(kBorrowFor, borrow, "a DURATION string or null");
  }
  return std::nullopt;
}

ApiResult<LicenseRequest> parse_trial_request(const BodyHandler& h) {
  LicenseRequest req;
  if (auto err = take_product(h.product(), req)) return *err;
  if (auto err = check_machine_id(h.machine_id(), true)) return *err;
  req.machine_id = h.machine_id().text;
  if (auto err = take_machine_name(h.machine_name(), req)) return *err;
  if (auto err = take_email(h.email(), req)) return *err;
  return req;
}

}  // namespace

namespace {

// The outer body of offline-activate and offline-deactivate: {"request": "<armoured text>"}.
// The file itself is read by the caller (auth/offline_files.h), which the core cannot use.
ApiResult<LicenseRequest> parse_offline_request(std::string_view body) {
  ASSIGN_OR_RETURN(json::object o, parse_json_object_body(body));
  const json::value* text = o.if_contains("request");
  if (text == nullptr || text->is_null())
    return errors::malformed("request", "request is required");
  if (!text->is_string()) return errors::malformed("request", "request must be a string");
  if (text->as_string().size() > kMaxOfflineRequestBytes) {
    return errors::malformed("request", "request is larger than 4 KiB");
  }
  LicenseRequest req;
  req.offline_text = std::string(text->as_string());
  return req;
}

}  // namespace

ApiResult<LicenseRequest> parse_license_request(Endpoint endpoint, std::string_view body) {
  if (endpoint == Endpoint::kOfflineActivate || endpoint == Endpoint::kOfflineDeactivate) {
    return parse_offline_request(body);
  }
  json::basic_parser<BodyHandler> parser(json::parse_options{}, endpoint);
  if (auto refused = check_json_object(parser, body)) return std::move(*refused);
  const BodyHandler& h = parser.handler();
  if (endpoint == Endpoint::kTrial) return parse_trial_request(h);

  LicenseRequest req;

  const Member& key = h.license_key();
  switch (key.kind) {
    case ValueKind::kString:
      break;
    case ValueKind::kAbsent:
    case ValueKind::kNull:
      return errors::malformed(kLicenseKey, "licenseKey is required");
    default:
      return wrong_type(kLicenseKey, key, "a string");
  }
  if (!is_uuid_v4(key.text)) {
    return errors::malformed(kLicenseKey,
                             "licenseKey must be a UUID v4 "
                             "(xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx, hex digits)");
  }
  req.license_key.reserve(key.text.size());
  for (const char c : key.text) req.license_key.push_back(to_lower_ascii(c));

  const bool machine_id_required = endpoint != Endpoint::kStatus;
  if (auto err = check_machine_id(h.machine_id(), machine_id_required)) return *err;
  if (h.machine_id().kind == ValueKind::kString) req.machine_id = h.machine_id().text;

  if (endpoint == Endpoint::kActivate) {
    if (auto err = take_machine_name(h.machine_name(), req)) return *err;
  }
  if (endpoint == Endpoint::kCheckout || endpoint == Endpoint::kCheckin) {
    if (auto err = take_seat_members(h, req)) return *err;
  }
  return req;
}

// ---- Content-Type (RFC 9110 section 8.3) ----

namespace {

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

size_t token_length(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && is_tchar(s[n])) ++n;
  return n;
}

// Reads `"..."` with backslash escapes from the front of `s` into `out`.
bool take_quoted_string(std::string_view& s, std::string& out) {
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      if (++i == s.size()) return false;
      out.push_back(s[i]);
    } else if (s[i] == '"') {
      s.remove_prefix(i + 1);
      return true;
    } else {
      out.push_back(s[i]);
    }
  }
  return false;
}

}  // namespace

bool is_json_content_type(std::string_view content_type) {
  const size_t semi = content_type.find(';');
  if (!iequals(trim_blanks(content_type.substr(0, semi)), "application/json")) return false;
  if (semi == std::string_view::npos) return true;

  // parameters = *( OWS ";" OWS [ parameter ] ), parameter = token "=" ( token / quoted )
  std::string_view rest = content_type.substr(semi + 1);
  while (true) {
    rest = trim_blanks(rest);
    if (rest.empty()) return true;
    if (rest.front() == ';') {  // empty parameter
      rest.remove_prefix(1);
      continue;
    }
    const size_t name_len = token_length(rest);
    if (name_len == 0 || name_len == rest.size() || rest[name_len] != '=') return false;
    const std::string_view name = rest.substr(0, name_len);
    rest.remove_prefix(name_len + 1);

    std::string value;
    if (!rest.empty() && rest.front() == '"') {
      if (!take_quoted_string(rest, value)) return false;
    } else {
      const size_t value_len = token_length(rest);
      if (value_len == 0) return false;
      value.assign(rest.substr(0, value_len));
      rest.remove_prefix(value_len);
    }
    // We only read UTF-8; a body declared in another charset would be misread.
    if (iequals(name, "charset") && !iequals(value, "utf-8")) return false;

    rest = trim_blanks(rest);
    if (rest.empty()) return true;
    if (rest.front() != ';') return false;
    rest.remove_prefix(1);
  }
}

}  // namespace licensed
