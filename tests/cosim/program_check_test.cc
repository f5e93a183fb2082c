// The end-of-program comparison of the RTL's and the model's external memory images
// (sim/cosim/program_check.h): it visits only the pages either image wrote (golden::MemoryImage),
// so a difference anywhere in the 16 MiB must still be found, named and counted.
#include "sim/cosim/program_check.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "golden/memory_image.h"
#include "model/arch.h"
#include "sim/cosim/scoreboard.h"

namespace qacc::cosim {
namespace {

constexpr uint64_t kSize = uint64_t{16} << 20;  // the default config's ext_mem.size_bytes

struct Fixture {
  arch::ArchConfig config;
  Scoreboard scoreboard{config};
  golden::MemoryImage rtl{kSize}, model{kSize};

  Fixture() {
    rtl.Write(0x1000, std::vector<uint8_t>(300, 0x5A));  // a program's tensors, on both sides
    model = rtl;
  }
  int64_t Compare() {
    CompareExtImages(rtl, model, 1234, 2, scoreboard);
    return scoreboard.count(CheckUnit::kExtMem);
  }
};

TEST(CompareExtImages, EqualImagesRecordNothing) {
  Fixture f;
  f.rtl[0x2000] = 0;  // a page marked on one side only, still all zero
  EXPECT_EQ(f.Compare(), 0);
}

TEST(CompareExtImages, AByteOnAPageOnlyTheRtlWroteIsFound) {
  Fixture f;
  f.rtl[0xABCDE] = 0x01;
  ASSERT_EQ(f.Compare(), 1);
  const Mismatch& m = *f.scoreboard.first();
  EXPECT_EQ(m.what, "external memory image: 1 bytes differ, the first at 0xabcde");
  EXPECT_EQ(m.expected, "0x00");  // the model's byte
  EXPECT_EQ(m.actual, "0x01");
  EXPECT_EQ(m.cycle, 1234);
  EXPECT_EQ(m.command, 2);
}

TEST(CompareExtImages, BytesOnPagesOnlyTheModelWroteAreCountedInOrder) {
  Fixture f;
  f.model[kSize - 1] = 0x80;  // the last byte
  f.model[0x1001] = 0x00;     // inside the shared tensor
  ASSERT_EQ(f.Compare(), 1);
  const Mismatch& m = *f.scoreboard.first();
  EXPECT_EQ(m.what, "external memory image: 2 bytes differ, the first at 0x1001");
  EXPECT_EQ(m.expected, "0x00");
  EXPECT_EQ(m.actual, "0x5a");
}

}  // namespace
}  // namespace qacc::cosim
