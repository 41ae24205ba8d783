// What `runner plan` prints: the rates it predicted with, how many layouts were refused and
// why, and the best that fit as a table with the term each loses to the first by.
#pragma once

#include <string>

#include "layout/rates.hpp"
#include "layout/search.hpp"

namespace runner::layout {

// "GEMM fp32 180 GFLOP/s (at 2.1e9 FLOPs) ..., copy 12.0 GB/s, link 3.1 GB/s, disk 0.9 GB/s".
std::string rates_text(const Rates& rates);

// The counts, the refusals by reason, and the first `top` fitting layouts.
std::string search_text(const Search& search, size_t top);

}  // namespace runner::layout
