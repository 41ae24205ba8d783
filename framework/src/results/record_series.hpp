// The per-epoch and per-step series: one 1-D dataset per record field, all the same length.
// A layout (results/record_layout.hpp) names each field once, so the writer and the reader
// cannot drift apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "results/datasets.hpp"
#include "results/groups.hpp"
#include "results/record_layout.hpp"
#include "results/results.hpp"
#include "results/series.hpp"

namespace runner::results::detail {

template <typename Record>
void create_record_series(hid_t group, const RecordLayout<Record>& layout, size_t chunk_length) {
  create_series(group, layout.counter_name, SeriesType::int64, chunk_length);
  for (const auto& [name, member] : layout.values)
    create_series(group, name, SeriesType::float64, chunk_length);
  for (const auto& [name, member] : layout.added_values)
    create_series(group, name, SeriesType::float64, chunk_length);
}

template <typename Record, typename Field>
std::vector<Field> column(const std::vector<Record>& records, Field Record::*member) {
  std::vector<Field> values;
  values.reserve(records.size());
  for (const Record& record : records) values.push_back(record.*member);
  return values;
}

// The counter goes last. Each series is closed, its data handed to the file, before the next
// is opened, so a row whose counter reads back has every value; a writer killed inside an
// append can leave a longer series whose last row was never written and reads 0.
template <typename Record>
void append_records(hid_t group, const RecordLayout<Record>& layout,
                    const std::vector<Record>& records) {
  for (const auto& [name, member] : layout.values)
    append_to_series(group, name, column(records, member));
  for (const auto& [name, member] : layout.added_values)
    append_to_series(group, name, column(records, member));
  append_to_series(group, layout.counter_name, column(records, layout.counter));
}

// Every series of the group cut to at most `length` rows.
template <typename Record>
void cut_records(hid_t group, const RecordLayout<Record>& layout, size_t length) {
  cut_series(group, layout.counter_name, length);
  for (const auto& [name, member] : layout.values) cut_series(group, name, length);
  for (const auto& [name, member] : layout.added_values)
    if (has_member(group, name)) cut_series(group, name, length);
}

// Fills `member` of the rows from the column `name`, dropping rows the column lacks.
template <typename Record>
void read_column(hid_t group, const char* name, double Record::*member,
                 std::vector<Record>& records) {
  const std::vector<double> values = read_double_list(group, name);
  records.resize(std::min(records.size(), values.size()));
  for (size_t row = 0; row < records.size(); ++row) records[row].*member = values[row];
}

// A writer killed between two series of one append leaves them of unequal lengths: the
// records are the rows every series has, up to the last whose counter was written (counters
// start at 1; an unwritten one reads 0).
template <typename Record>
std::vector<Record> read_records(hid_t group, const RecordLayout<Record>& layout) {
  const std::vector<int64_t> counters = read_int_list(group, layout.counter_name);
  std::vector<Record> records(counters.size());
  for (size_t row = 0; row < counters.size(); ++row) records[row].*layout.counter = counters[row];
  while (!records.empty() && records.back().*layout.counter == 0) records.pop_back();
  for (const auto& [name, member] : layout.values) read_column(group, name, member, records);
  for (const auto& [name, member] : layout.added_values)
    if (has_member(group, name)) read_column(group, name, member, records);
  return records;
}

}  // namespace runner::results::detail
