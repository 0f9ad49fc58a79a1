// Checks real answers against docs/openapi.yaml as the server serves it
// (GET /api/v1/openapi.json): a small JSON Schema checker for the subset the document
// uses ($ref, allOf, oneOf, type, const, enum, required, properties, items, minimum,
// maximum, minLength, maxLength, pattern). Written here rather than taken from a
// package: Debian 12 has no C++ JSON Schema library, and the subset is small.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/http_client.h"
#include "support/json_util.h"

namespace bb {

// Where `instance` breaks `schema` (empty: it matches). `document` resolves $refs.
std::vector<std::string> SchemaErrors(const json::value& document, const json::value& schema,
                                      const json::value& instance);

// Every "$ref" in `document` that does not resolve (empty: all do).
std::vector<std::string> DanglingRefs(const json::value& document);

// The schema of the answer of `method` (lowercase) on `path` (the document's path
// template) with `status`, falling back to the `default` response; throws when the
// document has none.
const json::value& ResponseSchema(const json::value& document, std::string_view path,
                                  std::string_view method, int status);

// Checks (with EXPECT_*) that `r` is JSON and matches its documented schema.
void ExpectDocumented(const json::value& document, std::string_view method, std::string_view path,
                      const HttpResponse& r);

}  // namespace bb

#define EXPECT_DOCUMENTED(doc, method, path, resp)           \
  do {                                                       \
    SCOPED_TRACE("EXPECT_DOCUMENTED");                       \
    ::bb::ExpectDocumented((doc), (method), (path), (resp)); \
  } while (0)
