#include "compiler/compiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <utility>

#include "compiler/residual.h"
#include "golden/lut_unit.h"

namespace qacc::compiler {

namespace {

using golden::Descriptor;
using golden::Engine;
using golden::Header;
using golden::Op;
using golden::Sram;

// Tensors start on 256-byte boundaries: a multiple of every DMA unit (12; the largest, an rq word
// of 32 columns, is 256 bytes), so every address the compiler derives is aligned.
constexpr uint32_t kTensorAlign = 256;

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t AlignUp(uint64_t a, uint64_t b) { return CeilDiv(a, b) * b; }

// CMD_MODE's requant form fields (requant.md 6.1): RQ_FORM, RSHIFT_ROUND and MULT_WIDTH for
// TPU-MLIR's form; none for TFLite's (its ROUNDING bit is set with the others).
uint32_t RequantFormMode(const GemmLayer& l) {
  if (l.requant == golden::RequantForm::kTflite) return 0;
  const uint32_t width_code = l.mult_bits == 8 ? 0 : l.mult_bits == 16 ? 1 : 2;
  return arch::kModeRqForm | uint32_t(l.rshift_rounding) << arch::kModeRshiftRoundLsb |
         width_code << arch::kModeMultWidthLsb;
}

// A range of one SRAM's units (words; output entries count as words of the output SRAM).
struct Range {
  Sram sram = Sram::kA;
  uint64_t begin = 0, end = 0;  // [begin, end)
  bool Overlaps(const Range& o) const { return sram == o.sram && begin < o.end && o.begin < end; }
};

// A descriptor with its engine and the on-chip ranges it reads and writes.
struct PlannedOp {
  Engine engine = Engine::kDma;
  Descriptor d{};
  std::vector<Range> reads, writes;
  bool wait = false, signal = false;
};

// Collects descriptors in program order and derives the tokens: a descriptor that must follow one
// on the other engine (it reads what that one wrote, or writes what it read or wrote) WAITs, and
// the latest such predecessor SIGNALs, unless an earlier token already orders them. Tokens pair in
// order (the j-th SIGNAL of an engine with the j-th WAIT of the other), and every dependency points
// backwards in program order, so the program is race free and cannot deadlock on a full queue.
class Emitter {
 public:
  void Add(Engine engine, const Descriptor& d, std::vector<Range> reads,
           std::vector<Range> writes) {
    PlannedOp op;
    op.engine = engine;
    op.d = d;
    op.reads = std::move(reads);
    op.writes = std::move(writes);
    ops_.push_back(std::move(op));
  }

  // The descriptors with their tokens, for launches of `max_launch` descriptors each (the last
  // one shorter; data_movement.md 14.4). The end of a launch orders everything before it before
  // everything after it, so a dependency on a descriptor of an earlier launch needs no token, and
  // no token is outstanding at a launch boundary: any index can be one.
  std::vector<Descriptor> Finish(uint32_t max_launch) {
    int last_signal[2] = {-1, -1};  // per producing engine: the latest descriptor given SIGNAL
    for (int i = 0; i < int(ops_.size()); ++i) {
      PlannedOp& op = ops_[size_t(i)];
      const int other = op.engine == Engine::kDma ? 1 : 0;
      const int launch_start = i - i % int(max_launch);
      // The latest descriptor of the other engine in this launch that conflicts; those up to
      // last_signal are ordered already, so the scan stops there.
      int need = -1;
      const int ordered = std::max(last_signal[other], launch_start - 1);
      for (int j = i - 1; j > ordered && need < 0; --j) {
        const PlannedOp& prev = ops_[size_t(j)];
        if (prev.engine == op.engine) continue;
        if (Conflict(prev.writes, op.reads) || Conflict(prev.writes, op.writes) ||
            Conflict(prev.reads, op.writes)) {
          need = j;
        }
      }
      if (need >= 0) {
        ops_[size_t(need)].signal = true;
        op.wait = true;
        last_signal[other] = need;
      }
    }
    std::vector<Descriptor> out;
    out.reserve(ops_.size());
    for (const PlannedOp& op : ops_) {
      Descriptor d = op.d;
      arch::desc::Put(d, arch::desc::header::kWait, op.wait);
      arch::desc::Put(d, arch::desc::header::kSignal, op.signal);
      out.push_back(d);
    }
    return out;
  }

 private:
  static bool Conflict(const std::vector<Range>& a, const std::vector<Range>& b) {
    for (const Range& x : a) {
      for (const Range& y : b) {
        if (x.Overlaps(y)) return true;
      }
    }
    return false;
  }

  std::vector<PlannedOp> ops_;
};

// External memory: a bump allocator.
class ExtAllocator {
 public:
  uint32_t Allocate(uint64_t bytes, const std::string& what) {
    const uint64_t addr = AlignUp(next_, kTensorAlign);
    const uint64_t end = addr + std::max<uint64_t>(bytes, 1);
    if (end > (uint64_t{1} << 32)) {
      throw CompileError(
          fmt::format("{}: the tensors need more than the 4 GiB of the 32-bit "
                      "external address space",
                      what));
    }
    next_ = end;
    return uint32_t(addr);
  }
  uint64_t size() const { return AlignUp(next_, kTensorAlign); }

