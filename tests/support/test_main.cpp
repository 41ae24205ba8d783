// The test programs' main: GoogleTest's own, except that a run in which every test skipped (a
// suite of GPU tests on a machine without one) exits 77, which CTest reports as skipped.
#include <gtest/gtest.h>

namespace {

constexpr int kAllSkipped = 77;

bool every_test_skipped(const testing::UnitTest& unit) {
  return unit.skipped_test_count() > 0 && unit.successful_test_count() == 0 &&
         unit.failed_test_count() == 0;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  if (status == 0 && every_test_skipped(*testing::UnitTest::GetInstance())) return kAllSkipped;
  return status;
}
