// A check-op report as text, as the command prints it.
#pragma once

#include <string>

#include "opcheck/check_op.hpp"

namespace runner::opcheck {

// One line per case, gradcheck and timing, and the verdict.
std::string report_text(const CheckReport& report);

}  // namespace runner::opcheck