 private:
  uint64_t next_ = 0;
};

// A contiguous range of A SRAM words.
struct WordRange {
  uint32_t base = 0, words = 0;
};

// The chunking of one layer over the SRAMs.
struct Chunking {
  int ma = 0, nbc = 0;         // panels per A chunk, per B chunk
  int sa = 0, sb = 0, so = 0;  // slots
  bool a_resident = false, b_resident = false;
};

enum class OutputRoute { kFinal, kChain, kExtIntermediate };

struct LayerContext {
  const GemmLayer* layer = nullptr;
  int index = 0;
  int mb = 0, nb = 0;             // MB, NB of the whole layer
  std::optional<WordRange> a_in;  // A already on chip (chained from the previous layer)
  WordRange a_space;              // A words free for this layer's slots and scratch
  OutputRoute route = OutputRoute::kFinal;
  std::optional<WordRange> a_next;   // kChain: where the next layer's A goes
  uint32_t x_addr = 0, x_pitch = 0;  // A from external memory (row panels, pitch K * R)
  // The output: row-major (kFinal) or row panels for the next layer (kExtIntermediate, N * R).
  uint32_t y_addr = 0, y_pitch = 0;
  uint32_t w_addr = 0, w_pitch = 0;  // column panels, pitch K * C
  uint32_t bias_addr = 0, rq_addr = 0;
  uint32_t table_addr = 0;  // with an activation: its table's slot image
  // A later layer adds this output (16.4): its tiles are stored into <name>.res at this address.
  std::optional<uint32_t> res_store_addr;
  // A residual of its own: the earlier layer's <from>.res, the add's parameters and, with a table
  // after the add, the table's slot image and its LUT slot.
  std::optional<uint32_t> res_load_addr;
  golden::AddParams res_params;
  uint32_t res_table_addr = 0, res_slot = 0;
};

class LayerCompiler {
 public:
  LayerCompiler(const arch::ArchConfig& config, const CompileOptions& options, Emitter& emitter)
      : config_(config), options_(options), e_(emitter) {}

  // Chooses chunk sizes for the layer with two slots per streamed operand and output
  // (`double_buffer`) or one; throws CompileError naming the limit when nothing fits.
  Chunking Plan(const LayerContext& ctx, bool double_buffer) const {
    const GemmLayer& l = *ctx.layer;
    const int r = config_.rows, c = config_.cols;
    const uint32_t k = uint32_t(l.k);
    const int streams = double_buffer ? 2 : 1;
    const std::string who = fmt::format("layer '{}'", l.name);
    if (!ctx.a_in && k > ctx.a_space.words) {
      throw CompileError(fmt::format(
          "{}: K = {} exceeds the {} A SRAM words available{} (one panel of K words must fit; K is "
          "never split)",
          who, k, ctx.a_space.words,
          ctx.a_space.words < config_.a_depth ? fmt::format(" of {}", config_.a_depth) : ""));
    }
    if (k > config_.b_depth) {
      throw CompileError(
          fmt::format("{}: K = {} exceeds the B SRAM depth {} (one panel of K words "
                      "must fit; K is never split)",
                      who, k, config_.b_depth));
    }
    const bool scratch = ctx.route == OutputRoute::kExtIntermediate;
    const uint32_t out_words_per_tile = uint32_t(arch::OutWords(1, r, l.out_layout()));
    // A residual's earlier output is loaded beside each output slot: a slot of the same size.
    const uint64_t out_slots_per_stream = l.has_residual() ? 2 : 1;

    Chunking ch;
    ch.so = streams;
    // B: resident when every panel and its bias/rq words fit in one slot.
    auto b_fits = [&](int nbc, int slots) {
      return uint64_t(nbc) * k * slots <= config_.b_depth &&
             (!l.bias || uint64_t(nbc) * slots <= config_.bias_depth) &&
             (!l.per_channel || uint64_t(nbc) * slots <= config_.rq_depth);
    };
    ch.b_resident = b_fits(ctx.nb, 1);
    ch.sb = ch.b_resident ? 1 : streams;
    ch.nbc = ch.b_resident ? ctx.nb : 0;
    if (!ch.b_resident) {
      while (ch.nbc < ctx.nb && b_fits(ch.nbc + 1, ch.sb)) ++ch.nbc;
    }
    if (ch.nbc == 0) {
      throw CompileError(fmt::format(
          "{}: {} B slot{} of one column of tiles do not fit: each needs {} B words{}{} (B depth "
          "{}{}{})",
          who, ch.sb, ch.sb == 1 ? "" : "s", k, l.bias ? ", 1 bias word" : "",
          l.per_channel ? ", 1 rq word" : "", config_.b_depth,
          l.bias ? fmt::format(", bias depth {}", config_.bias_depth) : "",
          l.per_channel ? fmt::format(", rq depth {}", config_.rq_depth) : ""));
    }
    // A: resident (or on chip already) when it fits with the scratch the output route needs.
    auto a_words = [&](int ma, int sa, int nbc) {
      const uint64_t slots = ctx.a_in ? 0 : uint64_t(ma) * k * sa;
      const uint64_t scr = scratch ? uint64_t(ma) * nbc * c * ch.so : 0;
      return slots + scr;
    };
    auto out_fits = [&](int ma, int nbc) {
      return uint64_t(ma) * nbc * out_words_per_tile * ch.so * out_slots_per_stream <=
             config_.out_depth;
    };
    if (ctx.a_in) {
      ch.a_resident = true;
      ch.sa = 0;
      ch.ma = ctx.mb;
    } else if (a_words(ctx.mb, 1, 1) <= ctx.a_space.words) {
      ch.a_resident = true;
      ch.sa = 1;
      ch.ma = ctx.mb;
    } else {
      // A is the outer loop: when B is streamed too, every A chunk reloads all of B, so one big A
      // slot (half the B traffic of two) beats overlapping the few A loads. With B resident, A's
      // loads are the only traffic and double buffering hides them.
      ch.sa = ch.b_resident ? streams : 1;
      ch.ma = 0;
      while (ch.ma < ctx.mb && a_words(ch.ma + 1, ch.sa, 1) <= ctx.a_space.words) ++ch.ma;
    }
    // Shrink the B chunk, then the A chunk, until the output slots and the scratch fit. A chunk
    // that stops being resident needs the streamed operand's slot count.
    auto fits = [&] {
      return out_fits(ch.ma, ch.nbc) && a_words(ch.ma, ch.sa, ch.nbc) <= ctx.a_space.words;
    };
    while (ch.ma > 0 && ch.nbc > 0 && !fits()) {
      if (ch.nbc > 1) {
        --ch.nbc;
        if (ch.b_resident) {
          ch.b_resident = false;
          ch.sb = streams;
          while (ch.nbc > 0 && !b_fits(ch.nbc, ch.sb)) --ch.nbc;
        }
      } else if (ch.ma > 1) {
        --ch.ma;
        if (ch.a_resident && !ctx.a_in) {
          ch.a_resident = false;
          ch.sa = ch.b_resident ? streams : 1;  // as above
          while (ch.ma > 0 && a_words(ch.ma, ch.sa, ch.nbc) > ctx.a_space.words) --ch.ma;
        }
      } else {
        break;
      }
    }
    if (ch.ma == 0 || ch.nbc == 0 || !fits()) {
      // Name the limit that one panel and one column of tiles exceed.
      auto plural = [](int n) { return n == 1 ? "" : "s"; };
      if (!out_fits(1, 1)) {
        throw CompileError(fmt::format(
            "{}: {} output slot{}{} of one tile do not fit: each needs {} output words (out depth "
            "{})",
            who, ch.so, plural(ch.so),
            l.has_residual() ? fmt::format(" and {} residual slot{}", ch.so, plural(ch.so)) : "",
            out_words_per_tile, config_.out_depth));
      }
      std::string need;
      if (!ctx.a_in) {
        const int slots = std::max(ch.sa, 1);
        need = fmt::format("{} A slot{} of one panel (K = {} words each)", slots, plural(slots), k);
      }
      if (scratch) {
        need += fmt::format("{}{} A scratch slot{} of {} words", need.empty() ? "" : " and ", ch.so,
                            plural(ch.so), c);
      }
      throw CompileError(fmt::format("{}: {} do not fit in the {} A SRAM words available", who,
                                     need, ctx.a_space.words));
    }
    if (ctx.a_in && ch.ma < ctx.mb) ch.a_resident = true;  // on chip, used a chunk at a time
    return ch;
  }

