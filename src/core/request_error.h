// What a request's work inside a store transaction comes to when it does not succeed:
// either an answer already chosen for the client (an ApiError: a License API refusal the
// contract names, with its payload; a read-only admin token), or an internal Error (the
// store failed, a bug) that the surface translates in its one function. Only the second
// is a failure of the server, and only its writes are rolled back.
#pragma once

#include <utility>
#include <variant>

#include "core/api_error.h"
#include "core/status.h"

namespace licensed {

class RequestError {
 public:
  RequestError(ApiError answer) : v_(std::move(answer)) {}  // NOLINT(google-explicit-constructor)
  RequestError(Error failure) : v_(std::move(failure)) {}   // NOLINT(google-explicit-constructor)

  // The answer chosen already, or null when this is an internal failure.
  const ApiError* answer() const { return std::get_if<ApiError>(&v_); }
  // The internal failure, or null when an answer was chosen.
  const Error* failure() const { return std::get_if<Error>(&v_); }
  // The answer as the client gets it: the chosen one as it is, or the failure through
  // the surface's one translation (to_api_error, to_admin_api_error).
  ApiError answer_or(ApiError (*translate)(const Error&)) const {
    return answer() != nullptr ? *answer() : translate(*failure());
  }
  // Either one's message, for a log line or a test's output.
  const std::string& message() const {
    return answer() != nullptr ? answer()->message : failure()->message;
  }

 private:
  std::variant<ApiError, Error> v_;
};

// A value, or a RequestError.
template <class T>
using RequestResult = Result<T, RequestError>;

}  // namespace licensed
