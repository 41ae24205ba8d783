// The resolved config text and the run id derived from it.
#include <gtest/gtest.h>

#include <cstdio>

#include "config/resolved_toml.hpp"
#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse;

const std::string kMinimalResolved =
    "[dataset]\n"
    "name = \"mnist\"\n"
    "data_dir = \"/data/mnist\"\n"
    "train_size = 0\n"
    "\n"
    "[experiment]\n"
    "description = \"\"\n"
    "name = \"exp\"\n"
    "plan_step_s = 0.0\n"
    "plugin_path = []\n"
    "results = \"\"\n"
    "seed = 0\n"
    "table = []\n"
    "\n"
    "[model]\n"
    "name = \"lenet5\"\n"
    "activation = \"relu\"\n"
    "\n"
    "[optimizer]\n"
    "betas = [0.9, 0.999]\n"
    "eps = 1e-08\n"
    "lr = 0.001\n"
    "momentum = 0.0\n"
    "name = \"adam\"\n"
    "nesterov = false\n"
    "weight_decay = 0.0\n"
    "\n"
    "[schedule]\n"
    "gamma = 0.1\n"
    "max_lr = 0.0\n"
    "min_lr = 0.0\n"
    "name = \"constant\"\n"
    "pct_start = 0.3\n"
    "step_size = 1\n"
    "warmup_steps = 0\n"
    "\n"
    "[strategy]\n"
    "name = \"single\"\n"
    "\n"
    "[train]\n"
    "activation_checkpointing = \"none\"\n"
    "backend_conv = \"vendor\"\n"
    "batch_size = 64\n"
    "collective_ledger = 4096\n"
    "deterministic = false\n"
    "device = \"cpu\"\n"
    "epochs = 1\n"
    "grad_clip_norm = 0.0\n"
    "log_every = 50\n"
    "loss_scale = 65536.0\n"
    "loss_scale_backoff = 0.5\n"
    "loss_scale_growth_interval = 2000\n"
    "max_eval_steps = 0\n"
    "max_steps_per_epoch = 0\n"
    "memory_budget = 0.0\n"
    "micro_batches = 1\n"
    "num_workers = 0\n"
    "peak_tflops = 0.0\n"
    "pin_memory = true\n"
    "precision = \"fp32\"\n"
    "prefetch = 2\n"
    "test_batch_size = 1000\n"
    "threads = 0\n";

// The id's definition, written out: FNV-1a 64 over the text, top 48 bits as 12 hex digits.
std::string expected_id(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  char hex[13];
  std::snprintf(hex, sizeof hex, "%012llx", static_cast<unsigned long long>(hash >> 16));
  return hex;
}

// [train] keys added after ids were defined are left out of ids while at their default, and
// [experiment] plan_step_s (added later, never in an id) always: files written before them
// still resume.
std::string without_later_keys(std::string text) {
  for (const std::string line :
       {"max_eval_steps = 0\n", "collective_ledger = 4096\n", "plan_step_s = 0.0\n"})
    text.erase(text.find(line), line.size());
  return text;
}

// What the id hashes: the text without where the outputs go and how they are shown
// ([experiment] description, results and table, and plan_step_s by without_later_keys;
// tensorboard and [checkpoint] are not in kMinimalResolved).
std::string id_text_of(std::string resolved) {
  for (const std::string line : {"description = \"\"\n", "results = \"\"\n", "table = []\n"})
    resolved.erase(resolved.find(line), line.size());
  return without_later_keys(resolved);
}

// [checkpoint] says where and when a run saves, not what it trains: it is in the text, not
// in the id.
const std::string kCheckpointResolved =
    "[checkpoint]\n"
    "dir = \"\"\n"
    "every_epochs = 0\n"
    "every_steps = 0\n"
    "final_weights = true\n"
    "keep = 2\n"
    "\n";

// How a run survives failures ([train] max_restarts), and a [fault] of kind "none", are in the
// text, not in the id.
std::string with_recovery(std::string text) {
  const std::string before_fault = "[model]\n";
  text.insert(text.find(before_fault),
              "[fault]\nattempt = 0\nfactor = 2.0\nin = \"step\"\nkind = \"none\"\nrank = 0\n"
              "seconds = 30.0\nstep = 1\n\n");
  const std::string before_restarts = "max_steps_per_epoch = 0\n";
  text.insert(text.find(before_restarts), "max_restarts = 0\n");
  text.insert(text.find("collective_ledger = "), "check_collectives = false\n");
  const std::string before_stall = "test_batch_size = ";
  return text.insert(text.find(before_stall), "stall_timeout_s = 1800\n");
}

