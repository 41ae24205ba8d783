// The training step with each technique against the plain step of one batch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <runner/strategies/training_step.hpp>

#include <runner_testing/layered_model.hpp>

namespace runner::strategies::support_tests {
namespace {

using testing::LayeredModel;

struct Trained {
  std::vector<double> losses;
  std::vector<torch::Tensor> parameters;  // after the last step
  std::vector<torch::Tensor> predictions;
};

Batch to_device(const Batch& batch, torch::Device device) {
  return {batch.inputs.to(device), batch.targets.to(device)};
}

Trained train(Techniques techniques, int steps, double dropout = 0.0,
              torch::Device device = torch::kCPU) {
  torch::manual_seed(11);
  auto model = std::make_shared<LayeredModel>(dropout);
  model->to(device);
  auto optimizer = testing::adam(model->parameters());
  TrainingStep step(model, model->parameters(), techniques, device, std::make_shared<StepMeter>());
  Trained run;
  torch::manual_seed(12);
  for (int i = 0; i < steps; ++i) {
    StepResult result = step.run(to_device(testing::random_batch(24), device), *optimizer);
    run.losses.push_back(result.loss.item<double>());
    run.predictions.push_back(result.predictions);
  }
  for (const auto& p : model->parameters()) run.parameters.push_back(p.detach().clone());
  return run;
}

void expect_same_training(const Trained& a, const Trained& b, double tolerance) {
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t i = 0; i < a.losses.size(); ++i)
    EXPECT_NEAR(a.losses[i], b.losses[i], tolerance * std::abs(a.losses[i])) << "step " << i + 1;
  for (size_t k = 0; k < a.parameters.size(); ++k)
    EXPECT_TRUE(torch::allclose(a.parameters[k], b.parameters[k], tolerance, tolerance))
        << "parameter " << k;
}

TEST(TrainingStep, FourMicroBatchesFollowOneBatchStepForStep) {
  Techniques four;
  four.micro_batches = 4;
  Trained one = train(Techniques{}, 50), micro = train(four, 50);
  expect_same_training(one, micro, 1e-6);
  EXPECT_TRUE(torch::equal(one.predictions.back(), micro.predictions.back()));
  EXPECT_EQ(micro.predictions.back().size(0), 24);
}

TEST(TrainingStep, MicroBatchesThatDoNotDivideTheBatchStillFollowIt) {
  Techniques five;
  five.micro_batches = 5;  // 24 rows: 5 + 5 + 5 + 5 + 4, weighted by their rows
  expect_same_training(train(Techniques{}, 10), train(five, 10), 1e-6);
}

TEST(TrainingStep, CheckpointedLayersFollowThePlainStepWithDropout) {
  Techniques checkpointing;
  checkpointing.checkpoint_layers = true;
  expect_same_training(train(Techniques{}, 20, 0.2), train(checkpointing, 20, 0.2), 1e-6);
}

TEST(TrainingStep, ClippingBoundsTheUpdateAndChangesTheTraining) {
  Techniques clipped;
  clipped.grad_clip_norm = 1e-3;
  Trained plain = train(Techniques{}, 5), tight = train(clipped, 5);
  EXPECT_EQ(plain.losses[0], tight.losses[0]);  // the first loss comes before any step
  EXPECT_NE(plain.losses[4], tight.losses[4]);
}

TEST(TrainingStep, Bf16KeepsFp32WeightsAndLossesCloseToFp32) {
  Techniques bf16;
  bf16.precision = Precision::bf16;
  Trained fp32 = train(Techniques{}, 30), half = train(bf16, 30);
  for (const auto& p : half.parameters) EXPECT_EQ(p.scalar_type(), torch::kFloat);
  EXPECT_NEAR(half.losses.back(), fp32.losses.back(), 0.03 * fp32.losses.back());
  EXPECT_NE(half.losses[1], fp32.losses[1]) << "bf16 changed nothing: autocast was not on";
}

// On a GPU, bf16 and fp16 run under CUDA's autocast and keep fp32 weights.
TEST(TrainingStep, OnCudaBf16AndFp16KeepFp32WeightsAndLossesCloseToFp32) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  const Trained fp32 = train(Techniques{}, 30, 0.0, torch::kCUDA);
  for (Precision precision : {Precision::bf16, Precision::fp16}) {
    Techniques half;
    half.precision = precision;
    const Trained run = train(half, 30, 0.0, torch::kCUDA);
    for (const auto& p : run.parameters) EXPECT_EQ(p.scalar_type(), torch::kFloat);
    EXPECT_NEAR(run.losses.back(), fp32.losses.back(), 0.03 * fp32.losses.back());
    EXPECT_NE(run.losses[1], fp32.losses[1]) << "autocast was not on";
  }
}

