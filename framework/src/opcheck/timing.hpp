// Times forward and backward of the op and of its reference on one case.
#pragma once

#include "opcheck/check_op.hpp"

namespace runner::opcheck {

Timing time_case(const Op& op, const OpCase& c, const std::string& label, int repeats);

}  // namespace runner::opcheck