// [experiment] tensorboard, where the run logs its events, is in the text, not in the id.
std::string with_tensorboard(std::string id_text, const std::string& folder) {
  const std::string table = "table = []\n";
  return id_text.insert(id_text.find(table) + table.size(), "tensorboard = \"" + folder + "\"\n");
}

TEST(ResolvedToml, HoldsEverySectionAndKeySorted) {
  EXPECT_EQ(parse(kMinimal).runs[0].resolved_toml,
            kCheckpointResolved + with_recovery(with_tensorboard(kMinimalResolved, "")));
}

TEST(ResolvedToml, HoldsTheSweepValuesAndNoSweep) {
  const Experiment e = parse(kMinimal + "[ops.gelu]\n[sweep]\n\"train.batch_size\" = [32, 128]\n");
  EXPECT_TRUE(Contains(e.runs[1].resolved_toml, "backend_conv = \"vendor\"\nbatch_size = 128\n"));
  EXPECT_TRUE(Contains(e.runs[1].resolved_toml, "[ops.gelu]\napproximate = \"none\"\n"));
  EXPECT_FALSE(Contains(e.runs[1].resolved_toml, "sweep"));
}

TEST(ResolvedToml, ParsesBackToTheSameRun) {
  const std::string text =
      kMinimal +
      "[experiment]\ndescription = \"a \\\"quoted\\\" line\\nand a tab\\t\"\n"
      "[optimizer]\nlr = 0.1\nbetas = [0.8, 0.9]\n[ops.gelu]\napproximate = \"tanh\"\n";
  const RunConfig run = parse(text).runs[0];
  EXPECT_TRUE(
      Contains(run.resolved_toml, "description = \"a \\\"quoted\\\" line\\nand a tab\\t\"\n"));
  EXPECT_TRUE(Contains(run.resolved_toml, "lr = 0.1\n"));
  const RunConfig again = parse(run.resolved_toml).runs[0];
  EXPECT_EQ(again.resolved_toml, run.resolved_toml);
  EXPECT_EQ(again.id, run.id);
  EXPECT_EQ(again.experiment.get_string("description"), "a \"quoted\" line\nand a tab\t");
}