// fp16 on a GPU with a loss scale of 2^40: the scaled gradients overflow fp16's 65504, so the
// step is skipped and the parameters stay; the scale halves each time until the gradients
// fit, and then the optimizer steps.
TEST(TrainingStep, OnCudaAnFp16StepWhoseGradientsOverflowIsSkippedAndTheScaleHalves) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  torch::manual_seed(11);
  auto model = std::make_shared<LayeredModel>(0.0);
  model->to(torch::kCUDA);
  auto optimizer = testing::adam(model->parameters());
  Techniques fp16;
  fp16.precision = Precision::fp16;
  fp16.loss_scaling.initial_scale = std::ldexp(1.0, 40);
  TrainingStep step(model, model->parameters(), fp16, torch::kCUDA, std::make_shared<StepMeter>());
  std::vector<torch::Tensor> before;
  for (const auto& p : model->parameters()) before.push_back(p.detach().clone());
  const Batch batch = to_device(testing::random_batch(24), torch::kCUDA);

  StepResult first = step.run(batch, *optimizer);
  EXPECT_TRUE(first.skipped);
  EXPECT_EQ(first.loss_scale, std::ldexp(1.0, 39));
  for (size_t k = 0; k < before.size(); ++k)
    EXPECT_TRUE(torch::equal(model->parameters()[k], before[k])) << "parameter " << k;

  int skipped = 1;
  StepResult result = first;
  while (result.skipped && skipped < 40) {
    result = step.run(batch, *optimizer);
    skipped += result.skipped ? 1 : 0;
  }
  ASSERT_FALSE(result.skipped) << "every scale down to 2^0 overflowed";
  EXPECT_EQ(result.loss_scale, std::ldexp(1.0, 40 - skipped));
  EXPECT_LE(result.loss_scale, 65504.0);
  EXPECT_FALSE(torch::equal(model->parameters()[0], before[0])) << "the good step changed nothing";
  for (const auto& p : model->parameters()) EXPECT_TRUE(torch::isfinite(p).all().item<bool>());
}

// The same skip without fp16 arithmetic, so it runs on any machine: apply() given one
// infinite gradient (what an fp16 backward that overflowed leaves) steps nothing and halves
// the scale; given finite ones, the optimizer steps and the gradients arrive unscaled.
TEST(TrainingStep, AnFp16StepGivenAnInfiniteGradientIsSkippedAndTheScaleHalves) {
  torch::manual_seed(11);
  auto model = std::make_shared<LayeredModel>(0.0);
  auto optimizer = testing::adam(model->parameters());
  Techniques fp16;
  fp16.precision = Precision::fp16;
  fp16.loss_scaling.initial_scale = 1024.0;
  TrainingStep step(model, model->parameters(), fp16, torch::kCPU, std::make_shared<StepMeter>());
  std::vector<torch::Tensor> before;
  for (const auto& p : model->parameters()) {
    before.push_back(p.detach().clone());
    p.mutable_grad() = torch::full_like(p, 1024.0);
  }
  model->parameters().back().mutable_grad()[0] = std::numeric_limits<float>::infinity();

  StepResult skipped;
  step.apply(*optimizer, skipped);
  EXPECT_TRUE(skipped.skipped);
  EXPECT_EQ(skipped.loss_scale, 512.0);
  for (size_t k = 0; k < before.size(); ++k)
    EXPECT_TRUE(torch::equal(model->parameters()[k], before[k])) << "parameter " << k;

  for (const auto& p : model->parameters()) p.mutable_grad() = torch::full_like(p, 512.0);
  StepResult stepped;
  step.apply(*optimizer, stepped);
  EXPECT_FALSE(stepped.skipped);
  EXPECT_EQ(stepped.loss_scale, 512.0);
  EXPECT_TRUE(
      torch::allclose(model->parameters()[0].grad(), torch::ones_like(model->parameters()[0])));
  EXPECT_FALSE(torch::equal(model->parameters()[0], before[0])) << "the good step changed nothing";
}

TEST(TrainingStep, EvaluationRunsUnderAutocastWithoutAGraph) {
  torch::manual_seed(4);
  auto model = std::make_shared<LayeredModel>(0.0);
  Techniques bf16;
  bf16.precision = Precision::bf16;
  TrainingStep step(model, model->parameters(), bf16, torch::kCPU, std::make_shared<StepMeter>());
  Batch batch = testing::random_batch(8);
  StepResult result = step.evaluate(batch);
  EXPECT_FALSE(result.loss.requires_grad());
  EXPECT_EQ(result.predictions.sizes(), torch::IntArrayRef({8}));
  torch::NoGradGuard no_grad;
  const double fp32 = model->loss(model->forward(batch.inputs), batch.targets).item<double>();
  EXPECT_NEAR(result.loss.item<double>(), fp32, 0.02 * fp32);
}

struct CountingMeter : StepMeter {
  void forward_begins() override { ++forwards; }
  void backward_ends() override { ++backwards; }
  void step_ends() override { ++steps; }
  int forwards = 0, backwards = 0, steps = 0;
};

TEST(TrainingStep, HooksAndTheMeterSeeEveryMicroBatchAndOneLastOne) {
  auto model = std::make_shared<LayeredModel>(0.0);
  auto optimizer = testing::adam(model->parameters());
  auto meter = std::make_shared<CountingMeter>();
  Techniques three;
  three.micro_batches = 3;
  TrainingStep step(model, model->parameters(), three, torch::kCPU, meter);
  std::vector<bool> before, after;
  TrainingStep::Hooks hooks;
  hooks.before_backward = [&](bool last) { before.push_back(last); };
  hooks.after_backward = [&](bool last) { after.push_back(last); };
  step.run(testing::random_batch(9), *optimizer, hooks);
  EXPECT_EQ(before, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(after, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(meter->forwards, 3);
  EXPECT_EQ(meter->backwards, 3);
  EXPECT_EQ(meter->steps, 1);
}

}  // namespace
}  // namespace runner::strategies::support_tests
