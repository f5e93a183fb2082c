// RtlRunahead (sim/cosim/rtl_runahead.h) against a fake Dut whose samples are a function of the
// cycle: the engine's thread gets every cycle in order with the content the worker wrote (no slot
// reused too early, no torn sample), the worker stops exactly where the contract says (after DONE,
// before the limit, on destruction), an exception reaches the engine at its cycle, and the Dut is
// bound to the thread that runs it. The tsan preset runs these under ThreadSanitizer.
#include "sim/cosim/rtl_runahead.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace qacc::cosim {
namespace {

// A value per (cycle, field) that differs between neighbouring cycles and fields.
uint32_t Mix(int64_t cycle, uint32_t field) {
  uint64_t x = uint64_t(cycle) * 0x9E3779B97F4A7C15ull + field * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  return uint32_t(x * 0x94D049BB133111EBull >> 32);
}

class FakeDut final : public Dut {
 public:
  explicit FakeDut(int64_t done_at = -1, int64_t throw_at = -1)
      : done_at_(done_at), throw_at_(throw_at), memory_(4096, model::ExtMemoryTiming{}) {}

  const DutVariant& variant() const override { return variant_; }
  void SetReset(bool) override {}
  void PulseResetWithoutClock() override {}
  void SetApb(const ApbPins& pins) override { pins_ = pins; }
  void BindThread() override { bound_ = std::this_thread::get_id(); }

  // The fields the engine reads, first and last bytes of the wide ones included; a state the
  // engine's thread reads back after the run (as it reads SRAMs and the external memory).
  void Cycle(int64_t cycle, RtlSample& s) override {
    if (std::this_thread::get_id() != bound_) ++unbound_cycles_;
    if (cycle == throw_at_) throw std::runtime_error("fake RTL failure");
    s.prdata = Mix(cycle, 0) ^ pins_.paddr;
    s.busy = true;
    s.done = cycle == done_at_;
    s.beats[size_t(arch::BeatUnit::kMac)].valid = (cycle & 1) != 0;
    for (int j = 0; j < kMaxCols; ++j)
      s.beats[size_t(arch::BeatUnit::kMac)].lanes[j] = int32_t(Mix(cycle, 1 + uint32_t(j)));
    s.dma.wdata[0] = uint8_t(Mix(cycle, 100));
    s.dma.wdata[kMaxSramWordBytes - 1] = uint8_t(Mix(cycle, 101));
    s.axi.w_data[model::kMaxBeatBytes - 1] = uint8_t(Mix(cycle, 102));
    history_.push_back(cycle);
  }

  model::ExtMemory& ext_memory() override { return memory_; }
  const model::AxiMasterOut& axi_master() const override { return axi_; }
  int SramCopies(arch::Region) const override { return 1; }
  void ReadSram(arch::Region, int, std::vector<uint8_t>&) const override {}
  void OpenTrace(const std::string&) override {}
  void SetTracing(bool) override {}
  void CloseTrace() override {}
  void WriteCoverage(const std::string&) const override {}

  const std::vector<int64_t>& history() const { return history_; }
  int64_t unbound_cycles() const { return unbound_cycles_; }
  std::thread::id bound() const { return bound_; }

