// golden::MemoryImage against a std::vector<uint8_t> holding the same bytes: every access, copy and
// comparison must give what the flat vector gives, whichever pages are marked.
#include "golden/memory_image.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace qacc::golden {
namespace {

constexpr uint64_t kPage = MemoryImage::kPageBytes;

// The oracle's answer to FirstDifference.
std::optional<uint64_t> FlatFirstDifference(const std::vector<uint8_t>& a,
                                            const std::vector<uint8_t>& b, uint64_t* count) {
  std::optional<uint64_t> first;
  *count = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] == b[i]) continue;
    if (!first) first = i;
    ++*count;
  }
  if (a.size() != b.size()) {
    if (!first) first = std::min(a.size(), b.size());
    *count += std::max(a.size(), b.size()) - std::min(a.size(), b.size());
  }
  return first;
}

void ExpectHolds(const MemoryImage& image, const std::vector<uint8_t>& flat) {
  ASSERT_EQ(image.size(), flat.size());
  for (size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(image[i], flat[i]) << "byte " << i;
}

TEST(MemoryImage, StartsZeroAndUnmarked) {
  const MemoryImage image(3 * kPage + 5);
  EXPECT_EQ(image.size(), 3 * kPage + 5);
  EXPECT_EQ(image.marked_pages(), 0u);
  ExpectHolds(image, std::vector<uint8_t>(3 * kPage + 5, 0));
  EXPECT_TRUE(image == MemoryImage(3 * kPage + 5));
  EXPECT_TRUE(MemoryImage().empty());
  EXPECT_EQ(MemoryImage().data(), nullptr);
}

TEST(MemoryImage, WritesMarkEveryPageTheyReachAndReadsMarkNone) {
  MemoryImage image(8 * kPage);
  const std::vector<uint8_t> bytes = {1, 2, 3};
  image.Write(2 * kPage - 1, bytes);  // pages 1 and 2
  EXPECT_EQ(image.marked_pages(), 2u);
  const MemoryImage& read = image;
  EXPECT_EQ(read[2 * kPage + 1], 3);
  EXPECT_EQ(read.at(7 * kPage), 0);
  EXPECT_EQ(read.Bytes(2 * kPage - 1, 3), bytes);
  EXPECT_EQ(image.marked_pages(), 2u);
  image[5 * kPage] = 9;
  image.Span(7 * kPage - 2, 4)[0] = 7;  // pages 6 and 7
  EXPECT_EQ(image.marked_pages(), 5u);
  image.Fill(0);
  EXPECT_EQ(image.marked_pages(), 8u);
  EXPECT_TRUE(image == MemoryImage(8 * kPage)) << "marked zero pages equal unmarked ones";
}

TEST(MemoryImage, CheckedAccessesNameTheOffsetAndTheSize) {
  MemoryImage image(100);
  EXPECT_THROW(image.at(100), std::out_of_range);
  EXPECT_THROW(std::as_const(image).at(100), std::out_of_range);
  EXPECT_THROW(image.Bytes(99, 2), std::out_of_range);
  EXPECT_THROW(image.Write(98, std::vector<uint8_t>(3, 1)), std::out_of_range);
  try {
    image.Write(98, std::vector<uint8_t>(3, 1));
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "memory image: write of 3 bytes at 98 past its 100");
  }
  image.Write(100, nullptr, 0);  // empty, at the end: allowed
  EXPECT_EQ(image.marked_pages(), 0u);
}

TEST(MemoryImage, MoveLeavesTheSourceEmpty) {
  MemoryImage a(kPage);
  a[10] = 4;
  MemoryImage b(std::move(a));
  EXPECT_EQ(b[10], 4);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  a = std::move(b);
  EXPECT_EQ(a[10], 4);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
}

TEST(MemoryImage, SizesThatDifferNeverCompareEqual) {
  MemoryImage a(kPage), b(kPage + 1);
  EXPECT_FALSE(a == b);
  uint64_t count = 0;
  EXPECT_EQ(FirstDifference(a, b, &count), std::optional<uint64_t>(kPage));
  EXPECT_EQ(count, 1u);
}

// Random writes of every kind on an image and on the flat oracle, random copies and compares, over
// sizes that end inside a page and on a page boundary.
TEST(MemoryImage, RandomAccessesMatchAFlatVector) {
  std::mt19937_64 rng(2026);
  auto pick = [&rng](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  for (const uint64_t size :
       {uint64_t{1}, kPage - 1, kPage, 5 * kPage + 17, 64 * kPage, 70 * kPage + 3}) {
    MemoryImage image(size), other(size);
    std::vector<uint8_t> flat(size, 0), other_flat(size, 0);
    for (int step = 0; step < 400; ++step) {
      const uint64_t at = pick(0, size - 1);
      const uint64_t n = pick(1, std::min<uint64_t>(size - at, 2 * kPage + 3));
      switch (pick(0, 5)) {
        case 0: {  // Write
          std::vector<uint8_t> bytes(n);
          for (uint8_t& b : bytes) b = uint8_t(pick(0, 255));
          image.Write(at, bytes);
          std::copy(bytes.begin(), bytes.end(), flat.begin() + long(at));
          break;
        }
        case 1:  // one byte, sometimes zero (a marked page equal to an unmarked one)
          flat[at] = uint8_t(pick(0, 1) * pick(0, 255));
          image[at] = flat[at];
          break;
        case 2: {  // Span
          uint8_t* span = image.Span(at, n);
          for (uint64_t i = 0; i < n; ++i) span[i] = flat[at + i] = uint8_t(pick(0, 255));
          break;
        }
        case 3:  // the same byte into the other image, so that the two converge at places
          other[at] = flat[at];
          other_flat[at] = flat[at];
          break;
        case 4:  // a copy: the other image becomes this one
          if (pick(0, 20) == 0) {
            other = image;
            other_flat = flat;
          }
          break;
        default: {  // compare the two with the oracle
          uint64_t count = 0, flat_count = 0;
          const std::optional<uint64_t> first = FirstDifference(image, other, &count);
          ASSERT_EQ(first, FlatFirstDifference(flat, other_flat, &flat_count)) << step;
          ASSERT_EQ(count, flat_count) << step;
          ASSERT_EQ(image == other, flat == other_flat) << step;
          break;
        }
      }
    }
    ExpectHolds(image, flat);
    ExpectHolds(other, other_flat);
    const MemoryImage copy = image;
    ExpectHolds(copy, flat);
    EXPECT_EQ(copy.marked_pages(), image.marked_pages());
    EXPECT_TRUE(copy == image);
  }
}

TEST(MemoryImage, ALargeImageCostsOnlyWhatIsWritten) {
  MemoryImage image(uint64_t{4} << 30);  // the largest external memory of a config
  image[(uint64_t{4} << 30) - 1] = 1;
  image[0] = 2;
  const MemoryImage copy = image;
  EXPECT_EQ(copy.marked_pages(), 2u);
  EXPECT_TRUE(copy == image);
  uint64_t count = 0;
  MemoryImage changed = image;
  changed[uint64_t{3} << 30] = 5;
  EXPECT_EQ(FirstDifference(image, changed, &count), std::optional<uint64_t>(uint64_t{3} << 30));
  EXPECT_EQ(count, 1u);
}

}  // namespace
}  // namespace qacc::golden
