// Times forward and backward of the op and of its reference on one case.
#pragma once

#include "opcheck/check_op.hpp"

namespace runner::opcheck {

// `settings.repeats` timed calls of each, after a warm-up, or fewer when
// settings.stop_requested() says stop.
Timing time_case(const Op& op, const OpCase& c, const std::string& label,
                 const CheckSettings& settings);

}  // namespace runner::opcheck
