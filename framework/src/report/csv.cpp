// write_csv: RFC 4180 with plain numbers, so spreadsheets and pandas.read_csv read every
// numeric column as numbers.
#include "report/csv.hpp"

#include <fmt/format.h>

namespace runner::report {

namespace {

// RFC 4180 ends records with CRLF.
constexpr const char* kRecordEnd = "\r\n";

std::string quoted_if_needed(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

// Doubles in their shortest form that reads back to the same value.
struct CsvField {
  std::string operator()(std::monostate) const { return ""; }
  std::string operator()(bool value) const { return value ? "true" : "false"; }
  std::string operator()(int64_t value) const { return std::to_string(value); }
  std::string operator()(double value) const { return fmt::format("{}", value); }
  std::string operator()(const std::string& value) const { return quoted_if_needed(value); }
};

void write_record(const std::vector<std::string>& fields, std::ostream& out) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out << ',';
    out << fields[i];
  }
  out << kRecordEnd;
}

}  // namespace

void write_csv(const RunTable& table, std::ostream& out) {
  std::vector<std::string> header;
  for (const Column& column : table.columns) header.push_back(quoted_if_needed(column.name));
  write_record(header, out);
  for (const std::vector<Cell>& row : table.rows) {
    std::vector<std::string> fields;
    for (const Cell& cell : row) fields.push_back(std::visit(CsvField{}, cell));
    write_record(fields, out);
  }
}

}  // namespace runner::report
