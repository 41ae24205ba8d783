// Counter-based random tokens: token t of sequence i of a split is a hash of (seed, split, i, t),
// so any sequence is generated alone, in any order, in any thread, and nothing is stored.
// The hash is SplitMix64's finalizer (a bijection of 64-bit words with full avalanche); token t
// of a sequence is output t of a SplitMix64 stream whose state starts at the sequence's key.
#pragma once

#include <cstdint>

namespace random_tokens {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// SplitMix64's state increment: the odd integer nearest 2^64 / golden ratio.
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// split: 0 for training, 1 for test.
inline uint64_t sequence_key(uint64_t seed, uint64_t split, uint64_t index) {
  return mix64(mix64(mix64(seed) + split) + index);
}

// A token id below `vocab_size`. The modulo's bias is below vocab_size / 2^64: nil.
inline int64_t token_at(uint64_t key, uint64_t position, uint64_t vocab_size) {
  return static_cast<int64_t>(mix64(key + (position + 1) * kGoldenGamma) % vocab_size);
}

}  // namespace random_tokens
