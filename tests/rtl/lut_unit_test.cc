// qacc_lut_unit (Verilated) against golden's LutRead (golden/lut_unit.h, docs/lut.md 10): the table
// SRAM written and read through its window port against a byte image kept here, and every lookup
// beat's entries, row and last flag checked in the cycle it is due, LUT_LATENCY cycles after it
// entered. Built at three (lanes, slots) points: the default, the fewest lanes with the most slots,
// the most lanes with one slot.
#include "golden/lut_unit.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "spec/arch_spec.h"
#include "tests/rtl/rtl_test_util.h"
#include "verilated.h"
#include QACC_VL_LUT_H

namespace qacc {
namespace {

using rtl_test::GetBits;
using rtl_test::MismatchLog;
using rtl_test::SetBits;

constexpr int kCols = QACC_LUT_COLS;
constexpr int kSlots = QACC_LUT_SLOTS;
constexpr int kRows = 8;
constexpr int kLatency = arch::kLutLatency;
constexpr int kWordBytes = arch::kLutWordEntries * arch::kLutEntryBytes;
constexpr int kDepth = arch::kLutSlotWords * kSlots;

// One lookup beat: the codes of the lanes and the fields of its command.
struct Beat {
  std::vector<uint8_t> codes;
  golden::LutFields fields;
  int row = 0;
  bool last = false;
};

class LutBench {
 public:
  LutBench() {
    dut_->rst_ni = 0;
    Idle();
    for (int i = 0; i < 2; ++i) Cycle();
    dut_->rst_ni = 1;
    Cycle();
  }
  ~LutBench() { dut_->final(); }

  const std::vector<uint8_t>& image() const { return image_; }

  // One window write of word `word` with byte enables `be`, and the image kept here.
  void Write(int word, uint32_t be, const std::vector<uint8_t>& bytes) {
    Idle();
    dut_->we_i = 1;
    dut_->waddr_i = static_cast<uint32_t>(word);
    dut_->be_i = be;
    for (int b = 0; b < kWordBytes; ++b) {
      SetBits(dut_->wdata_i, 8 * b, 8, bytes[b]);
      if ((be >> b) & 1) image_[word * kWordBytes + b] = bytes[b];
    }
    Cycle();
  }

  // One window read; its data is checked against the image in the next cycle.
  void Read(int word) {
    Idle();
    dut_->re_i = 1;
    dut_->raddr_i = static_cast<uint32_t>(word);
    const auto first = image_.begin() + word * kWordBytes;
    reads_due_.push_back({cycle_ + 1, word, std::vector<uint8_t>(first, first + kWordBytes)});
    Cycle();
  }

  // Presents `beat` (a bubble when null) for one cycle. The fields stay as the last beat set them,
  // as the top's unit_cfg_q holds a command's; new fields wait until the beats of the old ones have
  // left (the unit's Config_A), as a command starts after the one before it completed.
  void Step(const Beat* beat) {
    Idle();
    if (beat != nullptr) {
      if (!due_.empty() && !SameFields(beat->fields, fields_)) {
        while (!due_.empty()) Step(nullptr);
      }
      fields_ = beat->fields;
      dut_->in_valid_i = 1;
      dut_->in_row_i = static_cast<uint32_t>(beat->row);
      dut_->in_last_i = beat->last;
      dut_->slot_i = beat->fields.slot;
      dut_->in_bits_i = beat->fields.in_bits;
      dut_->entry16_i = beat->fields.entry_bits == 16;
      for (int c = 0; c < kCols; ++c) SetBits(dut_->in_code_i, 8 * c, 8, beat->codes[c]);
      Due due{cycle_ + kLatency, beat->row, beat->last, {}};
      for (int c = 0; c < kCols; ++c) {
        due.entries.push_back(golden::LutRead(image_, beat->fields, beat->codes[c]));
      }
      due_.push_back(due);
    }
    Cycle();
  }

  void Drain() {
    for (int i = 0; i <= kLatency; ++i) Step(nullptr);
    if (!due_.empty())
      mismatches_.Add(fmt::format("beat due at {} never came", due_.front().cycle));
  }

  uint64_t beats() const { return beats_; }
  uint64_t reads() const { return reads_; }
  const MismatchLog& mismatches() const { return mismatches_; }

 private:
  struct Due {
    uint64_t cycle;
    int row;
    bool last;
    std::vector<uint32_t> entries;
  };

  static bool SameFields(const golden::LutFields& a, const golden::LutFields& b) {
    return a.slot == b.slot && a.in_bits == b.in_bits && a.entry_bits == b.entry_bits;
  }

  void Idle() {
    dut_->we_i = 0;
    dut_->re_i = 0;
    dut_->in_valid_i = 0;
  }

  // Outputs are sampled after the inputs of cycle_ settle, before the rising edge that ends it.
  void Cycle() {
    dut_->clk_i = 0;
    dut_->eval();
    Check();
    dut_->clk_i = 1;
    dut_->eval();
    ++cycle_;
  }