  void Emit(const LayerContext& ctx, const Chunking& ch, LayerPlan& plan) {
    const GemmLayer& l = *ctx.layer;
    const int r = config_.rows, c = config_.cols;
    const uint32_t k = uint32_t(l.k);
    const int a_chunks = int(CeilDiv(uint64_t(ctx.mb), uint64_t(ch.ma)));
    const int b_chunks = int(CeilDiv(uint64_t(ctx.nb), uint64_t(ch.nbc)));
    plan.name = l.name;
    plan.a_panels_per_chunk = ch.ma;
    plan.b_panels_per_chunk = ch.nbc;
    plan.a_chunks = a_chunks;
    plan.b_chunks = b_chunks;
    plan.steps = a_chunks * b_chunks;
    plan.a_resident = ch.a_resident;
    plan.b_resident = ch.b_resident;
    plan.input_on_chip = ctx.a_in.has_value();
    plan.output_on_chip = ctx.route == OutputRoute::kChain;
    plan.residual_from = l.residual.from;
    plan.a_slots = ch.sa;
    plan.b_slots = ch.sb;
    plan.out_slots = ch.so;

    // On-chip buffers: A slots then scratch slots in a_space; B/bias/rq slots; output slots, then
    // as many residual slots (16.4).
    const uint32_t a_slot_words = uint32_t(ch.ma) * k;
    const uint32_t scratch_words = uint32_t(ch.ma) * uint32_t(ch.nbc) * uint32_t(c);
    const uint32_t tile_out_words = uint32_t(arch::OutWords(1, r, l.out_layout()));
    const uint32_t out_slot_words = uint32_t(ch.ma) * uint32_t(ch.nbc) * tile_out_words;
    const uint32_t scratch_base = ctx.a_space.base + a_slot_words * uint32_t(ch.sa);

    // The activation's table (lut.md 10.4): loaded into slot layer mod S before the first GEMM;
    // the emitter's tokens order the load after the last GEMM that read the slot before.
    std::optional<Range> table;
    uint32_t act_mode = 0;
    plan.activation_unit = !l.has_activation() ? "" : UsesSlopeStage(l) ? "slope" : "lut";
    if (UsesSlopeStage(l)) {
      // The slope stage's registers (requant.md 6.2), written once before the layer's GEMMs: the
      // compute engine runs its commands in order, so the earlier layers' GEMMs read theirs.
      const golden::SlopeRegisters regs = golden::EncodeSlopeRegisters(LayerSlope(l));
      golden::SetFields set;
      set.reg = arch::reg::kSlopePosMult / 4;
      set.count = uint32_t(regs.size());
      std::copy(regs.begin(), regs.end(), set.value.begin());
      e_.Add(Engine::kCompute, golden::EncodeSet(set, {}), {}, {});
      act_mode = uint32_t(arch::Act::kSlope) << arch::kModeActLsb;
    } else if (l.has_activation()) {
      const uint32_t slot = uint32_t(ctx.index % config_.lut_slots);
      const uint32_t words = uint32_t(arch::kLutSlotWords);
      table = Range{Sram::kLut, uint64_t(slot) * words, uint64_t(slot + 1) * words};
      golden::DmaFields f;
      f.sram = uint32_t(Sram::kLut);
      f.count0 = words;
      f.sram_base = slot * words;
      f.ext_addr = ctx.table_addr;
      Dma(Op::kLoad, f, {}, {*table});
      act_mode = uint32_t(arch::Act::kLut) << arch::kModeActLsb | slot << arch::kModeLutSlotLsb |
                 uint32_t(arch::kLutMaxInBits) << arch::kModeLutInBitsLsb |  // as ActivationTable
                 uint32_t(l.activation.out_bits) << arch::kModeLutEntryBitsLsb;
    }
    // The residual's table, likewise in its own slot (Compile chose it).
    std::optional<Range> res_table;
    if (l.has_residual() && l.residual.has_activation()) {
      const uint32_t words = uint32_t(arch::kLutSlotWords);
      res_table =
          Range{Sram::kLut, uint64_t(ctx.res_slot) * words, uint64_t(ctx.res_slot + 1) * words};
      golden::DmaFields f;
      f.sram = uint32_t(Sram::kLut);
      f.count0 = words;
      f.sram_base = ctx.res_slot * words;
      f.ext_addr = ctx.res_table_addr;
      Dma(Op::kLoad, f, {}, {*res_table});
    }

    int step = 0, b_loads = 0;
    int last_a = -1, last_b = -1;
    std::vector<std::function<void()>> deferred;  // the previous step's stores
    for (int ai = 0; ai < a_chunks; ++ai) {
      const int mb0 = ai * ch.ma;
      const int ma_eff = std::min(ch.ma, ctx.mb - mb0);
      for (int bi = 0; bi < b_chunks; ++bi, ++step) {
        const int nb0 = bi * ch.nbc;
        const int nbc_eff = std::min(ch.nbc, ctx.nb - nb0);
        // Loads.
        const int a_slot = ch.sa ? ai % ch.sa : 0;
        uint32_t a_base = 0;
        if (ctx.a_in) {
          a_base = ctx.a_in->base + uint32_t(mb0) * k;
        } else {
          a_base = ctx.a_space.base + uint32_t(a_slot) * a_slot_words;
          if (last_a != ai) LoadA(ctx, mb0, ma_eff, a_base);
        }
        std::vector<Range> gemm_reads = {{Sram::kA, a_base, a_base + uint64_t(ma_eff) * k}};
        last_a = ai;
        int b_slot = 0;
        if (last_b != bi) {
          b_slot = b_loads % ch.sb;
          LoadB(ctx, nb0, nbc_eff, ch, b_slot);
          ++b_loads;
          last_b = bi;
        } else {
          b_slot = (b_loads - 1) % ch.sb;
        }
        for (const Range& b : BSlotRanges(ch, b_slot, l)) gemm_reads.push_back(b);
        if (table) gemm_reads.push_back(*table);
        const int o = step % ch.so;
        const uint32_t out_base = uint32_t(o) * out_slot_words;
        const TileBlock tiles{mb0, ma_eff, nb0, nbc_eff, out_base};
        const uint32_t block_words = uint32_t(ma_eff * nbc_eff) * tile_out_words;
        // The residual's earlier output, the same tiles, into the residual slot beside this one.
        std::optional<Range> res_range;
        if (ctx.res_load_addr) {
          const uint32_t res_base = (uint32_t(ch.so) + uint32_t(o)) * out_slot_words;
          res_range = Range{Sram::kOut, res_base, res_base + uint64_t(block_words)};
          TileBlock from = tiles;
          from.out_word = res_base;
          Dma(Op::kLoad, ResidualTileCopy(r, c, ctx.nb, from, *ctx.res_load_addr), {},
              {*res_range});
        }
        // The GEMM.
        golden::GemmFields g;
        g.m = uint32_t(std::min(ma_eff * r, l.m - mb0 * r));
        g.n = uint32_t(std::min(nbc_eff * c, l.n - nb0 * c));
        g.k = k;
        g.a_base = a_base;
        g.b_base = uint32_t(b_slot) * uint32_t(ch.nbc) * k;
        g.bias_base = uint32_t(b_slot) * uint32_t(ch.nbc);
        g.rq_base = uint32_t(b_slot) * uint32_t(ch.nbc);
        g.out_base = out_base;
        g.mode = (l.single_rounding ? 1u : 0u) | (l.per_channel ? 2u : 0u) |
                 (l.out_int32 ? 4u : 0u) | (l.bias ? 8u : 0u) | (l.a_unsigned ? 16u : 0u) |
                 (l.b_unsigned ? 32u : 0u) | RequantFormMode(l) | act_mode;
        g.zp_ab = (uint32_t(l.a_zp) & 0x1FFu) | ((uint32_t(l.b_zp) & 0x1FFu) << 16);
        g.zp_out = l.zp_out;
        g.clamp_min = l.clamp_min;
        g.clamp_max = l.clamp_max;
        g.mult = l.mult;
        g.shift = uint32_t(l.shift) & ((1u << arch::kShiftBits) - 1);
        const Range out_range{Sram::kOut, out_base, out_base + out_slot_words};
        e_.Add(Engine::kCompute, golden::EncodeGemm(g, {}), gemm_reads, {out_range});
        // The residual add, in place: the block is then moved or stored as without one.
        if (res_range) {
          const golden::EltwiseFields f =
              ResidualEltwise(ctx.res_params, res_table.has_value(), ctx.res_slot, out_base,
                              uint32_t(res_range->begin), block_words);
          std::vector<Range> reads = {out_range, *res_range};
          if (res_table) reads.push_back(*res_table);
          e_.Add(Engine::kCompute, golden::EncodeEltwise(f, {}), reads, {out_range});
        }
        // The output: moved on chip now; stored after the next step's GEMM when double buffering.
        const uint32_t scratch0 = scratch_base + uint32_t(o) * scratch_words;
        const Block block{mb0,      ma_eff,
                          nb0,      nbc_eff,
                          out_base, out_range,
                          scratch0, {Sram::kA, scratch0, scratch0 + uint64_t(scratch_words)}};
        if (ctx.route == OutputRoute::kChain) {
          // Into the next layer's A: panel mb0 + p, words from column nb0 * C on.
          const uint32_t k_next = uint32_t(l.n);
          MoveToA(ctx, block, ctx.a_next->base + uint32_t(mb0) * k_next + uint32_t(nb0 * c), k_next,
                  {Sram::kA, ctx.a_next->base, uint64_t(ctx.a_next->base) + ctx.a_next->words});
        } else if (ctx.route == OutputRoute::kExtIntermediate) {
          // Into the scratch slot: panel p holds this block's nbc * C columns.
          MoveToA(ctx, block, block.scratch_base, uint32_t(nbc_eff * c), block.scratch_range);
        }
        // The stores: the output, unless chained, and the tiles a later residual adds.
        std::vector<std::function<void()>> stores;
        if (ctx.route != OutputRoute::kChain) {
          stores.push_back([this, ctx, block]() { Store(ctx, block); });
        }
        if (ctx.res_store_addr) {
          stores.push_back([this, ctx, tiles, out_range]() {
            Dma(Op::kStore,
                ResidualTileCopy(config_.rows, config_.cols, ctx.nb, tiles, *ctx.res_store_addr),
                {out_range}, {});
          });
        }
        if (!stores.empty()) {
          for (auto& f : deferred) f();
          deferred.clear();
          if (ch.so > 1) {
            deferred = std::move(stores);
          } else {
            for (auto& f : stores) f();
          }
        }
      }
    }
    for (auto& f : deferred) f();
  }

