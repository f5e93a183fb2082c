// qacc_mac_array (Verilated, one build per configs/*.json) against golden Gemm: every output beat's
// value (all lanes), row index and cycle, which must be O(i) = I(0) + K + Cols + Le + i
// (docs/architecture.md 7).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vqacc_mac_array.h"
#include "golden/gemm.h"
#include "tests/rtl/rtl_test_util.h"
#include "verilated.h"

namespace qacc {
namespace {

using golden::Matrix;
using rtl_test::GetBits;
using rtl_test::MismatchLog;
using rtl_test::SetBits;
using rtl_test::SignExtend;

constexpr int kRows = QACC_CFG_ROWS;
constexpr int kCols = QACC_CFG_COLS;
constexpr int kEdgeLatency = QACC_CFG_MAC_EDGE_LATENCY;
constexpr int kOperandBits = 8;
constexpr int kAccBits = 32;
constexpr int kZpBits = 9;

// Cycle of output beat `row` for a tile whose first input beat is at `first_in` (spec 7): the last
// beat enters at first_in + K - 1, reaches PE(i, Cols-1) after Le + i + Cols - 1 cycles, is
// captured one cycle later and read through the row mux into the output register one cycle after
// that.
uint64_t OutputCycle(uint64_t first_in, int k, int row) {
  return first_in + k + kCols + kEdgeLatency + row;
}

// Operand format of a command (static over its tiles).
struct Format {
  int a_zp = 0;  // -128..255
  int b_zp = 0;
  bool a_unsigned = false;
  bool b_unsigned = false;
};

// One tile: A is kRows x K, B is K x kCols, as raw bytes (interpreted per Format). Disabled lanes
// are padding.
struct Tile {
  int k = 1;
  std::vector<uint8_t> a;  // a[r * k + kk]
  std::vector<uint8_t> b;  // b[kk * kCols + c]
  uint32_t a_en = 0;       // bit r: A lane r enabled
  uint32_t b_en = 0;       // bit c: B lane c enabled
  Format format;
};

template <typename TA, typename TB>
Matrix<int32_t> GoldenGemm(const Tile& t) {
  Matrix<TA> a(kRows, t.k);
  Matrix<TB> b(t.k, kCols);
  for (int r = 0; r < kRows; ++r) {
    for (int kk = 0; kk < t.k; ++kk) a.at(r, kk) = static_cast<TA>(t.a[size_t(r) * t.k + kk]);
  }
  for (int kk = 0; kk < t.k; ++kk) {
    for (int c = 0; c < kCols; ++c) b.at(kk, c) = static_cast<TB>(t.b[size_t(kk) * kCols + c]);
  }
  return golden::Gemm(a, b, {}, t.format.a_zp, t.format.b_zp);
}

// The golden accumulators of a tile; padded lanes contribute factor 0, so their outputs are 0.
Matrix<int32_t> Expected(const Tile& t) {
  Matrix<int32_t> c;
  if (t.format.a_unsigned) {
    c = t.format.b_unsigned ? GoldenGemm<uint8_t, uint8_t>(t) : GoldenGemm<uint8_t, int8_t>(t);
  } else {
    c = t.format.b_unsigned ? GoldenGemm<int8_t, uint8_t>(t) : GoldenGemm<int8_t, int8_t>(t);
  }
  for (int r = 0; r < kRows; ++r) {
    for (int col = 0; col < kCols; ++col) {
      if (((t.a_en >> r) & 1) == 0 || ((t.b_en >> col) & 1) == 0) c.at(r, col) = 0;
    }
  }
  return c;
}

// Drives a schedule of tiles into the Verilated array and checks every output beat.
class ArrayBench {
 public:
  ArrayBench() : context_(std::make_unique<VerilatedContext>()) {
    array_ = std::make_unique<Vqacc_mac_array>(context_.get());
    array_->rst_ni = 0;
    array_->in_valid_i = 0;
    for (int i = 0; i < 2; ++i) Cycle();
    array_->rst_ni = 1;
    Cycle();
  }
  ~ArrayBench() { array_->final(); }