  void Check() {
    const bool want = !due_.empty() && due_.front().cycle == cycle_;
    if (dut_->out_valid_o != want) {
      mismatches_.Add(
          fmt::format("cycle {}: out_valid_o {} expected {}", cycle_, dut_->out_valid_o, want));
    }
    if (want) {
      const Due& due = due_.front();
      if (dut_->out_row_o != static_cast<uint32_t>(due.row) || dut_->out_last_o != due.last) {
        mismatches_.Add(fmt::format("cycle {}: row/last {}/{} expected {}/{}", cycle_,
                                    dut_->out_row_o, dut_->out_last_o, due.row, due.last));
      }
      for (int c = 0; c < kCols; ++c) {
        const auto got = static_cast<uint32_t>(GetBits(dut_->out_entry_o, 16 * c, 16));
        if (got != due.entries[c]) {
          mismatches_.Add(fmt::format("cycle {} lane {}: entry {:#x} expected {:#x}", cycle_, c,
                                      got, due.entries[c]));
        }
      }
      ++beats_;
      due_.pop_front();
    }
    if (!reads_due_.empty() && reads_due_.front().cycle == cycle_) {
      const ReadDue& read = reads_due_.front();
      for (int b = 0; b < kWordBytes; ++b) {
        const auto got = static_cast<uint8_t>(GetBits(dut_->rdata_o, 8 * b, 8));
        const uint8_t expected = read.bytes[b];
        if (got != expected) {
          mismatches_.Add(fmt::format("cycle {}: word {} byte {} read {:#x} expected {:#x}", cycle_,
                                      read.word, b, got, expected));
        }
      }
      ++reads_;
      reads_due_.pop_front();
    }
  }

  // A window read and the word as it was when read (a write in the next cycle changes the image).
  struct ReadDue {
    uint64_t cycle = 0;
    int word = 0;
    std::vector<uint8_t> bytes;
  };

  std::unique_ptr<VerilatedContext> context_ = std::make_unique<VerilatedContext>();
  std::unique_ptr<QACC_VL_LUT> dut_ = std::make_unique<QACC_VL_LUT>(context_.get());
  // The table SRAM's window image; the RTL's memory is not reset (spec 10), so the test writes
  // every word first.
  std::vector<uint8_t> image_ = std::vector<uint8_t>(kDepth * kWordBytes, 0);
  std::deque<Due> due_;
  golden::LutFields fields_;
  std::deque<ReadDue> reads_due_;
  uint64_t cycle_ = 0;
  uint64_t beats_ = 0;
  uint64_t reads_ = 0;
  MismatchLog mismatches_;
};

void ExpectClean(const LutBench& bench) {
  EXPECT_EQ(bench.mismatches().count(), 0u) << "first mismatch: " << bench.mismatches().first();
}

std::vector<uint8_t> RandomWord(std::mt19937& rng) {
  std::vector<uint8_t> bytes(kWordBytes);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// Every word written whole, then again under random byte enables, and read back.
void FillRandom(LutBench& bench, std::mt19937& rng) {
  for (int w = 0; w < kDepth; ++w) bench.Write(w, (1u << kWordBytes) - 1, RandomWord(rng));
  for (int w = 0; w < kDepth; ++w)
    bench.Write(w, rng() & ((1u << kWordBytes) - 1), RandomWord(rng));
}

TEST(LutUnitRtl, WindowWritesUnderByteEnablesReadBack) {
  LutBench bench;
  std::mt19937 rng(1);
  FillRandom(bench, rng);
  for (int w = 0; w < kDepth; ++w) bench.Read(w);
  bench.Drain();
  ExpectClean(bench);
  EXPECT_EQ(bench.reads(), static_cast<uint64_t>(kDepth));
}

// Every code through every lane (so every copy and both its ports), at every slot, input width and
// entry width, beats back to back with the row counting and the last beat flagged.
TEST(LutUnitRtl, EveryCodeThroughEveryLaneOfEverySlot) {
  LutBench bench;
  std::mt19937 rng(2);
  FillRandom(bench, rng);
  uint64_t expected = 0;
  for (uint32_t slot = 0; slot < kSlots; ++slot) {
    for (uint32_t in_bits = arch::kLutMinInBits; in_bits <= arch::kLutMaxInBits; ++in_bits) {
      for (uint32_t entry_bits : {8u, 16u}) {
        for (int base = 0; base < 256; ++base) {
          Beat beat{
              std::vector<uint8_t>(kCols), {slot, in_bits, entry_bits}, base % kRows, base == 255};
          for (int c = 0; c < kCols; ++c) beat.codes[c] = static_cast<uint8_t>(base + 37 * c);
          bench.Step(&beat);
          ++expected;
        }
      }
    }
  }
  bench.Drain();
  ExpectClean(bench);
  EXPECT_EQ(bench.beats(), expected);
}

// Commands of random fields and beats with random gaps, the tables rewritten and read between
// commands.
TEST(LutUnitRtl, RandomCommandsBetweenTableWrites) {
  LutBench bench;
  std::mt19937 rng(3);
  FillRandom(bench, rng);
  uint64_t expected = 0;
  for (int command = 0; command < 300; ++command) {
    const golden::LutFields fields{static_cast<uint32_t>(rng() % kSlots),
                                   arch::kLutMinInBits + static_cast<uint32_t>(rng() % 7),
                                   rng() % 2 ? 16u : 8u};
    const int beats = 1 + static_cast<int>(rng() % 24);
    for (int i = 0; i < beats; ++i) {
      Beat beat{std::vector<uint8_t>(kCols), fields, i % kRows, i == beats - 1};
      for (auto& code : beat.codes) code = static_cast<uint8_t>(rng());
      bench.Step(&beat);
      ++expected;
      if (rng() % 4 == 0) bench.Step(nullptr);
    }
    // The DMA's port sharing: window accesses only once the last lookup has read (asserted by
    // PortA_A).
    bench.Step(nullptr);
    for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
      const int word = static_cast<int>(rng() % kDepth);
      if (rng() % 2) {
        bench.Write(word, rng() & ((1u << kWordBytes) - 1), RandomWord(rng));
      } else {
        bench.Read(word);
      }
    }
  }
  bench.Drain();
  ExpectClean(bench);
  EXPECT_EQ(bench.beats(), expected);
}

}  // namespace
}  // namespace qacc
