// The testbench memory's slave timing and contents (docs/data_movement.md 15.2). Expected cycles
// are worked out by hand from the spec's rules, not by the class.
#include "model/ext_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <vector>

namespace qacc::model {
namespace {

struct Seen {
  std::vector<uint64_t> r_cycles, w_cycles, b_cycles;
  std::vector<uint8_t> r_resp, b_resp;
  std::vector<bool> r_last;
  std::vector<Beat> r_data;
};

// Runs `cycles` cycles; `drive(cycle, out)` gives the master's outputs of a cycle.
template <typename Drive>
Seen RunCycles(ExtMemory& mem, uint64_t cycles, Drive drive) {
  Seen seen;
  for (uint64_t c = 0; c < cycles; ++c) {
    const AxiSlaveOut s = mem.Outputs();
    AxiMasterOut m = drive(mem.cycle(), s);
    if (s.r_valid) {
      seen.r_cycles.push_back(mem.cycle());
      seen.r_resp.push_back(s.r_resp);
      seen.r_last.push_back(s.r_last);
      seen.r_data.push_back(s.r_data);
    }
    if (m.w_valid && s.w_ready) seen.w_cycles.push_back(mem.cycle());
    if (s.b_valid) {
      seen.b_cycles.push_back(mem.cycle());
      seen.b_resp.push_back(s.b_resp);
    }
    mem.Commit(m);
  }
  return seen;
}

TEST(ExtMemory, ReadBurstLatencyAndInterval) {
  ExtMemory mem(1 << 16, {16, 5, 2});
  for (int i = 0; i < 64; ++i) mem.image()[0x100 + i] = uint8_t(i + 1);
  const Seen seen = RunCycles(mem, 20, [](uint64_t c, const AxiSlaveOut&) {
    AxiMasterOut m;
    m.ar_valid = c == 0;
    m.ar_addr = 0x100;
    m.ar_len = 3;
    return m;
  });
  // First beat at a + Lm = 5, then every Iv = 2 cycles.
  EXPECT_EQ(seen.r_cycles, (std::vector<uint64_t>{5, 7, 9, 11}));
  EXPECT_EQ(seen.r_last, (std::vector<bool>{false, false, false, true}));
  for (int beat = 0; beat < 4; ++beat) {
    for (int j = 0; j < 16; ++j) EXPECT_EQ(seen.r_data[beat][j], uint8_t(beat * 16 + j + 1));
    EXPECT_EQ(seen.r_resp[beat], kAxiOkay);
  }
  EXPECT_TRUE(mem.violation().empty());
  EXPECT_TRUE(mem.Quiet());
}

TEST(ExtMemory, BackToBackReadsShareOneStream) {
  ExtMemory mem(1 << 16, {8, 3, 1});
  const Seen seen = RunCycles(mem, 20, [](uint64_t c, const AxiSlaveOut&) {
    AxiMasterOut m;
    m.ar_valid = c <= 1;
    m.ar_addr = c == 0 ? 0 : 64;
    m.ar_len = 1;
    return m;
  });
  // Burst 0 at 0: beats 3, 4. Burst 1 at 1: max(1 + 3, 4 + 1) = 5, then 6.
  EXPECT_EQ(seen.r_cycles, (std::vector<uint64_t>{3, 4, 5, 6}));
  // A late request waits for its latency, not for the stream: accepted at 10 -> 13.
  ExtMemory late(1 << 16, {8, 3, 4});
  const Seen s2 = RunCycles(late, 30, [](uint64_t c, const AxiSlaveOut&) {
    AxiMasterOut m;
    m.ar_valid = c == 0 || c == 10;
    m.ar_len = 0;
    return m;
  });
  // Beat at 3; the second: max(10 + 3, 3 + 4) = 13.
  EXPECT_EQ(s2.r_cycles, (std::vector<uint64_t>{3, 13}));
}

TEST(ExtMemory, WritesNeedAnEarlierAddressAndKeepTheInterval) {
  ExtMemory mem(1 << 16, {16, 4, 2});
  int sent = 0;
  const Seen seen = RunCycles(mem, 30, [&](uint64_t c, const AxiSlaveOut& s) {
    AxiMasterOut m;
    m.aw_valid = c == 0;
    m.aw_addr = 0x40;
    m.aw_len = 2;
    m.w_valid = sent < 3;
    m.w_last = sent == 2;
    m.w_strb = sent == 1 ? 0x00FF : 0xFFFF;  // beat 1: low 8 bytes only
    for (int j = 0; j < 16; ++j) m.w_data[j] = uint8_t(0xA0 + sent);
    if (m.w_valid && s.w_ready) ++sent;
    return m;
  });
  // Address at 0: no beat at 0; beats at 1, 3, 5; response at 5 + Lm = 9.
  EXPECT_EQ(seen.w_cycles, (std::vector<uint64_t>{1, 3, 5}));
  EXPECT_EQ(seen.b_cycles, (std::vector<uint64_t>{9}));
  EXPECT_EQ(seen.b_resp, (std::vector<uint8_t>{kAxiOkay}));
  EXPECT_EQ(mem.image()[0x40], 0xA0);
  EXPECT_EQ(mem.image()[0x50 + 7], 0xA1);
  EXPECT_EQ(mem.image()[0x50 + 8], 0x00);  // strobe off
  EXPECT_EQ(mem.image()[0x6F], 0xA2);
  EXPECT_TRUE(mem.violation().empty()) << mem.violation();
}

TEST(ExtMemory, ResponsesInOrderOnePerCycle) {
  ExtMemory mem(1 << 16, {8, 10, 1});
  int sent = 0;
  const Seen seen = RunCycles(mem, 40, [&](uint64_t c, const AxiSlaveOut& s) {
    AxiMasterOut m;
    m.aw_valid = c <= 1;  // two one-beat bursts
    m.aw_addr = uint32_t(c) * 8;
    m.w_valid = sent < 2;
    m.w_last = true;
    m.w_strb = 0xFF;
    if (m.w_valid && s.w_ready) ++sent;
    return m;
  });
  // Beats at 1 and 2; responses at max(1 + 10) = 11 and max(2 + 10, 12) = 12.
  EXPECT_EQ(seen.w_cycles, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(seen.b_cycles, (std::vector<uint64_t>{11, 12}));
}

TEST(ExtMemory, AccessesBeyondTheSizeAnswerSlvErr) {
  ExtMemory mem(4096, {16, 2, 1});
  mem.image().Fill(0x5A);
  int sent = 0;
  const Seen seen = RunCycles(mem, 30, [&](uint64_t c, const AxiSlaveOut& s) {
    AxiMasterOut m;
    m.ar_valid = c == 0;
    m.ar_addr = 4096;  // the first byte past the end
    m.aw_valid = c == 0;
    m.aw_addr = 4096 - 16;  // two beats, the second past the end: the whole burst fails
    m.aw_len = 1;
    m.w_valid = sent < 2;
    m.w_last = sent == 1;
    m.w_strb = 0xFFFF;
    if (m.w_valid && s.w_ready) ++sent;
    return m;
  });
  ASSERT_EQ(seen.r_resp.size(), 1u);
  EXPECT_EQ(seen.r_resp[0], kAxiSlvErr);
  EXPECT_EQ(seen.r_data[0][0], 0);
  ASSERT_EQ(seen.b_resp.size(), 1u);
  EXPECT_EQ(seen.b_resp[0], kAxiSlvErr);
  EXPECT_EQ(mem.image()[4096 - 16], 0x5A);  // nothing written
}

TEST(ExtMemory, ProtocolViolationsAreRecorded) {
  {
    ExtMemory mem(1 << 16, {16, 2, 1});
    AxiMasterOut m;
    m.ar_valid = true;
    m.ar_addr = 8;  // not a multiple of 16
    mem.Commit(m);
    EXPECT_NE(mem.violation().find("not aligned"), std::string::npos) << mem.violation();
  }
  {
    ExtMemory mem(1 << 16, {16, 2, 1});
    AxiMasterOut m;
    m.ar_valid = true;
    m.ar_addr = 4096 - 32;
    m.ar_len = 3;  // 64 bytes across 4096
    mem.Commit(m);
    EXPECT_NE(mem.violation().find("4 KiB"), std::string::npos) << mem.violation();
  }
  {
    ExtMemory mem(1 << 16, {16, 2, 1});
    AxiMasterOut m;
    m.w_valid = true;
    mem.Commit(m);
    EXPECT_NE(mem.violation().find("without"), std::string::npos) << mem.violation();
  }
  {
    ExtMemory mem(1 << 16, {16, 1, 1});
    AxiMasterOut m;
    m.ar_valid = true;
    mem.Commit(m);
    AxiMasterOut idle;
    idle.r_ready = false;
    mem.Commit(idle);  // the beat is due at 1
    EXPECT_NE(mem.violation().find("r_ready"), std::string::npos) << mem.violation();
  }
}

// Idle() skips cycles exactly as a Commit per cycle would.
// The stall rule of 15.2, written from the spec's formula: channel ch stalls in cycle t when
// mix64(seed * 0x9E3779B97F4A7C15 + 4t + ch) mod 100 < g.
bool SpecStalls(uint64_t seed, uint64_t t, int ch, int g) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + 4 * t + uint64_t(ch);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) % 100 < uint64_t(g);
}

TEST(ExtMemory, ReadyGapsFollowTheSpecAndHoldAddresses) {
  ExtMemoryTiming timing{16, 5, 1};
  timing.ready_gaps = 30;
  timing.gap_seed = 7;
  ExtMemory mem(1 << 16, timing);
  int stalls[3] = {};
  uint64_t accepted = 0;
  bool pending = true;  // one read address, held from cycle 0 until its handshake
  const Seen seen = RunCycles(mem, 3000, [&](uint64_t c, const AxiSlaveOut& s) {
    EXPECT_EQ(s.ar_ready, !SpecStalls(7, c, 0, 30)) << "cycle " << c;
    EXPECT_EQ(s.aw_ready, !SpecStalls(7, c, 1, 30)) << "cycle " << c;
    stalls[0] += !s.ar_ready;
    stalls[1] += !s.aw_ready;
    stalls[2] += SpecStalls(7, c, 2, 30);
    AxiMasterOut m;
    m.ar_valid = pending;
    m.ar_addr = 0x100;
    if (pending && s.ar_ready) {
      accepted = c;
      pending = false;
    }
    return m;
  });
  for (int n : stalls) {  // about 30 % of 3000 cycles each
    EXPECT_GT(n, 800);
    EXPECT_LT(n, 1000);
  }
  // The refused cycles issued nothing: one burst, its beat Lm after the handshake.
  EXPECT_EQ(seen.r_cycles, (std::vector<uint64_t>{accepted + 5}));
  EXPECT_TRUE(mem.violation().empty());
  // Another seed, another pattern; no gaps, no stall.
  timing.gap_seed = 8;
  ExtMemory other(1 << 16, timing);
  timing.ready_gaps = 0;
  ExtMemory steady(1 << 16, timing);
  int differ = 0;
  for (int c = 0; c < 100; ++c) {
    differ += other.Outputs().ar_ready != !SpecStalls(7, uint64_t(c), 0, 30);
    EXPECT_TRUE(steady.Outputs().ar_ready && steady.Outputs().aw_ready);
    other.Commit(AxiMasterOut{});
    steady.Commit(AxiMasterOut{});
  }
  EXPECT_GT(differ, 10);
}

TEST(ExtMemory, WriteReadyStallsWithTheWriteDataChannel) {
  ExtMemoryTiming timing{16, 3, 1};
  timing.ready_gaps = 50;
  timing.gap_seed = 3;
  ExtMemory mem(1 << 16, timing);
  int beats = 0;
  bool address_accepted = false;
  const Seen seen = RunCycles(mem, 200, [&](uint64_t c, const AxiSlaveOut& s) {
    AxiMasterOut m;
    // w_ready (Iv = 1): a burst accepted before c still expects beats, and no stall in c.
    EXPECT_EQ(s.w_ready, address_accepted && beats < 16 && !SpecStalls(3, c, 2, 50))
        << "cycle " << c;
    m.aw_valid = !address_accepted;  // one burst of 16 beats, held until accepted
    m.aw_len = 15;
    m.w_valid = beats < 16;  // from cycle 0: the memory takes none before the address
    m.w_strb = 0xFFFF;
    m.w_last = beats == 15;
    beats += m.w_valid && s.w_ready;
    address_accepted = address_accepted || s.aw_ready;
    return m;
  });
  EXPECT_EQ(seen.w_cycles.size(), 16u);
  EXPECT_EQ(seen.b_cycles.size(), 1u);
  EXPECT_TRUE(mem.violation().empty());
}

TEST(ExtMemory, IdleEqualsCommitPerCycle) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    ExtMemoryTiming t{8 << (rng() % 4), int(1 + rng() % 30), int(1 + rng() % 4)};
    ExtMemory a(1 << 16, t), b(1 << 16, t);
    for (int i = 0; i < 4; ++i) {
      AxiMasterOut m;
      m.ar_valid = true;
      m.ar_addr = uint32_t(rng() % 64) * uint32_t(t.data_bytes);
      m.ar_len = 0;
      a.Commit(m);
      b.Commit(m);
    }
    std::vector<uint64_t> beats_a, beats_b;
    const uint64_t gap = rng() % 60;
    for (uint64_t c = 0; c < gap; ++c) {
      if (a.Outputs().r_valid) beats_a.push_back(a.cycle());
      a.Commit(AxiMasterOut{});
    }
    while (b.cycle() < 4 + gap) {
      const uint64_t next = std::min<uint64_t>(b.NextEventCycle(), 4 + gap);
      b.Idle(next - b.cycle());
      if (b.cycle() < 4 + gap) {
        if (b.Outputs().r_valid) beats_b.push_back(b.cycle());
        b.Commit(AxiMasterOut{});
      }
    }
    EXPECT_EQ(beats_a, beats_b);
    EXPECT_EQ(a.cycle(), b.cycle());
    EXPECT_EQ(a.read_beats(), b.read_beats());
  }
}