  // Queues `tile` with its first input beat `gap` cycles after the earliest legal cycle: tile
  // period P = max(K, Rows, Cols) after a tile with the same K; for a different K the drain and
  // recapture conditions of spec 7 give max(K_prev, K_prev - K + max(Rows, Cols)).
  void Add(const Tile& tile, int gap = 0) {
    uint64_t start = cycle_ + 1;
    if (!tiles_.empty()) {
      const Scheduled& prev = tiles_.back();
      const int kp = prev.tile.k;
      const int period = std::max(kp, kp - tile.k + std::max(kRows, kCols));
      start = std::max<uint64_t>(start, prev.first_in + period);
    }
    start += gap;
    const size_t index = tiles_.size();
    tiles_.push_back({tile, start, Expected(tile)});
    for (int kk = 0; kk < tile.k; ++kk) inputs_[start + kk] = {index, kk};
    for (int row = 0; row < kRows; ++row) outputs_[OutputCycle(start, tile.k, row)] = {index, row};
  }

  // Runs until every queued beat has come out (and a few cycles more, to catch extra beats).
  void Run() {
    const uint64_t end = outputs_.empty() ? cycle_ : outputs_.rbegin()->first + 4;
    while (cycle_ <= end) {
      Drive();
      Cycle();
    }
    for (const auto& [cycle, beat] : outputs_) {
      mismatches_.Add(fmt::format("tile {} row {}: beat due at cycle {} never appeared", beat.tile,
                                  beat.row, cycle));
    }
    outputs_.clear();
  }

  uint64_t beats() const { return beats_; }
  const MismatchLog& mismatches() const { return mismatches_; }

 private:
  struct Scheduled {
    Tile tile;
    uint64_t first_in;
    Matrix<int32_t> expected;
  };
  struct InputBeat {
    size_t tile;
    int k;
  };
  struct OutputBeat {
    size_t tile;
    int row;
  };

  void Drive() {
    const auto it = inputs_.find(cycle_);
    array_->in_valid_i = it != inputs_.end();
    if (it == inputs_.end()) return;
    const Tile& t = tiles_[it->second.tile].tile;
    const int kk = it->second.k;
    array_->in_last_i = kk == t.k - 1;
    for (int r = 0; r < kRows; ++r)
      SetBits(array_->in_a_i, r * kOperandBits, kOperandBits, t.a[size_t(r) * t.k + kk]);
    for (int c = 0; c < kCols; ++c)
      SetBits(array_->in_b_i, c * kOperandBits, kOperandBits, t.b[size_t(kk) * kCols + c]);
    array_->in_a_en_i = t.a_en;
    array_->in_b_en_i = t.b_en;
    array_->a_zp_i = static_cast<uint16_t>(t.format.a_zp & ((1 << kZpBits) - 1));
    array_->b_zp_i = static_cast<uint16_t>(t.format.b_zp & ((1 << kZpBits) - 1));
    array_->a_unsigned_i = t.format.a_unsigned;
    array_->b_unsigned_i = t.format.b_unsigned;
    inputs_.erase(it);
  }

  // Outputs are sampled after the inputs of cycle_ settle and before the rising edge that ends
  // cycle_.
  void Cycle() {
    array_->clk_i = 0;
    array_->eval();
    Check();
    array_->clk_i = 1;
    array_->eval();
    ++cycle_;
  }

