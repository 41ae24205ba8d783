// The cache of large freed CPU blocks: kept by size, bounded, freed; and the allocator's use of it.
#include "machine/cpu_block_cache.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>
#include <vector>

#include "measure/cpu_memory.hpp"

namespace runner::machine {
namespace {

constexpr size_t kOneMiB = size_t{1} << 20;

std::vector<void*> freed;
void note_freed(void* data) { freed.push_back(data); }

// Fake blocks: the cache only stores and compares their addresses, never touches them (so an
// integer made a pointer is all they need).
CpuBlock fake(size_t address, size_t bytes) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  return {reinterpret_cast<void*>(address), bytes, &note_freed};
}

TEST(CpuBlockCache, GivesAKeptBlockBackForItsExactSizeOnly) {
  freed.clear();
  CpuBlockCache cache(1024 * kOneMiB);
  ASSERT_TRUE(cache.keep(fake(0x1000, 40 * kOneMiB)));
  EXPECT_FALSE(cache.take(41 * kOneMiB).has_value());
  EXPECT_FALSE(cache.take(39 * kOneMiB).has_value());
  const std::optional<CpuBlock> block = cache.take(40 * kOneMiB);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->data, reinterpret_cast<void*>(0x1000));
  EXPECT_EQ(block->free, &note_freed);
  EXPECT_FALSE(cache.take(40 * kOneMiB).has_value()) << "a block is given once";
  EXPECT_EQ(cache.bytes_kept(), 0u);
  EXPECT_TRUE(freed.empty());
}

TEST(CpuBlockCache, LeavesSmallBlocksAndThoseOverItsCapacityToTheCaller) {
  CpuBlockCache cache(100 * kOneMiB);
  EXPECT_FALSE(cache.keep(fake(0x1000, CpuBlockCache::kSmallest - 1)));
  EXPECT_FALSE(cache.keep(fake(0x2000, 101 * kOneMiB)));
  EXPECT_TRUE(cache.keep(fake(0x3000, CpuBlockCache::kSmallest)));
  EXPECT_EQ(cache.bytes_kept(), CpuBlockCache::kSmallest);
}

TEST(CpuBlockCache, DropsTheBlocksKeptLongestToStayUnderItsCapacity) {
  freed.clear();
  CpuBlockCache cache(100 * kOneMiB);
  ASSERT_TRUE(cache.keep(fake(0x1000, 40 * kOneMiB)));
  ASSERT_TRUE(cache.keep(fake(0x2000, 40 * kOneMiB)));
  ASSERT_TRUE(cache.keep(fake(0x3000, 50 * kOneMiB)));  // 130 MiB: the first must go
  EXPECT_EQ(freed, std::vector<void*>{reinterpret_cast<void*>(0x1000)});
  EXPECT_EQ(cache.bytes_kept(), 90 * kOneMiB);
  EXPECT_EQ(cache.take(40 * kOneMiB)->data, reinterpret_cast<void*>(0x2000));
}

TEST(CpuBlockCache, ReleaseAllAndItsEndFreeEveryBlock) {
  freed.clear();
  {
    CpuBlockCache cache(1024 * kOneMiB);
    cache.keep(fake(0x1000, 40 * kOneMiB));
    cache.keep(fake(0x2000, 60 * kOneMiB));
    cache.release_all();
    EXPECT_EQ(freed.size(), 2u);
    EXPECT_EQ(cache.bytes_kept(), 0u);
    cache.keep(fake(0x3000, 40 * kOneMiB));
  }
  EXPECT_EQ(freed.size(), 3u);
  EXPECT_EQ(freed.back(), reinterpret_cast<void*>(0x3000));
}

TEST(CpuBlockCache, ASmallerCapacityDropsTheOldestAndZeroKeepsNothing) {
  freed.clear();
  CpuBlockCache cache(100 * kOneMiB);
  cache.keep(fake(0x1000, 40 * kOneMiB));
  cache.keep(fake(0x2000, 40 * kOneMiB));
  EXPECT_EQ(cache.set_capacity(50 * kOneMiB), 100 * kOneMiB);
  EXPECT_EQ(freed, std::vector<void*>{reinterpret_cast<void*>(0x1000)});
  EXPECT_EQ(cache.bytes_kept(), 40 * kOneMiB);
  cache.set_capacity(0);
  EXPECT_EQ(freed.size(), 2u);
  EXPECT_FALSE(cache.keep(fake(0x3000, 40 * kOneMiB)));
  EXPECT_EQ(cache.bytes_kept(), 0u);
}

