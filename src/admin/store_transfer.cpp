#include "admin/store_transfer.h"

#include <boost/json.hpp>
#include <variant>

#include "core/clock.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr std::string_view kHeader = R"({"licensedExport":1})";

Error refused(std::string message) {
  return Error::invalid_argument("import", std::move(message));
}

json::value to_json(const DumpValue& v, DumpKind kind) {
  if (const auto* n = std::get_if<int64_t>(&v)) {
    return kind == DumpKind::kBool ? json::value(*n != 0) : json::value(*n);
  }
  if (const auto* s = std::get_if<std::string>(&v)) return json::value(*s);
  return nullptr;
}

Result<DumpValue> from_json(const json::value& v, const DumpColumn& c, size_t line) {
  auto bad = [&] {
    return refused("line " + std::to_string(line) + ": column " + c.name + " has the wrong type");
  };
  if (v.is_null()) return DumpValue{};
  switch (c.kind) {
    case DumpKind::kText:
      if (!v.is_string()) return bad();
      return DumpValue{std::string(v.as_string())};
    case DumpKind::kBool:
      if (!v.is_bool()) return bad();
      return DumpValue{int64_t{v.as_bool() ? 1 : 0}};
    case DumpKind::kInt:
      if (v.is_int64()) return DumpValue{v.as_int64()};
      if (v.is_uint64() && v.as_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
        return DumpValue{static_cast<int64_t>(v.as_uint64())};
      }
      return bad();
  }
  return bad();
}

struct ParsedRow {
  const DumpTable* table;
  DumpRow row;
};

Result<std::vector<ParsedRow>> parse_export(std::string_view text) {
  std::vector<ParsedRow> rows;
  size_t line_no = 0;
  bool header = false;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    boost::system::error_code ec;
    const json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) return refused("line " + std::to_string(line_no) + ": not JSON");
    const auto& o = v.as_object();
    if (!header) {
      if (json::serialize(v) != kHeader) return refused("not a licensed export (no header line)");
      header = true;
      continue;
    }
    const auto* table_name = o.if_contains("table");
    const auto* row = o.if_contains("row");
    if (table_name == nullptr || !table_name->is_string() || row == nullptr || !row->is_object()) {
      return refused("line " + std::to_string(line_no) + ": expected {\"table\", \"row\"}");
    }
    const DumpTable* table = nullptr;
    for (const auto& t : dump_tables()) {
      if (table_name->as_string() == t.name) table = &t;
    }
    if (table == nullptr) {
      return refused("line " + std::to_string(line_no) + ": unknown table " +
                     std::string(table_name->as_string()));
    }
    ParsedRow parsed{table, {}};
    for (const auto& c : table->columns) {
      const auto* value = row->as_object().if_contains(c.name);
      ASSIGN_OR_RETURN(DumpValue dv,
                       from_json(value != nullptr ? *value : json::value(), c, line_no));
      parsed.row.push_back(std::move(dv));
    }
    rows.push_back(std::move(parsed));
  }
  if (!header) return refused("not a licensed export (empty)");
  return rows;
}

}  // namespace

namespace {

// A row of a table with live_until (leases) is carried only while that time is later than
// now (docs/protocol.md §27).
bool still_live(const DumpTable& table, const DumpRow& row, UnixMillis now) {
  if (table.live_until == nullptr) return true;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (std::string_view(table.columns[i].name) != table.live_until) continue;
    const auto* until = std::get_if<int64_t>(&row[i]);
    return until != nullptr && *until > now;
  }
  return true;
}

}  // namespace

Result<std::string> export_store(Store& store) {
  return run_blocking(store, TxKind::kRead, [](StoreTx& tx) -> Result<std::string> {
    std::string out(kHeader);
    out += "\n";
    for (const auto& table : dump_tables()) {
      ASSIGN_OR_RETURN(auto rows, tx.dump_rows(table));
      const UnixMillis now = SystemClock().now_ms();
      for (const auto& row : rows) {
        if (!still_live(table, row, now)) continue;
        json::object values;
        for (size_t i = 0; i < table.columns.size(); ++i) {
          values[table.columns[i].name] = to_json(row[i], table.columns[i].kind);
        }
        out += json::serialize(json::object{{"table", table.name}, {"row", std::move(values)}});
        out += "\n";
      }
    }
    return out;
  });
}

Result<int64_t> import_store(Store& store, std::string_view text) {
  ASSIGN_OR_RETURN(const auto rows, parse_export(text));
  return run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) -> Result<int64_t> {
    for (const auto& table : dump_tables()) {
      ASSIGN_OR_RETURN(const bool empty, tx.table_is_empty(table));
      if (!empty) {
        return Error::conflict("import", std::string("the store is not empty (table ") +
                                             table.name +
                                             " has rows); import only into a new store");
      }
    }
    // The file's order is dump_tables()'s; writing each table's rows in that order keeps
    // every foreign key satisfied whatever order the lines came in.
    const UnixMillis now = SystemClock().now_ms();
    for (const auto& table : dump_tables()) {
      for (const auto& r : rows) {
        if (r.table == &table && still_live(table, r.row, now)) {
          RETURN_IF_ERROR(tx.restore_row(table, r.row));
        }
      }
    }
    RETURN_IF_ERROR(tx.finish_restore());
    return static_cast<int64_t>(rows.size());
  });
}

}  // namespace licensed