 private:
  struct Block {
    int mb0, ma, nb0, nbc;
    uint32_t out_base;  // output word
    Range out_range;
    uint32_t scratch_base;  // A word (kExtIntermediate)
    Range scratch_range;
  };

  // The B, bias and rq words of B slot `slot`.
  std::vector<Range> BSlotRanges(const Chunking& ch, int slot, const GemmLayer& l) const {
    const uint64_t nbc = uint64_t(ch.nbc), k = uint64_t(l.k), s = uint64_t(slot);
    std::vector<Range> r = {{Sram::kB, s * nbc * k, (s + 1) * nbc * k}};
    if (l.bias) r.push_back({Sram::kBias, s * nbc, (s + 1) * nbc});
    if (l.per_channel) r.push_back({Sram::kRq, s * nbc, (s + 1) * nbc});
    return r;
  }

  void Dma(Op op, const golden::DmaFields& f, std::vector<Range> reads, std::vector<Range> writes) {
    e_.Add(Engine::kDma, golden::EncodeDma(op, f, {}), std::move(reads), std::move(writes));
  }

  // A panels mb0 .. mb0 + ma - 1 of the input in row panels (16.1): panel p is K contiguous units
  // at x + (mb0 + p) * pitch, one DMA row each, loaded in 16-beat bursts.
  void LoadA(const LayerContext& ctx, int mb0, int ma, uint32_t base) {
    golden::DmaFields f;
    f.sram = uint32_t(Sram::kA);
    f.count0 = uint32_t(ctx.layer->k);
    f.count1 = uint32_t(ma);
    f.sram_stride1 = uint32_t(ctx.layer->k);
    f.ext_stride1 = ctx.x_pitch;
    f.sram_base = base;
    f.ext_addr = ctx.x_addr + uint32_t(mb0) * ctx.x_pitch;
    Dma(Op::kLoad, f, {}, {{Sram::kA, base, base + uint64_t(ma) * uint64_t(ctx.layer->k)}});
  }

