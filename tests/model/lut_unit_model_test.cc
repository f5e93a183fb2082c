// The model's LUT unit (model/lut_unit_model.h, docs/lut.md 10.4) on a table SRAM loaded through
// the host window, against the table layout of lut.md 10.1 written out here (entry e of slot s at
// window byte 512 s + 2 e, little-endian; the code's low LUT_IN_BITS bits address the slot; 8-bit
// entries are the low byte): every slot, input width and entry width, every code of an int8 requant
// output.
#include "model/lut_unit_model.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "model/arch.h"
#include "model/srams.h"

namespace qacc::model {
namespace {

arch::ArchConfig Config(int cols, int slots) {
  arch::ArchConfig c;
  c.cols = cols;
  c.lut_slots = slots;
  return c;
}

// Fills the LUT table window with random bytes through 32-bit host writes; returns the bytes.
std::vector<uint8_t> LoadRandomTables(Srams& srams, std::mt19937& rng) {
  std::vector<uint8_t> bytes(srams.WindowBytes(arch::Region::kLut));
  for (uint32_t off = 0; off < bytes.size(); off += 4) {
    const uint32_t word = rng();
    srams.HostWrite(arch::Region::kLut, off, word, 0xF);
    for (int b = 0; b < 4; ++b) bytes[off + b] = static_cast<uint8_t>(word >> (8 * b));
  }
  return bytes;
}

int32_t Expected(const std::vector<uint8_t>& window, uint32_t slot, uint32_t in_bits,
                 uint32_t entry_bits, int32_t code) {
  const uint32_t address = static_cast<uint32_t>(code) & ((1u << in_bits) - 1);
  const size_t byte = 512 * size_t{slot} + 2 * size_t{address};
  const uint32_t entry = window[byte] | uint32_t{window[byte + 1]} << 8;
  return static_cast<int32_t>(entry_bits == 16 ? entry : entry & 0xFF);
}

TEST(LutUnitModel, EveryCodeOfEverySlotWidthAndEntryWidth) {
  std::mt19937 rng(4);
  for (const auto& [cols, slots] : {std::pair{8, 4}, std::pair{4, 3}, std::pair{16, 1}}) {
    const arch::ArchConfig config = Config(cols, slots);
    Srams srams(config);
    ASSERT_EQ(srams.WindowBytes(arch::Region::kLut), uint32_t(512 * slots));
    const std::vector<uint8_t> window = LoadRandomTables(srams, rng);
    for (uint32_t slot = 0; slot < uint32_t(slots); ++slot) {
      for (uint32_t in_bits = 2; in_bits <= 8; ++in_bits) {
        for (uint32_t entry_bits : {8u, 16u}) {
          const LutUnitModel model(cols, golden::LutFields{slot, in_bits, entry_bits}, srams);
          // Every int8 code, each in a different lane from beat to beat.
          for (int32_t first = -128; first < 128; first += cols) {
            std::vector<int32_t> in(cols), out(cols, -1);
            for (int c = 0; c < cols; ++c) in[c] = first + (c + first + 128) % cols;
            ASSERT_EQ(model.ComputeBeat(0, ~uint64_t{0}, in.data(), out.data()), ~uint64_t{0});
            for (int c = 0; c < cols; ++c) {
              ASSERT_EQ(out[c], Expected(window, slot, in_bits, entry_bits, in[c]))
                  << "C " << cols << " slot " << slot << " in_bits " << in_bits << " entry_bits "
                  << entry_bits << " code " << in[c];
            }
          }
        }
      }
    }
  }
}

TEST(LutUnitModel, UnknownLanesStayUnknownAndReadZero) {
  std::mt19937 rng(5);
  const arch::ArchConfig config = Config(8, 4);
  Srams srams(config);
  const std::vector<uint8_t> window = LoadRandomTables(srams, rng);
  const LutUnitModel model(8, golden::LutFields{2, 8, 16}, srams);
  const uint64_t known = 0b10110010;
  std::vector<int32_t> in = {-128, -1, 0, 1, 5, 64, 127, -77}, out(8, -1);
  EXPECT_EQ(model.ComputeBeat(0, known, in.data(), out.data()), known);
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(out[c], (known >> c) & 1 ? Expected(window, 2, 8, 16, in[c]) : 0) << c;
  }
}

}  // namespace
}  // namespace qacc::model
