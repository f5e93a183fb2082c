// The frame of the dma suite's tests (sim/testgen/dma_tests.h, dma_rule_tests.h): the external
// memory layout of a test, the program builder, and the end-of-program checks of every program it
// emits.
#ifndef QACC_SIM_TESTGEN_DMA_CONTEXT_H_
#define QACC_SIM_TESTGEN_DMA_CONTEXT_H_

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "golden/program.h"
#include "model/arch.h"
#include "sim/testgen/program.h"
#include "sim/testgen/random_program.h"
#include "sim/testgen/rng.h"

namespace qacc::sim::dma_test {

using arch::ErrCode;
using golden::Descriptor;
using golden::Op;

inline constexpr uint64_t kPage = 4096;

// The external memory of a dma test: random data in [0, data_end) that LOADs read and STOREs
// overwrite, programs from q_base (64 KiB, 1024 descriptors) up; the rest zero. The memory's
// top (config ext_mem.size_bytes) is where dma_ext_fault's accesses fault.
struct Context {
  Context(Rng& rng_in, const arch::ArchConfig& config_in)
      : rng(rng_in), config(config_in), g(compiler::GeometryOf(config_in)), b(config_in) {
    ext_size = config.ext_mem_size_bytes;
    data_end = std::min<uint64_t>(uint64_t{1} << 20, ext_size / 2) / kPage * kPage;
    q_base = uint32_t(data_end);
    if (q_base + 0x20000 > ext_size) {
      throw std::logic_error(fmt::format("dma tests: ext_mem.size_bytes {} of {} is below 2 MiB",
                                         ext_size, config.name));
    }
  }

  DmaKnobs Knobs(uint32_t sram = 0) const {
    DmaKnobs k;
    k.sram = sram;
    k.ext_end = data_end;
    k.beat_bytes = uint32_t(config.mem_data_bytes);
    k.max_units = 2048;
    return k;
  }

  // Random data, then every SRAM loaded whole (the out SRAM as int32 words) from it, so that
  // STOREs and GEMMs see random contents on both sides.
  void Setup() {
    b.WriteExt(0, RandomBytes(rng, size_t(data_end)));
    std::vector<Descriptor> fill;
    for (int i = 0; i < kNumSrams; ++i) {
      const uint32_t sram = SramId(i);
      golden::DmaFields f;
      f.sram = sram;
      f.out_int32 = sram == kSramOut;
      const uint64_t unit = golden::UnitBytes(g, sram, f.out_int32);
      const uint64_t units = std::min<uint64_t>(
          {golden::SramUnits(g, sram, f.out_int32), data_end / unit, uint64_t{65535}});
      f.count0 = uint32_t(units);
      f.ext_addr =
          uint32_t(unit * uint64_t(rng.Uniform(0, int64_t((data_end - units * unit) / unit))));
      fill.push_back(golden::EncodeDma(Op::kLoad, f, golden::Header{}));
    }
    Emit(fill, "fill every SRAM");
  }

  // Fails the generator when the first `checked` descriptors (all: -1) race (14.2).
  void RequireRaceFree(const std::vector<Descriptor>& p, int checked, uint32_t base,
                       const std::string& what) const {
    std::vector<Descriptor> prefix(p.begin(), checked < 0 ? p.end() : p.begin() + checked);
    const std::vector<golden::Race> races = golden::RaceCheck(g, prefix, base);
    if (!races.empty()) {
      throw std::logic_error(fmt::format("dma test generator bug: {}: descriptors {} and {} race",
                                         what, races[0].first, races[0].second));
    }
  }

  std::string Describe(const std::vector<Descriptor>& p, uint32_t count,
                       const std::string& what) const {
    int ops[1 << arch::kOpBits] = {};
    for (uint32_t i = 0; i < count && i < p.size(); ++i) ++ops[golden::DecodeHeader(p[i]).op];
    const auto n = [&ops](Op op) { return ops[size_t(op)]; };
    return fmt::format("{}: {} descriptors ({} LOAD, {} STORE, {} GEMM, {} MOVE, {} ELTWISE)", what,
                       count, n(Op::kLoad), n(Op::kStore), n(Op::kGemm), n(Op::kMove),
                       n(Op::kEltwise));
  }