  // B panels nb0 .. nb0 + nbc - 1 of the weights in column panels (16.1), one DMA row of K units
  // each, and their bias and rq words.
  void LoadB(const LayerContext& ctx, int nb0, int nbc, const Chunking& ch, int slot) {
    const GemmLayer& l = *ctx.layer;
    const uint32_t c = uint32_t(config_.cols), k = uint32_t(l.k);
    golden::DmaFields f;
    f.sram = uint32_t(Sram::kB);
    f.count0 = k;
    f.count1 = uint32_t(nbc);
    f.sram_stride1 = k;
    f.ext_stride1 = ctx.w_pitch;
    f.sram_base = uint32_t(slot) * uint32_t(ch.nbc) * k;
    f.ext_addr = ctx.w_addr + uint32_t(nb0) * ctx.w_pitch;
    const std::vector<Range> slot_ranges = BSlotRanges(ch, slot, l);
    Dma(Op::kLoad, f, {}, {slot_ranges[0]});
    if (l.bias) {
      golden::DmaFields b;
      b.sram = uint32_t(Sram::kBias);
      b.count0 = uint32_t(nbc);
      b.sram_base = uint32_t(slot) * uint32_t(ch.nbc);
      b.ext_addr = ctx.bias_addr + uint32_t(nb0) * 4 * c;
      Dma(Op::kLoad, b, {}, {slot_ranges[1]});
    }
    if (l.per_channel) {
      golden::DmaFields q;
      q.sram = uint32_t(Sram::kRq);
      q.count0 = uint32_t(nbc);
      q.sram_base = uint32_t(slot) * uint32_t(ch.nbc);
      q.ext_addr = ctx.rq_addr + uint32_t(nb0) * 8 * c;
      Dma(Op::kLoad, q, {}, {slot_ranges.back()});
    }
  }

