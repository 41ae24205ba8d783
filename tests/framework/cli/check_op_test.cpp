// `runner check-op`: verdicts and exit codes from the command line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

TEST(CheckOpCommand, AnOpWithoutReferenceRunsAndPasses) {
  Output o = run_runner("check-op relu --shapes 3x5,2x1x4 --repeat 1");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const char* part : {"relu has no reference", "(3, 5) non-contiguous", "gradcheck", "timing",
                           "check-op relu: passed"})
    EXPECT_THAT(o.out, HasSubstr(part)) << part << " missing from\n" << o.out;
}

TEST(CheckOpCommand, GeluMatchesAtenInEveryForm) {
  for (const char* form : {"none", "tanh", "sigmoid"}) {
    Output o = run_runner(std::string("check-op gelu --repeat 1 --set approximate=") + form);
    EXPECT_EQ(o.exit_code, 0) << form << "\n" << o.out << o.err;
    EXPECT_THAT(o.out, HasSubstr("check-op gelu: passed")) << o.out;
    EXPECT_THAT(o.out, HasSubstr("gelu against its reference")) << o.out;
  }
  Output in_double = run_runner("check-op gelu --dtype float64 --repeat 1 --shapes 7x9");
  EXPECT_EQ(in_double.exit_code, 0) << in_double.out;
}

TEST(CheckOpCommand, AnOpThatDisagreesWithItsReferenceIsExitOne) {
  Output o = run_runner("--plugin-path " + fixture_plugins() +
                        " check-op fixture_off_by_one --shapes 3x5 --repeat 1");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("FAILED")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("check-op fixture_off_by_one: FAILED")) << o.out;
}

// Its forward throws from inside its library, in every phase: comparison, gradcheck, timing.
TEST(CheckOpCommand, AnOpThatThrowsFailsEachPhaseWithItsMessage) {
  Output o = run_runner("--plugin-path " RUNNER_BINARY_DIR
                        "/tests/fixtures/throwing check-op fixture_refusing --shapes 2x2 "
                        "--repeat 1");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("FAILED: fixture_refusing: refuses an input of 4 elements"))
      << o.out;
  const size_t timing = o.out.find("timing (");
  ASSERT_NE(timing, std::string::npos) << o.out;
  EXPECT_THAT(o.out.substr(timing), HasSubstr("FAILED: fixture_refusing")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("check-op fixture_refusing: FAILED")) << o.out;
}

TEST(CheckOpCommand, AnUnknownOpIsAConfigErrorListingTheKnownOnes) {
  Output o = run_runner("check-op gleu");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("gleu")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("gelu")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("relu")) << o.err;
}

TEST(CheckOpCommand, BadArgumentsAreConfigErrorsNamingThem) {
  struct Case {
    const char* args;
    const char* named;
  };
  for (const Case& c :
       {Case{"check-op relu --shapes 3xq", "'q' is not a size"},
        Case{"check-op relu --shapes 3,,4", "'' is not a size"},
        Case{"check-op relu --shapes 8,100000x100000x100000",
             "--shapes 100000x100000x100000: 1e+15 elements of float32 need 4e+15 bytes, more "
             "than this machine's"},
        Case{"check-op relu --dtype int8", "--dtype int8"},
        Case{"check-op relu --device tpu", "--device tpu"},
        Case{"check-op gelu --set approximate=cubic", "cubic"},
        Case{"check-op gelu --set slope=2", "slope"},
        Case{"check-op relu --repeat 0", "'0' is not a whole number from 1 to 100000"},
        Case{"check-op relu --repeat 1000000000",
             "'1000000000' is not a whole number from 1 to 100000"},
        Case{"check-op relu --threads -1", "'-1' is not a whole number from 0 to 1024"},
        Case{"check-op relu --threads 1025", "'1025' is not a whole number from 0 to 1024"}}) {
    Output o = run_runner(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.err;
    EXPECT_THAT(o.err, HasSubstr(c.named)) << c.args << "\n" << o.err;
    EXPECT_LT(o.err.size(), 400u) << "a short message, not a 309-digit range:\n" << o.err;
  }
}

TEST(CheckOpCommand, CudaWithoutAGpuIsARuntimeError) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  Output o = run_runner("check-op relu --device cuda");
  EXPECT_EQ(o.exit_code, 5);
  EXPECT_THAT(o.err, HasSubstr("no CUDA device")) << o.err;
}

}  // namespace
}  // namespace runner::testing