// This process's virtual size (/proc/self/statm), which RLIMIT_AS bounds.
uint64_t VirtualBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * uint64_t(sysconf(_SC_PAGESIZE));
}

// A run that never uses the memory (a GEMM test) reserves none of it: `qacc regress` runs under
// RLIMIT_AS, and a 4 GiB ext_mem (the largest) would not fit three times. Reads of it see zeros.
TEST(ExtMemory, ReservesNoAddressSpaceUntilItIsWritten) {
  constexpr uint64_t kSize = uint64_t{4} << 30;
  const uint64_t before = VirtualBytes();
  ExtMemory mem(kSize, {16, 2, 1});
  uint8_t bytes[4] = {1, 1, 1, 1};
  mem.Read(kSize - 4, bytes, 4);
  EXPECT_EQ(bytes[0] | bytes[1] | bytes[2] | bytes[3], 0);
  AxiMasterOut m;
  m.ar_valid = true, m.ar_addr = 0x100, m.ar_len = 0;
  mem.Commit(m);
  mem.Idle(1);
  EXPECT_TRUE(mem.Outputs().r_valid);
  EXPECT_EQ(mem.Outputs().r_data, Beat{});
  EXPECT_LT(VirtualBytes() - before, uint64_t{1} << 30);
  mem.Write(kSize - 1, bytes, 1);
  EXPECT_GE(VirtualBytes() - before, kSize);
  EXPECT_EQ(mem.image().marked_pages(), 1u);
}

}  // namespace
}  // namespace qacc::model
