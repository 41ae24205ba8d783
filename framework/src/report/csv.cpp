// write_csv: RFC 4180, so spreadsheets and pandas.read_csv read the table back unchanged.
#include "report/report.hpp"

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

void write_record(const std::vector<std::string>& fields, std::ostream& out) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out << ',';
    out << quoted_if_needed(fields[i]);
  }
  out << kRecordEnd;
}

}  // namespace

void write_csv(const Table& table, std::ostream& out) {
  write_record(table.columns, out);
  for (const std::vector<std::string>& row : table.rows) write_record(row, out);
}

}  // namespace runner::report