  // Writes the program at `base` (q_base by default) and runs it with every end-of-program check.
  int Emit(const std::vector<Descriptor>& p, const std::string& what, ErrCode want = ErrCode::kNone,
           int race_checked = -1, int64_t count = -1, int64_t base = -1) {
    const uint32_t at = base < 0 ? q_base : uint32_t(base);
    const uint32_t n = count < 0 ? uint32_t(p.size()) : uint32_t(count);
    RequireRaceFree(p, race_checked, at, what);
    if (!p.empty()) b.WriteExt(at, DescriptorBytes(p));
    if (poll_reads == 0 && !rng.Chance(50)) return b.RunAndCheck(at, n, want, Describe(p, n, what));
    // Half the programs (and every one with poll_reads) are read while they run; each read's value
    // at its cycle is compared with the model's (17.8).
    const int index = b.Run(at, n, want, Describe(p, n, what));
    if (poll_reads > 0 || rng.Chance(50)) {
      // Back to back reads of one register: a value one cycle early or late shows only in the
      // cycle it changes, which scattered reads rarely hit.
      const uint32_t offset = poll_reads > 0
                                  ? poll_register
                                  : rng.Pick<uint32_t>({arch::reg::kQTokens, arch::reg::kQRetired,
                                                        arch::reg::kQErrIndex, arch::reg::kStatus});
      b.Idle(rng.Uniform(0, 60));
      for (int i = poll_reads > 0 ? poll_reads : int(rng.Uniform(50, 400)); i > 0; --i) {
        b.Read(arch::kRegsBase + offset);
      }
    } else {
      // STATUS, Q_* and the counters at random cycles.
      for (int i = int(rng.Uniform(1, 3)); i > 0; --i) {
        b.Idle(rng.Uniform(0, 120));
        for (uint32_t offset :
             {arch::reg::kStatus, arch::reg::kQRetired, arch::reg::kQErrIndex, arch::reg::kQTokens,
              arch::reg::kPerfCycles, arch::reg::kPerfMacBusy, arch::reg::kPerfDmaBusy,
              arch::reg::kPerfComputeWait, arch::reg::kPerfRdBeats, arch::reg::kPerfWrBeats}) {
          b.Read(arch::kRegsBase + offset);
        }
      }
    }
    b.WaitDone();
    b.ReadRegisters();
    b.CheckProgram(index);
    b.CheckSrams();
    return index;
  }

  Rng& rng;
  // When poll_reads > 0, Emit reads `poll_register` that many times back to back while each
  // program runs (a test that knows which register's changes it creates).
  int poll_reads = 0;
  uint32_t poll_register = arch::reg::kQTokens;
  const arch::ArchConfig& config;
  golden::AccelGeometry g;
  ProgramBuilder b;
  uint64_t ext_size = 0, data_end = 0;
  uint32_t q_base = 0;
};

void Shuffle(Rng& rng, std::vector<Descriptor>& p);

// A short transfer: COUNT0 1..4 of `sram`, one row, in the SRAM units [begin, end).
Descriptor SmallDma(Context& c, Op op, uint32_t sram, uint64_t begin = 0, uint64_t end = 0);

// A GEMM of about `tiles` x K cycles that reads A and B from word 0, no bias and no rq (so that
// LOADs into those SRAMs need no token), int8 or int32 out from word 0.
Descriptor LongGemm(Context& c, int mb, int nb, int k);

// The range code of an SRAM id 1..5 (A_RANGE .. OUT_RANGE).
ErrCode RangeCode(uint32_t sram);

// Fails the generator when golden's validation of `bad` is not `want`.
void RequireError(const Context& c, const Descriptor& bad, ErrCode want);

}  // namespace qacc::sim::dma_test

#endif  // QACC_SIM_TESTGEN_DMA_CONTEXT_H_
