// Errors as values: an operation returns either its value or the ApiError the client
// will see. No exceptions cross the request path.
#pragma once

#include <utility>
#include <variant>

#include "core/api_error.h"

namespace licensed {

template <class T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(ApiError error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  ApiError& error() { return std::get<1>(v_); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

}  // namespace licensed

// Early return of a failed Result from a function that itself returns a Result.
// The one macro the project allows itself: errors as values need it to stay readable.
#define LICENSED_CONCAT_INNER(a, b) a##b
#define LICENSED_CONCAT(a, b) LICENSED_CONCAT_INNER(a, b)
#define LICENSED_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return std::move(tmp.error());        \
  lhs = std::move(tmp.value())
#define ASSIGN_OR_RETURN(lhs, expr) \
  LICENSED_ASSIGN_OR_RETURN_IMPL(LICENSED_CONCAT(result_tmp_, __LINE__), lhs, expr)
#define RETURN_IF_ERROR(expr)                                                     \
  do {                                                                            \
    auto licensed_status_tmp = (expr);                                            \
    if (!licensed_status_tmp.ok()) return std::move(licensed_status_tmp.error()); \
  } while (0)

namespace licensed {
// The value of a Result that carries no value.
struct Ok {};
using Status = Result<Ok>;
}  // namespace licensed
