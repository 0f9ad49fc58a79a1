// Errors as values: a function returns either its value or why not. No exceptions cross
// the request path. Inside (store, Redis, configuration, admin operations) the error is
// the internal Error (core/status.h); a surface that answers clients uses its wire type
// (ApiResult, core/api_error.h), or RequestError where both meet.
#pragma once

#include <concepts>
#include <utility>
#include <variant>

#include "core/status.h"

namespace licensed {

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  using error_type = E;

  // Implicit (NOLINT: google-explicit-constructor), so that a function returns its
  // value or its error as it is.
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT
  // An error of another type that E holds, passed up as it is (an internal Error into a
  // RequestError): what lets ASSIGN_OR_RETURN cross from a store call to a surface's work.
  // The constraint keeps Result itself out (it is convertible to neither T nor E), so
  // the copy and move constructors are not hidden.
  template <class F>
  requires(!std::same_as<std::remove_cvref_t<F>, E> && std::convertible_to<F, E> &&
           !std::convertible_to<F, T>)
      Result(F&& error)  // NOLINT(bugprone-forwarding-reference-overload)
      : v_(std::in_place_index<1>, E(std::forward<F>(error))) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  E& error() { return std::get<1>(v_); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

}  // namespace licensed

// Early return of a failed Result from a function that itself returns a Result.
// The one macro the project allows itself: errors as values need it to stay readable.
// `lhs` is a declaration ("auto x", "const T y"), which parentheses would not compile.
// NOLINTBEGIN(bugprone-macro-parentheses)
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
// NOLINTEND(bugprone-macro-parentheses)

namespace licensed {
// The value of a Result that carries no value.
struct Ok {};
using Status = Result<Ok>;
}  // namespace licensed