  // Transposes a block's output tiles into A words: tile (p, t) column j goes to word
  // dst0 + p * panel_words + t * C + j (13). The last tile column of the layer may be partial.
  void MoveToA(const LayerContext& ctx, const Block& b, uint32_t dst0, uint32_t panel_words,
               const Range& dst_range) {
    const int r = config_.rows, c = config_.cols;
    const int n_last = std::min(c, ctx.layer->n - (b.nb0 + b.nbc - 1) * c);  // of the last tile
    const int full = n_last == c ? b.nbc : b.nbc - 1;
    auto move = [&](int tiles, int first_tile, int words) {
      golden::MoveFields m;
      m.dst = uint32_t(Sram::kA);
      m.count0 = uint32_t(words);
      m.count1 = uint32_t(tiles);
      m.count2 = uint32_t(b.ma);
      m.src_base = b.out_base * 4 + uint32_t(first_tile * r);
      m.src_stride1 = uint32_t(r);
      m.src_stride2 = uint32_t(b.nbc * r);
      m.dst_base = dst0 + uint32_t(first_tile * c);
      m.dst_stride1 = uint32_t(c);
      m.dst_stride2 = panel_words;
      e_.Add(Engine::kCompute, golden::EncodeMove(m, {}), {b.out_range}, {dst_range});
    };
    if (full > 0) move(full, 0, c);
    if (full < b.nbc) move(1, b.nbc - 1, n_last);
  }

  void Store(const LayerContext& ctx, const Block& b) {
    const GemmLayer& l = *ctx.layer;
    const int r = config_.rows, c = config_.cols;
    if (ctx.route == OutputRoute::kExtIntermediate) {
      // From the A scratch (word p * nbc * C + j = column nb0 * C + j of panel mb0 + p) to the
      // intermediate in row panels: unit k' = nb0 * C + j of panel mb0 + p, so each panel's
      // columns are one contiguous DMA row.
      const int cols = std::min(b.nbc * c, l.n - b.nb0 * c);
      golden::DmaFields f;
      f.sram = uint32_t(Sram::kA);
      f.count0 = uint32_t(cols);
      f.count1 = uint32_t(b.ma);
      f.sram_stride1 = uint32_t(b.nbc * c);
      f.ext_stride1 = ctx.y_pitch;
      f.sram_base = b.scratch_base;
      f.ext_addr = ctx.y_addr + uint32_t(b.mb0) * ctx.y_pitch + uint32_t(b.nb0 * c * r);
      Dma(Op::kStore, f, {b.scratch_range}, {});
      return;
    }
    // Row-major output, a row of tiles at a time: entry (p * nbc + t) * R + i is row
    // (mb0 + p) * R + i, columns (nb0 + t) * C ..; inner loop over the tiles of a row.
    // One output entry per unit: C lanes of out_bytes() each (int8, int16 or int32 layout).
    const uint32_t unit = uint32_t(l.out_bytes() * c);
    for (int p = 0; p < b.ma; ++p) {
      const int rows = std::min(r, l.m - (b.mb0 + p) * r);
      golden::DmaFields f;
      f.sram = uint32_t(Sram::kOut);
      f.out_int32 = l.out_int32;
      f.out_int16 = l.out_bytes() == 2;
      f.count0 = 1;
      f.count1 = uint32_t(b.nbc);
      f.sram_stride1 = uint32_t(r);
      f.ext_stride1 = unit;
      f.count2 = uint32_t(rows);
      f.sram_stride2 = 1;
      f.ext_stride2 = ctx.y_pitch;
      const uint32_t first_entry = uint32_t(p * b.nbc * r);
      // Units of the layout: an out word holds 4 / out_bytes() entries.
      f.sram_base = b.out_base * uint32_t(4 / l.out_bytes()) + first_entry;
      f.ext_addr = ctx.y_addr + uint32_t((b.mb0 + p) * r) * ctx.y_pitch + uint32_t(b.nb0) * unit;
      Dma(Op::kStore, f, {b.out_range}, {});
    }
  }