 private:
  DutVariant variant_;
  int64_t done_at_, throw_at_;
  model::ExtMemory memory_;
  model::AxiMasterOut axi_;
  ApbPins pins_;
  std::thread::id bound_ = std::this_thread::get_id();
  int64_t unbound_cycles_ = 0;
  std::vector<int64_t> history_;
};

// The sample of `cycle` as FakeDut writes it with APB address `paddr`: every field compared.
void ExpectSampleOf(int64_t cycle, uint32_t paddr, int64_t done_at, const RtlSample& s) {
  ASSERT_EQ(s.prdata, Mix(cycle, 0) ^ paddr) << "cycle " << cycle;
  ASSERT_TRUE(s.busy);
  ASSERT_EQ(s.done, cycle == done_at) << "cycle " << cycle;
  ASSERT_EQ(s.beats[size_t(arch::BeatUnit::kMac)].valid, (cycle & 1) != 0);
  for (int j = 0; j < kMaxCols; ++j) {
    ASSERT_EQ(s.beats[size_t(arch::BeatUnit::kMac)].lanes[j], int32_t(Mix(cycle, 1 + uint32_t(j))))
        << "cycle " << cycle;
  }
  ASSERT_EQ(s.dma.wdata[0], uint8_t(Mix(cycle, 100)));
  ASSERT_EQ(s.dma.wdata[kMaxSramWordBytes - 1], uint8_t(Mix(cycle, 101)));
  ASSERT_EQ(s.axi.w_data[model::kMaxBeatBytes - 1], uint8_t(Mix(cycle, 102)));
}

// Cycles first..done, in order and intact, with the engine taking them at random paces (seeded)
// so that the ring runs full and empty many times; then nothing more, and the Dut was run by the
// worker only and is bound to the engine's thread again.
TEST(RtlRunahead, EveryCycleInOrderUpToDoneThenStops) {
  constexpr int64_t kFirst = 1000, kDone = kFirst + 20000;
  FakeDut dut(kDone);
  ApbPins pins;
  pins.paddr = 0x1234;
  std::mt19937 rng(7);
  {
    RtlRunahead runahead(dut, pins, kFirst, INT64_MAX);
    RtlSample s;
    for (int64_t c = kFirst; c <= kDone; ++c) {
      if (rng() % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
      ASSERT_TRUE(runahead.Take(c, s)) << "cycle " << c;
      ExpectSampleOf(c, pins.paddr, kDone, s);
    }
    EXPECT_FALSE(runahead.Take(kDone + 1, s));
    EXPECT_EQ(runahead.produced(), kDone - kFirst + 1);
  }
  ASSERT_EQ(dut.history().size(), size_t(kDone - kFirst + 1));
  for (size_t i = 0; i < dut.history().size(); ++i)
    ASSERT_EQ(dut.history()[i], kFirst + int64_t(i));
  EXPECT_EQ(dut.unbound_cycles(), 0);
  EXPECT_EQ(dut.bound(), std::this_thread::get_id());
}

// The limit: cycles below it only, then Take says the caller goes on itself.
TEST(RtlRunahead, StopsBeforeTheLimit) {
  FakeDut dut;
  RtlRunahead runahead(dut, ApbPins{}, 5, 300);
  RtlSample s;
  for (int64_t c = 5; c < 300; ++c) ASSERT_TRUE(runahead.Take(c, s));
  EXPECT_FALSE(runahead.Take(300, s));
  EXPECT_EQ(runahead.produced(), 295);
}

// A lower limit set while the worker runs: it stops at the new limit, or where it already was
// (at most a ring ahead of the engine).
TEST(RtlRunahead, LoweredLimitStopsTheWorker) {
  FakeDut dut;
  RtlRunahead runahead(dut, ApbPins{}, 0, INT64_MAX);
  RtlSample s;
  for (int64_t c = 0; c < 10; ++c) ASSERT_TRUE(runahead.Take(c, s));
  runahead.SetLimit(20);
  int64_t c = 10;
  while (runahead.Take(c, s)) ExpectSampleOf(c++, 0, -1, s);
  EXPECT_GE(c, 20);
  EXPECT_LE(c, 10 + RtlRunahead::kSlots);
  EXPECT_EQ(c, runahead.produced());
}

// Destroyed while the worker waits on a full ring, or runs: it stops and is joined.
TEST(RtlRunahead, DestructionStopsAWaitingWorker) {
  FakeDut dut;
  { RtlRunahead runahead(dut, ApbPins{}, 0, INT64_MAX); }
  {
    RtlRunahead runahead(dut, ApbPins{}, 0, INT64_MAX);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (runahead.produced() < RtlRunahead::kSlots &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(runahead.produced(), RtlRunahead::kSlots);  // the ring is full; the worker waits
  }
  EXPECT_EQ(dut.bound(), std::this_thread::get_id());
}

// What Dut::Cycle throws on the worker is thrown by Take of that cycle, after the cycles before it.
TEST(RtlRunahead, ExceptionReachesTheEngineAtItsCycle) {
  FakeDut dut(-1, 150);
  RtlRunahead runahead(dut, ApbPins{}, 100, INT64_MAX);
  RtlSample s;
  for (int64_t c = 100; c < 150; ++c) ASSERT_TRUE(runahead.Take(c, s));
  EXPECT_THROW(runahead.Take(150, s), std::runtime_error);
}

TEST(RtlRunahead, CyclesOutOfOrderAreALogicError) {
  FakeDut dut(3);
  RtlRunahead runahead(dut, ApbPins{}, 0, INT64_MAX);
  RtlSample s;
  EXPECT_THROW(runahead.Take(1, s), std::logic_error);
}

}  // namespace
}  // namespace qacc::cosim
