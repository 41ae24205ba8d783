// A replica's activations: the training step's peak, or the evaluation forward's when that is
// larger. Every expected number is worked out here from the layer sizes.
#include <gtest/gtest.h>

#include "runner/strategies/replica_plan.hpp"

namespace runner::strategies::support_tests {
namespace {

LayerEstimate layer(double held, double output) {
  LayerEstimate l;
  l.held_bytes = held;
  l.output_bytes = output;
  return l;
}

// A conv net's shape: the first layer makes the most, the last outputs logits.
PlanInput conv_net(int64_t batch, int64_t test_batch) {
  PlanInput input;
  input.model.layers = {layer(300, 100), layer(120, 40), layer(8, 4)};
  input.model.loss_bytes = 1;
  input.batch_size = batch;
  input.test_batch_size = test_batch;
  return input;
}

// Backward of layer i holds what layers 1..i keep, the gradient of i's output and the one it
// makes for its input: 300 + 0 + 100, 420 + 100 + 40, 428 + 40 + 4; at the loss, 428 + 2.
TEST(ReplicaPlan, TrainingPeaksInTheBackwardOfTheLayerWithTheLargestGradients) {
  EXPECT_DOUBLE_EQ(activation_bytes(conv_net(64, 1), 64), (420 + 100 + 40) * 64.0);
}

TEST(ReplicaPlan, TrainingWithLargeLogitsPeaksAtTheLoss) {
  PlanInput language_model = conv_net(8, 1);
  language_model.model.loss_bytes = 400;
  EXPECT_DOUBLE_EQ(activation_bytes(language_model, 8), (428 + 2 * 400) * 8.0);
}

// Evaluation holds no activations for backward, but a layer's input stays while the layer
// makes its own: with many samples per evaluation step, that is the peak.
TEST(ReplicaPlan, EvaluationPeaksAtTheLayerWhoseInputAndMakingsAreLargest) {
  // Layer 1: 0 + 300; layer 2: 100 + 120; layer 3: 40 + 8; the end: 4 + 1.
  EXPECT_DOUBLE_EQ(activation_bytes(conv_net(64, 1000), 64), 300 * 1000.0);
  PlanInput wide_second = conv_net(64, 1000);
  wide_second.model.layers[1].held_bytes = 250;
  EXPECT_DOUBLE_EQ(activation_bytes(wide_second, 64), (100 + 250) * 1000.0);
}

TEST(ReplicaPlan, EvaluationOfLargeLogitsPeaksAtTheLoss) {
  PlanInput language_model = conv_net(1, 1000);
  language_model.model.layers.back() = layer(500, 500);
  language_model.model.loss_bytes = 400;
  // The logits and their log-probabilities, for each of the 1000 test samples.
  EXPECT_DOUBLE_EQ(activation_bytes(language_model, 1), (500 + 400) * 1000.0);
}

TEST(ReplicaPlan, AModelWithoutLayersEvaluatesWithItsWholeForward) {
  PlanInput input;
  input.model.held_bytes = 50;
  input.model.loss_bytes = 1;
  input.test_batch_size = 100;
  EXPECT_DOUBLE_EQ(activation_bytes(input, 4), (50 + 1) * 100.0);
}

}  // namespace
}  // namespace runner::strategies::support_tests
