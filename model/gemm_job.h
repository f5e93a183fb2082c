// A GEMM job as the host driver sees it: operand matrices and requant parameters, packed into the
// SRAM windows as section 6.1 prescribes, the CMD_* register values that launch it, the golden
// result and the unpacking of the output SRAM (6.3). Shared by the model's tests, the model-only
// runner and the co-simulation's host transactor, so that RTL and model receive exactly the same
// bus writes.
#ifndef QACC_MODEL_GEMM_JOB_H_
#define QACC_MODEL_GEMM_JOB_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "golden/gemm.h"
#include "golden/lut.h"
#include "golden/requant.h"
#include "golden/slope_stage.h"
#include "model/arch.h"

namespace qacc::model {

struct GemmJob {
  int m = 1, n = 1, k = 1;
  bool a_unsigned = false, b_unsigned = false;
  std::vector<uint8_t> a;  // M x K row-major operand codes (two's complement bytes when signed)
  std::vector<uint8_t> b;  // K x N row-major
  int32_t a_zp = 0, b_zp = 0;
  std::vector<int32_t> bias;  // empty (BIAS_EN = 0) or N entries
  bool out_raw = false;       // store the int32 biased accumulators
  bool per_channel = false;
  // Per-tensor multiplier/shift (unused with per_channel), and the command-wide rounding, output
  // zero point and clamp.
  golden::RequantParams requant;
  std::vector<int32_t> channel_mult;  // N entries with per_channel
  std::vector<int> channel_shift;     // N entries with per_channel
  // ACT = LUT (lut.md 10.4): the activation table, loaded into slot `lut_slot`. Its input is the
  // requant code (its address bits are LUT_IN_BITS), its entries 8 or 16 bits (LUT_ENTRY_BITS).
  std::optional<golden::Lut> lut;
  uint32_t lut_slot = 0;
  // Without a LUT: what CMD_MODE's LUT fields hold anyway (bits [24:12], the rest ignored). The
  // hardware ignores them without ACT = LUT (lut.md 10.4); tests write any bits there.
  uint32_t ignored_lut_fields = 0;
  // ACT = SLOPE (requant.md 6.2): the slope stage after requant, its input zero point the requant's
  // output_zero_point; its registers are written with the command's (CommandWrites).
  std::optional<golden::SlopeStageParams> slope;
  // PReLU (SLOPE_PER_CHANNEL, requant.md 6.3): empty, or N entries, channel n's stage; each differs
  // from `slope` (the registers) only in its NEG side's multiplier, shift and (TFLite form) the
  // sign of K. Its words follow the first stage's per tile in the rq SRAM.
  std::vector<golden::SlopeStageParams> channel_slope;
  // Without a slope: CMD_MODE.SLOPE_PER_CHANNEL set anyway, which only ACT = SLOPE reads (6.3).
  bool ignored_slope_per_channel = false;
  uint32_t a_base = 0, b_base = 0, bias_base = 0, rq_base = 0, out_base = 0;  // SRAM words
  // Value written into padding lanes of A and B words (don't-care lanes: any value must give the
  // same result).
  uint8_t pad_byte = 0x5A;
};

// One 32-bit host bus write (pstrb = strobe).
struct BusWrite {
  uint32_t addr = 0;
  uint32_t data = 0;
  uint8_t strobe = 0xF;
};

// The rq words per column tile: PER_CHANNEL's, then the slope's (requant.md 6.3).
int64_t RqWordsPerTile(const GemmJob& job);

// The CMD_* register values of the job.
arch::Command ToCommand(const GemmJob& job);
// The CMD_* register writes (opcode, M, N, K, bases, mode, zero points, clamp, multiplier, shift),
// without START: of any register values, or of the job's. With ACT = SLOPE the slope registers
// first (command state, requant.md 6.2).
std::vector<BusWrite> CommandWrites(const arch::Command& cmd);
std::vector<BusWrite> CommandWrites(const GemmJob& job);
// The SRAM window writes that load A, B, bias and rq in the panel layout of 6.1 (whole words:
// padding lanes of A/B get pad_byte, of bias 0, of rq (0, 0)), and the table's slot image
// (golden::LutSlotImage) with a LUT.
std::vector<BusWrite> PackOperands(const arch::ArchConfig& config, const GemmJob& job);

// The golden result: golden::Gemm (with bias) and, unless out_raw, golden::ApplyOutputStage, then
// with a LUT the table's entry at the code's low address bits (lut.md 10.3: Lut::Lookup for a code
// of the table's input range), or with a slope golden::SlopeStage on the code.
golden::Matrix<int32_t> GoldenOutput(const GemmJob& job);
// Reads the M x N result from the output window image (Srams::image(kOut)): int32 lanes with
// out_raw; with a LUT its entries (int8 or int16 layout), signed as the table's output; else one
// byte per element, read as uint8 when clamp_min >= 0 and as int8 otherwise.
golden::Matrix<int32_t> UnpackOutput(const arch::ArchConfig& config, const GemmJob& job,
                                     const std::vector<uint8_t>& out_image);

}  // namespace qacc::model

#endif  // QACC_MODEL_GEMM_JOB_H_