  void Check() {
    const auto it = outputs_.find(cycle_);
    if (array_->out_valid_o == 0) return;
    if (it == outputs_.end()) {
      mismatches_.Add(
          fmt::format("cycle {}: unexpected output beat (row {})", cycle_, int{array_->out_row_o}));
      return;
    }
    const auto [tile_index, row] = it->second;
    outputs_.erase(it);
    ++beats_;
    if (array_->out_row_o != row || array_->out_last_o != (row == kRows - 1)) {
      mismatches_.Add(fmt::format("cycle {}: tile {} expected row {} last {}, got row {} last {}",
                                  cycle_, tile_index, row, row == kRows - 1, int{array_->out_row_o},
                                  int{array_->out_last_o}));
    }
    const Scheduled& s = tiles_[tile_index];
    for (int c = 0; c < kCols; ++c) {
      const auto got = static_cast<int32_t>(
          SignExtend(GetBits(array_->out_acc_o, c * kAccBits, kAccBits), kAccBits));
      const int32_t want = s.expected.at(row, c);
      if (got != want) {
        mismatches_.Add(fmt::format(
            "cycle {}: tile {} (K={}, zp {}/{}, unsigned {}/{}) row {} lane {}: expected {} "
            "got {}",
            cycle_, tile_index, s.tile.k, s.tile.format.a_zp, s.tile.format.b_zp,
            s.tile.format.a_unsigned, s.tile.format.b_unsigned, row, c, want, got));
      }
    }
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vqacc_mac_array> array_;
  std::vector<Scheduled> tiles_;
  std::map<uint64_t, InputBeat> inputs_;
  std::map<uint64_t, OutputBeat> outputs_;
  uint64_t cycle_ = 0;
  uint64_t beats_ = 0;
  MismatchLog mismatches_;
};

void ExpectClean(const ArrayBench& bench, uint64_t tiles) {
  EXPECT_EQ(bench.mismatches().count(), 0u) << "first mismatch: " << bench.mismatches().first();
  EXPECT_EQ(bench.beats(), tiles * kRows);
}

constexpr uint32_t kAllRows = kRows >= 32 ? ~uint32_t{0} : (uint32_t{1} << kRows) - 1;
constexpr uint32_t kAllCols = kCols >= 32 ? ~uint32_t{0} : (uint32_t{1} << kCols) - 1;

Tile FilledTile(int k, uint8_t a, uint8_t b, Format format) {
  Tile t;
  t.k = k;
  t.a.assign(size_t(kRows) * k, a);
  t.b.assign(size_t(k) * kCols, b);
  t.a_en = kAllRows;
  t.b_en = kAllCols;
  t.format = format;
  return t;
}

class TileGenerator {
 public:
  explicit TileGenerator(uint64_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Format RandomFormat() {
    Format f;
    f.a_unsigned = Uniform(0, 1);
    f.b_unsigned = Uniform(0, 1);
    static const int kZps[] = {-128, -1, 0, 1, 127, 128, 255};
    f.a_zp = Uniform(0, 2) == 0
                 ? kZps[Uniform(0, 6)]
                 : Uniform(golden::kMinOperandZeroPoint, golden::kMaxOperandZeroPoint);
    f.b_zp = Uniform(0, 2) == 0
                 ? kZps[Uniform(0, 6)]
                 : Uniform(golden::kMinOperandZeroPoint, golden::kMaxOperandZeroPoint);
    return f;
  }

  // Random data: uniform bytes, or a bimodal / sparse distribution; lanes padded like a partial
  // edge tile (a prefix enabled) or with an arbitrary mask.
  Tile RandomTile(int k, const Format& format) {
    Tile t;
    t.k = k;
    t.format = format;
    const int kind = Uniform(0, 3);
    auto byte = [&]() -> uint8_t {
      switch (kind) {
        case 0:
          return static_cast<uint8_t>(Uniform(0, 255));
        case 1:
          return Uniform(0, 1) ? 0x80 : 0x7F;  // bimodal extremes
        case 2:
          return Uniform(0, 7) == 0 ? static_cast<uint8_t>(Uniform(0, 255)) : 0;  // sparse
        default:
          return static_cast<uint8_t>(Uniform(0, 1) ? Uniform(0, 3) : Uniform(252, 255));
      }
    };
    t.a.resize(size_t(kRows) * k);
    t.b.resize(size_t(k) * kCols);
    for (auto& x : t.a) x = byte();
    for (auto& x : t.b) x = byte();
    const int mask_kind = Uniform(0, 3);
    if (mask_kind == 0) {
      t.a_en = kAllRows >> Uniform(0, kRows - 1);
      t.b_en = kAllCols >> Uniform(0, kCols - 1);
    } else if (mask_kind == 1) {
      t.a_en = static_cast<uint32_t>(rng_()) & kAllRows;
      t.b_en = static_cast<uint32_t>(rng_()) & kAllCols;
    } else {
      t.a_en = kAllRows;
      t.b_en = kAllCols;
    }
    return t;
  }

 private:
  std::mt19937_64 rng_;
};

// 400 commands of random K (1..80), each a burst of back-to-back tiles at the minimum period, with
// random formats, data, padding masks and occasional gaps.
TEST(MacArrayTest, RandomTilesBackToBack) {
  ArrayBench bench;
  TileGenerator gen(0x5141434302);
  uint64_t tiles = 0;
  for (int command = 0; command < 400; ++command) {
    const int k =
        gen.Uniform(0, 3) == 0 ? gen.Uniform(1, std::max(kRows, kCols)) : gen.Uniform(1, 80);
    const Format format = gen.RandomFormat();
    const int count = gen.Uniform(1, 12);
    for (int i = 0; i < count; ++i) {
      bench.Add(gen.RandomTile(k, format), gen.Uniform(0, 9) == 0 ? gen.Uniform(1, 20) : 0);
      ++tiles;
    }
  }
  bench.Run();
  ExpectClean(bench, tiles);
}

// Operands all -128 or all 127 (0x80 / 0x7F, and 0x00 / 0xFF as uint8) under extreme zero points.
TEST(MacArrayTest, ExtremeOperands) {
  ArrayBench bench;
  uint64_t tiles = 0;
  for (uint8_t a : {uint8_t{0x80}, uint8_t{0x7F}, uint8_t{0x00}, uint8_t{0xFF}}) {
    for (uint8_t b : {uint8_t{0x80}, uint8_t{0x7F}, uint8_t{0xFF}}) {
      for (int zp : {-128, 0, 127, 255}) {
        for (bool is_unsigned : {false, true}) {
          Format f;
          f.a_zp = zp;
          f.b_zp = 255 - zp - 128;
          f.a_unsigned = is_unsigned;
          f.b_unsigned = !is_unsigned;
          for (int k : {1, 16, 33}) {
            bench.Add(FilledTile(k, a, b, f));
            ++tiles;
          }
        }
      }
    }
  }
  bench.Run();
  ExpectClean(bench, tiles);
}

// Accumulators that wrap modulo 2^32: (-128 - 127)^2 * 70000 = 4.55e9 and (255 + 128)^2 * 30000
// = 4.4e9, and a negative one, -255 * 255 * 70000.
TEST(MacArrayTest, AccumulatorWrapAround) {
  ArrayBench bench;
  Format s;
  s.a_zp = 127;
  s.b_zp = 127;
  bench.Add(FilledTile(70000, 0x80, 0x80, s));
  Format u;
  u.a_zp = -128;
  u.b_zp = -128;
  u.a_unsigned = u.b_unsigned = true;
  bench.Add(FilledTile(30000, 0xFF, 0xFF, u));
  Format m;
  m.a_zp = 127;
  m.b_zp = -128;
  m.b_unsigned = true;
  bench.Add(FilledTile(70000, 0x80, 0x7F, m));
  bench.Run();
  ExpectClean(bench, 3);
}

// K = 1 tiles at the minimum period max(Rows, Cols): capture and clear in the same beat, drains
// back to back.
TEST(MacArrayTest, SingleBeatTiles) {
  ArrayBench bench;
  TileGenerator gen(0x5141434303);
  const Format f = gen.RandomFormat();
  for (int i = 0; i < 50; ++i) bench.Add(gen.RandomTile(1, f));
  bench.Run();
  ExpectClean(bench, 50);
}

}  // namespace
}  // namespace qacc