  const arch::ArchConfig& config_;
  const CompileOptions& options_;
  Emitter& e_;
};

// The report's counts, from the descriptors themselves.
void Count(const golden::AccelGeometry& geometry, CompiledProgram& p) {
  for (const Descriptor& d : p.descriptors) {
    const auto op = static_cast<arch::Opcode>(golden::DecodeHeader(d).op);
    switch (op) {
      case arch::Opcode::kLoad:
      case arch::Opcode::kStore: {
        const golden::DmaFields f = golden::DecodeDma(d);
        const uint64_t bytes = uint64_t(f.count0) * f.count1 * f.count2 *
                               golden::UnitBytes(geometry, f.sram, f.out_int32, f.out_int16);
        const bool load = op == arch::Opcode::kLoad;
        ++(load ? p.loads : p.stores);
        (load ? p.bytes_loaded : p.bytes_stored) += bytes;
        break;
      }
      case arch::Opcode::kGemm:
        ++p.gemms;
        break;
      case arch::Opcode::kMove:
        ++p.moves;
        break;
      case arch::Opcode::kEltwise:  // residual adds (16.4)
        ++p.eltwises;
        break;
      case arch::Opcode::kSet:  // a slope stage's registers (requant.md 6.2)
        break;
    }
  }
}

TensorPlacement Place(ExtAllocator& ext, std::string name, TensorPlacement::Kind kind,
                      TensorPlacement::Layout layout, int layer, int rows, int cols,
                      uint32_t element_bytes, uint32_t pitch, uint64_t bytes, uint32_t panel = 0) {
  TensorPlacement t;
  t.name = std::move(name);
  t.kind = kind;
  t.layout = layout;
  t.layer = layer;
  t.rows = rows;
  t.cols = cols;
  t.element_bytes = element_bytes;
  t.pitch = pitch;
  t.panel = panel;
  t.addr = ext.Allocate(bytes, t.name);
  t.bytes = uint32_t(bytes);
  return t;
}

}  // namespace

const TensorPlacement& CompiledProgram::tensor(const std::string& name) const {
  for (const TensorPlacement& t : tensors) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("no tensor named '" + name + "'");
}

golden::AccelGeometry GeometryOf(const arch::ArchConfig& config) {
  golden::AccelGeometry g;
  g.rows = config.rows;
  g.cols = config.cols;
  g.a_depth = config.a_depth;
  g.b_depth = config.b_depth;
  g.bias_depth = config.bias_depth;
  g.rq_depth = config.rq_depth;
  g.out_depth = config.out_depth;
  g.lut_slots = config.lut_slots;
  return g;
}

CompiledProgram Compile(const arch::ArchConfig& config, const Network& network,
                        const CompileOptions& options) {
  ValidateNetwork(network);
  CompiledProgram program;
  Emitter emitter;
  ExtAllocator ext;
  const int r = config.rows, c = config.cols;
  const int layers = int(network.layers.size());
  using Kind = TensorPlacement::Kind;
  using Layout = TensorPlacement::Layout;

  // External memory (16.1): the input in row panels, then per layer its weights in column panels,
  // bias, rq and, where it is not kept on chip, its output.
  const GemmLayer& first = network.layers.front();
  const uint64_t input_pitch = uint64_t(first.k) * uint64_t(r);
  program.tensors.push_back(Place(
      ext, "x", Kind::kInput, Layout::kRowPanels, -1, first.m, first.k, 1, uint32_t(input_pitch),
      CeilDiv(uint64_t(first.m), uint64_t(r)) * input_pitch, uint32_t(r)));
  // Where the next layer's A is in external memory: the input, then each intermediate stored.
  uint32_t x_addr = program.tensors.back().addr, x_pitch = program.tensors.back().pitch;

  std::optional<WordRange> a_in;
  std::vector<uint32_t> residual_addr(size_t(layers), 0);  // <name>.res of residual sources
  for (int i = 0; i < layers; ++i) {
    const GemmLayer& l = network.layers[size_t(i)];
    const bool last = i + 1 == layers;
    LayerContext ctx;
    ctx.layer = &l;
    ctx.index = i;
    ctx.mb = int(CeilDiv(uint64_t(l.m), uint64_t(r)));
    ctx.nb = int(CeilDiv(uint64_t(l.n), uint64_t(c)));
    ctx.a_in = a_in;
    ctx.x_addr = x_addr;
    ctx.x_pitch = x_pitch;
    const uint32_t n_pad = uint32_t(ctx.nb * c);
    const uint32_t w_pitch = uint32_t(l.k) * uint32_t(c);
    program.tensors.push_back(Place(ext, l.name + ".w", Kind::kWeights, Layout::kColumnPanels, i,
                                    l.k, l.n, 1, w_pitch, uint64_t(w_pitch) * uint64_t(ctx.nb),
                                    uint32_t(c)));
    ctx.w_addr = program.tensors.back().addr;
    ctx.w_pitch = w_pitch;
    if (l.bias) {
      program.tensors.push_back(Place(ext, l.name + ".bias", Kind::kBias, Layout::kPackedWords, i,
                                      1, l.n, 4, 0, uint64_t(n_pad) * 4));
      ctx.bias_addr = program.tensors.back().addr;
    }
    if (l.per_channel) {
      program.tensors.push_back(Place(ext, l.name + ".rq", Kind::kRq, Layout::kPackedWords, i, 1,
                                      l.n, 8, 0, uint64_t(n_pad) * 8));
      ctx.rq_addr = program.tensors.back().addr;
    }
    if (l.has_activation() && !UsesSlopeStage(l)) {
      program.tensors.push_back(Place(ext, l.name + ".act", Kind::kTable, Layout::kPackedWords, i,
                                      1, golden::kLutSlotEntries, golden::kLutEntryBytes, 0,
                                      golden::kLutSlotBytes));
      ctx.table_addr = program.tensors.back().addr;
    }
    // A residual (16.4): the earlier layer's tiles, stored when it ran, and the add's fields.
    if (l.has_residual()) {
      ctx.res_load_addr = residual_addr[size_t(ResidualFrom(network, size_t(i)))];
      ctx.res_params = ResidualAddParams(network, size_t(i));
      if (l.residual.has_activation()) {
        // The slot the layer's own table would take, or the next one beside it: both are read by
        // every block.
        const bool own_table = l.has_activation() && !UsesSlopeStage(l);
        if (own_table && config.lut_slots < 2) {
          throw CompileError(fmt::format(
              "layer '{}': its activation and its residual's need two LUT slots at once (lut.slots "
              "= {})",
              l.name, config.lut_slots));
        }
        ctx.res_slot = uint32_t((i + (own_table ? 1 : 0)) % config.lut_slots);
        program.tensors.push_back(Place(ext, l.name + ".res_act", Kind::kTable,
                                        Layout::kPackedWords, i, 1, golden::kLutSlotEntries,
                                        golden::kLutEntryBytes, 0, golden::kLutSlotBytes));
        ctx.res_table_addr = program.tensors.back().addr;
      }
    }
    // A later layer's residual adds this output: it is kept tile by tile, whatever its route.
    if (IsResidualSource(network, size_t(i))) {
      const uint32_t tile_bytes = uint32_t(r) * uint32_t(c);
      program.tensors.push_back(Place(ext, l.name + ".res", Kind::kResidual, Layout::kTiles, i, l.m,
                                      l.n, 1, uint32_t(ctx.nb) * tile_bytes,
                                      uint64_t(ctx.mb) * uint64_t(ctx.nb) * tile_bytes,
                                      uint32_t(r)));
      ctx.res_store_addr = residual_addr[size_t(i)] = program.tensors.back().addr;
    }

    // Where the A operand and the output go in the A SRAM: an on-chip input occupies its range; the
    // next layer's input (chaining) is placed in the other end.
    LayerCompiler lc(config, options, emitter);
    const uint32_t next_words = last ? 0 : uint32_t(ctx.mb) * uint32_t(l.n);
    auto space_without = [&](std::optional<WordRange> next) {
      uint32_t lo = 0, hi = config.a_depth;
      for (const auto& used : {a_in, next}) {
        if (!used) continue;
        if (used->base == lo) {
          lo = used->base + used->words;
        } else {
          hi = std::min(hi, used->base);
        }
      }
      return WordRange{lo, hi > lo ? hi - lo : 0};
    };
    // The chunking with two slots per streamed operand and output, or one: the output chained on
    // chip when it fits, else to external memory. Throws the last route's CompileError.
    auto plan_with = [&](bool double_buffer) {
      if (!last && options.chain_on_chip && l.out_bytes() == 1) {
        // The next layer's A at the end of the SRAM away from this layer's on-chip input.
        const bool at_top = !a_in || a_in->base == 0;
        if (next_words <= config.a_depth - (a_in ? a_in->words : 0)) {
          WordRange next{at_top ? config.a_depth - next_words : 0, next_words};
          ctx.route = OutputRoute::kChain;
          ctx.a_next = next;
          ctx.a_space = space_without(next);
          try {
            return lc.Plan(ctx, double_buffer);
          } catch (const CompileError&) {
          }
        }
      }
      ctx.route = last ? OutputRoute::kFinal : OutputRoute::kExtIntermediate;
      ctx.a_next.reset();
      ctx.a_space = space_without(std::nullopt);
      return lc.Plan(ctx, double_buffer);
    };
    std::optional<Chunking> plan;
    std::string single_buffered_because;
    try {
      plan = plan_with(options.double_buffer);
    } catch (const CompileError& e) {
      // A layer that fits only with one slot each (K above half a depth) runs single-buffered; a
      // layer that does not fit that way either is refused with that limit.
      if (!options.double_buffer) throw;
      plan = plan_with(false);
      single_buffered_because = e.what();
    }
    if (ctx.route == OutputRoute::kFinal) {
      const uint32_t element = uint32_t(l.out_bytes());
      program.tensors.push_back(Place(ext, "y", Kind::kOutput, Layout::kRowMajor, i, l.m, l.n,
                                      element, n_pad * element,
                                      uint64_t(n_pad) * element * uint64_t(l.m)));
      ctx.y_addr = program.tensors.back().addr;
      ctx.y_pitch = n_pad * element;
    } else if (ctx.route == OutputRoute::kExtIntermediate) {
      const uint32_t y_pitch = uint32_t(l.n) * uint32_t(r);
      program.tensors.push_back(Place(ext, l.name + ".y", Kind::kIntermediate, Layout::kRowPanels,
                                      i, l.m, l.n, 1, y_pitch, uint64_t(y_pitch) * uint64_t(ctx.mb),
                                      uint32_t(r)));
      ctx.y_addr = program.tensors.back().addr;
      ctx.y_pitch = y_pitch;
    }
    program.layers.emplace_back();
    program.layers.back().single_buffered_because = single_buffered_because;
    lc.Emit(ctx, *plan, program.layers.back());

    if (ctx.route == OutputRoute::kChain) {
      a_in = ctx.a_next;
    } else {
      a_in.reset();
      x_addr = ctx.y_addr;
      x_pitch = ctx.y_pitch;
    }
  }

  const uint32_t max_launch = options.max_launch_descriptors;
  if (max_launch < 1 || max_launch > arch::kMaxQCount) {
    throw std::invalid_argument(fmt::format(
        "descriptors per launch: {} is out of range, allowed 1..{}", max_launch, arch::kMaxQCount));
  }
  program.descriptors = emitter.Finish(max_launch);
  Count(GeometryOf(config), program);
  for (size_t begin = 0; begin < program.descriptors.size(); begin += max_launch) {
    program.launches.push_back(
        {uint32_t(begin),
         uint32_t(std::min<size_t>(max_launch, program.descriptors.size() - begin))});
  }
  program.q_base =
      ext.Allocate(uint64_t(program.descriptors.size()) * golden::kDescriptorBytes, "the program");
  program.ext_bytes = uint32_t(std::min<uint64_t>(ext.size(), 0xFFFFFFFFu));
  return program;
}

}  // namespace qacc::compiler