TEST(CpuBlockCache, DropOldestFreesTheBlockKeptLongest) {
  freed.clear();
  CpuBlockCache cache(1024 * kOneMiB);
  cache.keep(fake(0x1000, 40 * kOneMiB));
  cache.keep(fake(0x2000, 60 * kOneMiB));
  EXPECT_TRUE(cache.drop_oldest());
  EXPECT_EQ(freed, std::vector<void*>{reinterpret_cast<void*>(0x1000)});
  EXPECT_EQ(cache.bytes_kept(), 60 * kOneMiB);
  EXPECT_TRUE(cache.drop_oldest());
  EXPECT_FALSE(cache.drop_oldest()) << "none left";
  EXPECT_EQ(freed.size(), 2u);
}

TEST(CpuMemory, ALargeTensorsMemoryServesTheNextOfItsSizeAndCountsAsFreed) {
  measure::count_cpu_allocations();
  measure::release_cached_cpu_blocks();
  const int64_t before = measure::cpu_bytes_in_use();
  const int64_t elements = int64_t{12} * 1024 * 1024;  // 48 MiB of floats
  void* first = nullptr;
  {
    torch::Tensor t = torch::full({elements}, 2.0f);
    first = t.data_ptr();
  }
  EXPECT_EQ(measure::cpu_bytes_in_use(), before);
  EXPECT_GE(measure::cached_cpu_bytes(), elements * 4);
  {
    torch::Tensor same_size = torch::empty({elements});
    EXPECT_EQ(same_size.data_ptr(), first);
    EXPECT_EQ(measure::cpu_bytes_in_use() - before, elements * 4);
    same_size.fill_(3.0f);
    EXPECT_EQ(same_size.sum().item<double>(), 3.0 * elements);
    torch::Tensor other_size = torch::empty({elements + 16});
    EXPECT_NE(other_size.data_ptr(), first);
  }
  measure::release_cached_cpu_blocks();
  EXPECT_EQ(measure::cached_cpu_bytes(), 0);
  EXPECT_EQ(measure::cpu_bytes_in_use(), before);
}

// Over the resident ceiling a freed block is not kept; a block kept under it goes back before
// a fresh one would take the process over it.
TEST(CpuMemory, TheResidentCeilingStopsKeepingAndDropsKeptBlocks) {
  measure::count_cpu_allocations();
  measure::release_cached_cpu_blocks();
  const int64_t elements = int64_t{12} * 1024 * 1024;  // 48 MiB of floats
  const int64_t half = measure::resident_memory_bytes() / 2;
  measure::keep_resident_memory_under(half);
  torch::full({elements}, 1.0f);
  EXPECT_EQ(measure::cached_cpu_bytes(), 0) << "over the ceiling: freed at once";

  EXPECT_EQ(measure::keep_resident_memory_under(0), half);
  torch::full({elements}, 1.0f);
  EXPECT_GE(measure::cached_cpu_bytes(), elements * 4) << "no ceiling: kept";
  const int64_t resident = measure::resident_memory_bytes();
  measure::keep_resident_memory_under(resident + int64_t{8} * 1024 * 1024);
  {
    torch::Tensor other_size = torch::full({elements + 1024}, 1.0f);
    EXPECT_EQ(measure::cached_cpu_bytes(), 0) << "the kept block made room for the fresh one";
    EXPECT_LT(measure::resident_memory_bytes(), resident + elements * 4);
  }
  measure::keep_resident_memory_under(0);
  measure::release_cached_cpu_blocks();
}

// The ceiling is the base and the plan with a quarter more for freed memory kept for reuse.
TEST(CpuMemory, ARunsKeptBlocksAreBoundedByItsBaseAndPlanAndReleasedAtItsEnd) {
  measure::count_cpu_allocations();
  measure::release_cached_cpu_blocks();
  {
    measure::CpuBlocksKeptForARun run;
    const int64_t base = measure::resident_memory_bytes();
    run.bound_by_plan(1024.0 * 1024 * 1024);
    const int64_t ceiling = measure::keep_resident_memory_under(0);
    EXPECT_NEAR(static_cast<double>(ceiling - base), 1.25 * 1024 * 1024 * 1024, 64.0 * 1024 * 1024);
    measure::keep_resident_memory_under(ceiling);
    torch::full({int64_t{12} * 1024 * 1024}, 1.0f);
    EXPECT_GT(measure::cached_cpu_bytes(), 0);
  }
  EXPECT_EQ(measure::cached_cpu_bytes(), 0);
  EXPECT_EQ(measure::keep_resident_memory_under(0), 0) << "the ceiling lifted";
}

}  // namespace
}  // namespace runner::machine
