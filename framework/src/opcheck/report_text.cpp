// check-op's report as text: each case, gradcheck and timing, then passed or the failures.
#include "opcheck/report_text.hpp"

#include <fmt/format.h>

namespace runner::opcheck {
namespace {

std::string case_lines(const CaseResult& c) {
  if (!c.failure.empty()) return fmt::format("  {}\n    FAILED: {}\n", c.label, c.failure);
  if (c.differences.empty()) return fmt::format("  {}\n    ran forward and backward\n", c.label);
  std::string text = fmt::format("  {}\n", c.label);
  for (const auto& d : c.differences)
    text += fmt::format("    {:<18} max abs {:9.2e}  max rel {:9.2e}  {}\n", d.what, d.max_abs,
                        d.max_rel, d.within ? "ok" : "OVER TOLERANCE");
  return text;
}

std::string gradcheck_lines(const std::vector<GradcheckCase>& gradchecks) {
  std::string text = "gradcheck (float64, finite differences):\n";
  for (const auto& g : gradchecks)
    text += g.result.passed
                ? fmt::format("  {:<40} passed, max error {:.1e}\n", g.label, g.result.max_error)
                : fmt::format("  {:<40} FAILED: {}\n", g.label, g.result.failure);
  return text;
}

std::string ms(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }

std::string ratio(double op, double reference) {
  return reference > 0 ? fmt::format("{:.2f}x", op / reference) : "-";
}

std::string timing_lines(const std::vector<Timing>& timings, bool has_reference) {
  std::string text = "timing (median; op / reference):\n";
  for (const auto& t : timings) {
    if (!t.failure.empty()) {
      text += fmt::format("  {}\n    FAILED: {}\n", t.label, t.failure);
      continue;
    }
    text += has_reference
                ? fmt::format("  {}\n    forward  {} / {} ({})\n    backward {} / {} ({})\n",
                              t.label, ms(t.op_forward), ms(t.reference_forward),
                              ratio(t.op_forward, t.reference_forward), ms(t.op_backward),
                              ms(t.reference_backward), ratio(t.op_backward, t.reference_backward))
                : fmt::format("  {}\n    forward  {}\n    backward {}\n", t.label, ms(t.op_forward),
                              ms(t.op_backward));
  }
  return text;
}

int failures(const CheckReport& report) {
  int count = 0;
  for (const auto& c : report.cases) count += c.passed() ? 0 : 1;
  for (const auto& g : report.gradchecks) count += g.result.passed ? 0 : 1;
  for (const auto& t : report.timings) count += t.failure.empty() ? 0 : 1;
  return count;
}

}  // namespace

std::string report_text(const CheckReport& report) {
  std::string text =
      report.has_reference
          ? fmt::format("{} against its reference, tolerance {:.0e} relative:\n", report.op,
                        report.tolerance)
          : fmt::format("{} has no reference: forward and backward only:\n", report.op);
  for (const auto& c : report.cases) text += case_lines(c);
  text += gradcheck_lines(report.gradchecks);
  text += timing_lines(report.timings, report.has_reference);
  const int failed = failures(report);
  const size_t checks = report.cases.size() + report.gradchecks.size() + report.timings.size();
  text += failed == 0
              ? "check-op " + report.op + ": passed\n"
              : fmt::format("check-op {}: FAILED ({} of {} checks)\n", report.op, failed, checks);
  return text;
}

}  // namespace runner::opcheck
