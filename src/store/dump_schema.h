// Every table a deployment's data lives in, column by column, as `licensed admin export`
// writes and `import` reads them. Both stores have these tables with these columns (their
// migrations agree), so a row moves between them unchanged. Parents come before
// children, so an import in this order never breaks a foreign key.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace licensed {

enum class DumpKind { kInt, kText, kBool };

struct DumpColumn {
  const char* name;
  DumpKind kind;
};

struct DumpTable {
  const char* name;
  std::vector<DumpColumn> columns;
  // The primary key's columns: rows come out in this order, byte order for text on both
  // stores (see order_by()).
  std::vector<const char*> key;
  bool has_id = false;  // an `id` the store assigns; an import keeps it
  // A column of Unix milliseconds after which a row means nothing (a lease's end): export
  // and import carry the row only while it is later than now. Null: every row moves.
  const char* live_until = nullptr;
};

// A bool is 0 or 1, as SQLite keeps it.
using DumpValue = std::variant<std::monostate, int64_t, std::string>;
using DumpRow = std::vector<DumpValue>;  // one value per column, in the table's order

const std::vector<DumpTable>& dump_tables();

// "a, b, c": the table's columns for a SELECT or INSERT (names from the table above,
// never from input).
std::string column_list(const DumpTable& table);
// "a, b": the key's columns for ORDER BY, each text column followed by `text_collation`
// (PostgreSQL's own order follows the database's locale; SQLite's is bytes already).
std::string order_by(const DumpTable& table, const std::string& text_collation);

}  // namespace licensed