TEST(RunId, IsTheHashOfWhatTheRunTrains) {
  const RunConfig run = parse(kMinimal).runs[0];
  EXPECT_EQ(run.id, expected_id(id_text_of(kMinimalResolved)));
  EXPECT_EQ(run.id.size(), 12u);
  EXPECT_EQ(run.id.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(RunId, IsTheSameWhateverTheCheckpointSectionSays) {
  const RunConfig saving =
      parse(kMinimal + "[checkpoint]\nevery_steps = 10\nkeep = 3\ndir = \"elsewhere\"\n").runs[0];
  EXPECT_EQ(saving.id, parse(kMinimal).runs[0].id);
  EXPECT_TRUE(Contains(saving.resolved_toml, "[checkpoint]\ndir = \"elsewhere\"\n"));
}

TEST(RunId, IsTheSameWhateverTheRestartsAndWithoutAFault) {
  const RunConfig restarting =
      parse(kMinimal, {"train.max_restarts=3", "fault.step=7", "fault.rank=2"}).runs[0];
  EXPECT_EQ(restarting.id, parse(kMinimal).runs[0].id);
  EXPECT_EQ(restarting.earlier_id, parse(kMinimal).runs[0].earlier_id);
  EXPECT_TRUE(Contains(restarting.resolved_toml, "max_restarts = 3\n"));
  EXPECT_TRUE(Contains(restarting.resolved_toml, "kind = \"none\"\nrank = 2\n"));
}

// A run with a fault is another study: a sweep may compare it with the same run without.
TEST(RunId, AnInjectedFaultIsPartOfIt) {
  const std::string id = parse(kMinimal).runs[0].id;
  const RunConfig killed = parse(kMinimal, {"fault.kind=kill", "fault.step=7"}).runs[0];
  EXPECT_NE(killed.id, id);
  EXPECT_NE(parse(kMinimal, {"fault.kind=kill", "fault.step=8"}).runs[0].id, killed.id);
  EXPECT_EQ(parse(kMinimal, {"fault.kind=kill", "fault.step=7", "train.max_restarts=1"}).runs[0].id,
            killed.id);
  // fault.in came later: at "step" the ids of faults stay as they were before it.
  EXPECT_EQ(id_text(killed).find("\nin = "), std::string::npos) << id_text(killed);
  EXPECT_NE(parse(kMinimal, {"fault.kind=kill", "fault.step=7", "fault.in=checkpoint"}).runs[0].id,
            killed.id);
  const Experiment sweep = parse(kMinimal + "[sweep]\n\"fault.kind\" = [\"none\", \"slow\"]\n");
  ASSERT_EQ(sweep.runs.size(), 2u);
  EXPECT_EQ(sweep.runs[0].id, id);
  EXPECT_NE(sweep.runs[1].id, id);
}

TEST(RunId, IsTheSameWhateverTheTensorboardFolder) {
  const RunConfig logging = parse(kMinimal + "[experiment]\ntensorboard = \"runs\"\n").runs[0];
  EXPECT_EQ(logging.id, parse(kMinimal).runs[0].id);
  EXPECT_EQ(logging.id, expected_id(id_text_of(kMinimalResolved)));
  EXPECT_EQ(logging.resolved_toml,
            kCheckpointResolved + with_recovery(with_tensorboard(kMinimalResolved, "runs")));
}

TEST(RunId, IsTheSameWhereverTheResultsGoAndHoweverShown) {
  const RunConfig elsewhere =
      parse(kMinimal +
            "[experiment]\nresults = \"elsewhere.h5\"\ntable = [\"forward_s\"]\n"
            "description = \"another line\"\n")
          .runs[0];
  EXPECT_EQ(elsewhere.id, parse(kMinimal).runs[0].id);
  EXPECT_TRUE(Contains(elsewhere.resolved_toml, "results = \"elsewhere.h5\"\n"));
  EXPECT_NE(elsewhere.earlier_id, parse(kMinimal).runs[0].earlier_id);
}

// runner plan's prediction for a trial is how the plan saw the run, not what it trains: a trial
// keeps the id (and the earlier id) of the same run started by hand.
TEST(RunId, IsTheSameWhateverStepThePlanPredicted) {
  const RunConfig trial = parse(kMinimal + "[experiment]\nplan_step_s = 0.0125\n").runs[0];
  const RunConfig by_hand = parse(kMinimal).runs[0];
  EXPECT_EQ(trial.id, by_hand.id);
  EXPECT_EQ(trial.earlier_id, by_hand.earlier_id);
  EXPECT_TRUE(Contains(trial.resolved_toml, "plan_step_s = 0.0125\n"));
}

// Files written while ids hashed [experiment] results, table and description still resume: the
// run keeps that id as its earlier one.
TEST(RunId, TheEarlierIdHashedTheOutputsToo) {
  const RunConfig run = parse(kMinimal).runs[0];
  EXPECT_EQ(run.earlier_id, expected_id(without_later_keys(kMinimalResolved)));
  EXPECT_NE(run.earlier_id, run.id);
  EXPECT_TRUE(is_id_of(run, run.id));
  EXPECT_TRUE(is_id_of(run, run.earlier_id));
  EXPECT_FALSE(is_id_of(run, parse(kMinimal, {"train.epochs=2"}).runs[0].id));
}

TEST(RunId, IsTheSameForTheSameFile) {
  const std::string text = kMinimal + "[sweep]\n\"train.batch_size\" = [32, 64]\n";
  const Experiment first = parse(text);
  const Experiment second = parse(text);
  ASSERT_EQ(first.runs.size(), 2u);
  for (size_t i = 0; i < first.runs.size(); ++i) EXPECT_EQ(first.runs[i].id, second.runs[i].id);
  EXPECT_NE(first.runs[0].id, first.runs[1].id);
}

TEST(RunId, ChangesWithAnyValue) {
  const std::string id = parse(kMinimal).runs[0].id;
  EXPECT_NE(parse(kMinimal, {"train.max_eval_steps=5"}).runs[0].id, id) << "a later key, set";
  EXPECT_NE(parse(kMinimal, {"train.epochs=2"}).runs[0].id, id);
  EXPECT_NE(parse(kMinimal, {"ops.gelu.approximate=none"}).runs[0].id, id);
  EXPECT_EQ(parse(kMinimal, {"train.epochs=1"}).runs[0].id, id);  // the default, given explicitly
}

TEST(ValueText, NumbersAreShortAndReadBackExactly) {
  EXPECT_EQ(value_to_string(Value(0.1)), "0.1");
  EXPECT_EQ(value_to_string(Value(1.0)), "1.0");
  EXPECT_EQ(value_to_string(Value(1e-8)), "1e-08");
  EXPECT_EQ(value_to_string(Value(std::vector<double>{0.9, 0.999})), "[0.9, 0.999]");
  EXPECT_EQ(value_to_string(Value(std::string("a\x01"))), "\"a\\u0001\"");
}

}  // namespace
}  // namespace runner::config
