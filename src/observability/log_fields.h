// Structured fields for log lines (the JSON format writes them as members, e.g.
// "requestId"), set for a scope on the current thread rather than passed to every log
// call, so code that logs deep down (a store failure) still names the request it was
// working for. spdlog formats synchronously on the calling thread, which makes this work.
#pragma once

#include <initializer_list>
#include <span>
#include <string_view>

namespace licensed {

struct LogField {
  std::string_view key;  // e.g. "requestId"; must not be "time", "level" or "msg"
  std::string_view value;
};

// Adds fields to every line logged on this thread while it lives. The viewed strings
// must outlive it. Scopes nest; inner fields come after outer ones.
class ScopedLogFields {
 public:
  ScopedLogFields(std::initializer_list<LogField> fields);
  ~ScopedLogFields();
  ScopedLogFields(const ScopedLogFields&) = delete;
  ScopedLogFields& operator=(const ScopedLogFields&) = delete;

 private:
  size_t restore_size_;
};

// The fields in effect on this thread, outermost first.
std::span<const LogField> current_log_fields();

}  // namespace licensed
