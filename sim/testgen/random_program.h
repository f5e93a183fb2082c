// Random programs of descriptors (docs/data_movement.md 11-14) for the `dma` and `program` suites
// and the RTL program tests: legal LOAD / STORE / MOVE / GEMM descriptors with knobs for the
// corners (a chosen SRAM and out layout, counts and strides at their edges, 4 KiB crossings,
// an external window), and WAIT/SIGNAL tokens that make a program race free (14.2).
//
// Deterministic on every platform: every draw comes from sim::Rng (splitmix64, no std::
// distributions), so the same seed gives the same descriptors everywhere.
#ifndef QACC_SIM_TESTGEN_RANDOM_PROGRAM_H_
#define QACC_SIM_TESTGEN_RANDOM_PROGRAM_H_

#include <cstdint>
#include <iterator>
#include <vector>

#include "golden/program.h"
#include "model/arch.h"
#include "model/descriptor.h"
#include "sim/testgen/rng.h"

namespace qacc::sim {

// The spec's SRAMs (arch::kSrams, in id order) as LOAD/STORE's SRAM ids: the id of the i-th and a
// random one.
inline constexpr int kNumSrams = int(std::size(arch::kSrams));
inline uint32_t SramId(int i) { return uint32_t(arch::kSrams[i].id); }
// An SRAM id no SRAM has (BAD_SRAM): 0, or above the last SRAM's up to 15 (8..15: the bit version
// 2.0 added).
inline uint32_t BadSramId(Rng& rng) {
  const auto last = uint32_t(arch::kSrams[kNumSrams - 1].id);
  return rng.Chance(25)
             ? 0u
             : rng.Pick<uint32_t>({last + 1, 8, 15, uint32_t(rng.Uniform(last + 1, 15))});
}
inline uint32_t RandomSram(Rng& rng) { return SramId(int(rng.Uniform(0, kNumSrams - 1))); }
using model::kSramA;
using model::kSramBias;
using model::kSramOut;

// SRAMs of random bytes (rq lanes in the window's form: shift word bits [5:0], bytes 1..3 zero)
// and `ext_bytes` of external memory whose first `data_bytes` are random.
golden::MachineState RandomState(Rng& rng, const golden::AccelGeometry& geometry,
                                 uint64_t ext_bytes, uint64_t data_bytes);

// Random bytes.
std::vector<uint8_t> RandomBytes(Rng& rng, size_t n);

// Knobs of RandomDma.
struct DmaKnobs {
  uint32_t sram = 0;       // an SRAM id (arch::kSrams); 0: any
  int out_unit = -1;       // the out SRAM's unit: 0 int8 entry, 1 int32 word, 2 int16 entry, -1 any
  uint64_t ext_begin = 0;  // the transfer's bytes stay in [ext_begin, ext_end)
  uint64_t ext_end = 0;
  // The transfer's SRAM units stay in [sram_begin, sram_end) (sram_end 0: the whole SRAM).
  uint64_t sram_begin = 0, sram_end = 0;
  // Shapes and strides from the edge sets: COUNT0/1/2 = 1 or large (a burst of exactly 16 beats
  // and one more, a whole 4 KiB page, hundreds of rows), strides 0 (broadcast / repeated
  // store), contiguous rows, rows that cross a 4 KiB boundary.
  bool edges = false;
  uint64_t max_units = 4096;  // with `edges`: at most this many units (keeps a run short)
  uint32_t beat_bytes = 16;   // D (mem.data_bytes), for the edge shapes of 16 beats
};

// A legal LOAD (op kLoad) or STORE (kStore) within the knobs' windows; throws std::logic_error when
// the windows admit none.
golden::Descriptor RandomDma(Rng& rng, const golden::AccelGeometry& geometry, golden::Op op,
                             const DmaKnobs& knobs);
// The form the RTL tests use: any unit, ext window [0, ext_limit), SRAM `sram` (0: any).
golden::Descriptor RandomDma(Rng& rng, const golden::AccelGeometry& geometry, golden::Op op,
                             uint64_t ext_limit, uint32_t sram = 0);

// A legal MOVE into `dst` (1 A, 2 B; 0: either), up to 3 x 2 tiles.
golden::Descriptor RandomMove(Rng& rng, const golden::AccelGeometry& geometry, uint32_t dst = 0);

// The add fields of a legal ELTWISE add (lut.md 10.5) into `f`: half the time golden's own
// derivation from random 8-bit specs (MakeAddParams, either form), else every field drawn over
// its legal range with its extremes; the clamp sometimes narrower than the result's type.
void RandomEltwiseAdd(Rng& rng, golden::EltwiseFields& f);

// A legal ELTWISE (lut.md 10.5): OP `op` (0 LUT, 1 ADD, 2 ADD_LUT; -1 any), 1..max_count words,
// the lookup's fields over their legal ranges (slot, 2..8 input bits, 8- or 16-bit entries), the
// result in place a quarter of the time (int8 output), else disjoint from its sources.
golden::Descriptor RandomEltwise(Rng& rng, const golden::AccelGeometry& geometry, int op = -1,
                                 uint32_t max_count = 24);

// A small legal GEMM (M, N <= 20, K <= 24) at random bases; per-channel only with OUT_RAW (the rq
// SRAM holds random, possibly illegal multipliers, whose requant result the spec leaves
// undefined).
golden::Descriptor RandomGemm(Rng& rng, const golden::AccelGeometry& geometry);

// One GEMM in three: the per-tensor requant fields of the TPU-MLIR form (requant.md 6.1), any
// width and mode, a multiplier of the width and an rshift of 8..30; otherwise `f` is unchanged.
// Drawn from the GEMM's own fields, not from a generator's stream: the programs drawn before
// the form existed stay the same.
void MaybeTpuMlirRequant(golden::GemmFields& f);

// Orders the program with WAIT/SIGNAL pairs so that it is race free: a descriptor that touches what
// an unordered earlier descriptor of the other engine touches (one of them writing) waits for a
// token from the latest descriptor of that engine. `extra` percent of the descriptors get a pair
// even without a conflict (token traffic, WAITs that wait). The program must hold no WAIT or
// SIGNAL yet.
void AddTokens(std::vector<golden::Descriptor>& program, Rng& rng,
               const golden::AccelGeometry& geometry, int extra);

// Knobs of RandomProgram: the weights of each opcode (relative), the data window of the DMA.
struct ProgramKnobs {
  int load = 3, store = 3, move = 2, gemm = 2, eltwise = 0;
  int extra_tokens = 20;  // AddTokens' `extra`
  DmaKnobs dma;           // sram, out_int32, edges and the windows of every LOAD / STORE
};

// A random race-free program of `n` descriptors.
std::vector<golden::Descriptor> RandomProgram(Rng& rng, const golden::AccelGeometry& geometry,
                                              int n, const ProgramKnobs& knobs);
// The form the RTL tests use: the external data window [0, data_limit).
std::vector<golden::Descriptor> RandomProgram(Rng& rng, const golden::AccelGeometry& geometry,
                                              int n, uint64_t data_limit, int extra = 20);

// The 64-byte little-endian images of `program` (golden::StoreProgram's layout), for WriteExt.
std::vector<uint8_t> DescriptorBytes(const std::vector<golden::Descriptor>& program);

// Sets / clears the header bits.
inline void SetWait(golden::Descriptor& d) { arch::desc::Put(d, arch::desc::header::kWait, 1); }
inline void SetSignal(golden::Descriptor& d) { arch::desc::Put(d, arch::desc::header::kSignal, 1); }

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_RANDOM_PROGRAM_H_
