#include "sim/testgen/slope_programs.h"

#include "golden/slope_stage.h"
#include "model/descriptor.h"
#include "sim/testgen/dma_context.h"
#include "sim/testgen/slope_draw.h"

namespace qacc::sim {
namespace {

using dma_test::Context;
using golden::Descriptor;

// A legal slope drawn for the GEMM's own first stage (its zero point and clamp adjusted to the
// slope's input spec when the draw asks for one).
golden::SlopeRegisters DrawRegisters(Rng& rng, golden::GemmFields& f) {
  model::GemmJob job;
  job.requant.output_zero_point = f.zp_out;
  job.requant.clamp_min = f.clamp_min;
  job.requant.clamp_max = f.clamp_max;
  DrawSlope(rng, rng.Chance(50) ? SlopeDraw::kForms : SlopeDraw::kAny, job);
  f.zp_out = job.requant.output_zero_point;
  f.clamp_min = job.requant.clamp_min;
  f.clamp_max = job.requant.clamp_max;
  return golden::EncodeSlopeRegisters(*job.slope);
}

// A random GEMM with ACT = SLOPE (int8 output) and the registers it is drawn for.
Descriptor SlopeGemm(Context& c, golden::SlopeRegisters* registers) {
  golden::GemmFields f = golden::DecodeGemm(RandomGemm(c.rng, c.g));
  f.mode &= ~(arch::kModeOutRaw | arch::kModePerChannel | arch::kModeActMask);
  f.mode |= uint32_t(arch::Act::kSlope) << arch::kModeActLsb;
  const golden::SlopeRegisters drawn = DrawRegisters(c.rng, f);
  if (registers != nullptr) *registers = drawn;
  return golden::EncodeGemm(f, golden::Header{});
}

Descriptor SetOf(const golden::SlopeRegisters& values) {
  golden::SetFields f;
  f.reg = arch::reg::kSlopePosMult / 4;
  f.count = uint32_t(values.size());
  std::copy(values.begin(), values.end(), f.value.begin());
  return golden::EncodeSet(f, golden::Header{});
}

// Registers that no stage holds: rule `rule` (0 .. kIllegalRules - 1) of requant.md 6.2 broken.
constexpr int kIllegalRules = 4;
golden::SlopeRegisters Illegal(int rule, golden::SlopeRegisters r) {
  switch (rule) {
    case 0:  // the clamp reversed
      r[8] = 100, r[9] = 99;
      break;
    case 1:  // a TFLite multiplier below 2^30
      r[7] &= ~uint32_t(arch::kSlopeNegRqForm), r[4] = (1u << 30) - 1;
      break;
    case 2:  // a TPU-MLIR mode no form has
      r[3] |= arch::kSlopePosRqForm | arch::kSlopePosRshiftRoundMask;
      break;
    default:  // a bound beyond the int8 mode's
      r[9] = 256;
      break;
  }
  return r;
}

void HostWrite(Context& c, const golden::SlopeRegisters& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    c.b.Write(arch::kRegsBase + arch::reg::kSlopePosMult + 4 * uint32_t(i), values[i]);
  }
}

// PReLU in a program (requant.md 6.3): a GEMM of several tiles with SLOPE_PER_CHANNEL (and on half
// of them PER_CHANNEL: two rq words a tile), its words written by the host, its registers by a
// SET; STOREs of the rq SRAM run beside it, so the DMA's reads of the rq port meet the GEMM's at
// O(t, 0) - 1 and O(t, 0) and wait (data_movement.md 17.6).
void PreluProgram(Context& c) {
  Rng& rng = c.rng;
  const int rows = c.config.rows, cols = c.config.cols;
  golden::GemmFields f = golden::DecodeGemm(RandomGemm(rng, c.g));
  f.m = uint32_t(rng.Uniform(rows + 1, 3 * rows));
  f.n = uint32_t(rng.Uniform(cols + 1, 4 * cols));
  f.k = uint32_t(rng.Uniform(1, 12));
  const int64_t mb = arch::CeilDiv(f.m, rows), nb = arch::CeilDiv(f.n, cols);
  const bool first_stage_words = rng.Chance(50);
  f.mode &= ~(arch::kModeOutRaw | arch::kModePerChannel | arch::kModeActMask);
  f.mode |= uint32_t(arch::Act::kSlope) << arch::kModeActLsb | arch::kModeSlopePerChannel |
            (first_stage_words ? arch::kModePerChannel : 0u);
  const int64_t words = first_stage_words ? 2 : 1;
  f.a_base = uint32_t(rng.Uniform(0, int64_t(c.g.a_depth) - mb * f.k));
  f.b_base = uint32_t(rng.Uniform(0, int64_t(c.g.b_depth) - nb * f.k));
  f.bias_base = uint32_t(rng.Uniform(0, int64_t(c.g.bias_depth) - nb));
  f.rq_base = uint32_t(rng.Uniform(0, int64_t(c.g.rq_depth) - words * nb));
  f.out_base = uint32_t(rng.Uniform(0, int64_t(c.g.out_depth) - mb * nb * rows / 4));
  model::GemmJob job;
  job.n = int(f.n);
  job.requant.output_zero_point = f.zp_out;
  job.requant.clamp_min = f.clamp_min;
  job.requant.clamp_max = f.clamp_max;
  DrawSlope(rng, rng.Chance(50) ? SlopeDraw::kForms : SlopeDraw::kAny, job, true);
  f.zp_out = job.requant.output_zero_point;
  f.clamp_min = job.requant.clamp_min;
  f.clamp_max = job.requant.clamp_max;
  // Every lane's words legal, the padding lanes' too: the first stage's of its form, the slope's of
  // channel n (0 past N).
  const bool tpu = f.mode & arch::kModeRqForm;
  const int64_t half = int64_t{1} << (arch::MultWidthBits((f.mode & arch::kModeMultWidthMask) >>
                                                          arch::kModeMultWidthLsb) -
                                      1);
  for (int64_t t = 0; t < nb; ++t) {
    for (int lane = 0; lane < cols; ++lane) {
      const int64_t n = t * cols + lane;
      const uint32_t byte = uint32_t(((f.rq_base + words * t) * cols + lane) * arch::kRqLaneBytes);
      if (first_stage_words) {
        c.b.Write(arch::kRqBase + byte,
                  uint32_t(tpu ? rng.Uniform(-half, half - 1)
                               : rng.Uniform(arch::kMinNonzeroMult, INT32_MAX)));
        c.b.Write(arch::kRqBase + byte + 4,
                  uint32_t(tpu ? rng.Uniform(8, 30) : rng.Uniform(-16, 0)));
      }
      const golden::SlopeChannelWords slope =
          n < job.n ? golden::EncodeSlopeChannelWords(*job.slope, job.channel_slope[size_t(n)])
                    : golden::SlopeChannelWords{};
      const uint32_t at = byte + (first_stage_words ? uint32_t(cols) * arch::kRqLaneBytes : 0);
      c.b.Write(arch::kRqBase + at, slope.mult);
      c.b.Write(arch::kRqBase + at + 4, slope.shift);
    }
  }
  std::vector<Descriptor> p = {SetOf(golden::EncodeSlopeRegisters(*job.slope)),
                               golden::EncodeGemm(f, golden::Header{})};
  for (int i = int(rng.Uniform(2, 4)); i > 0; --i) {
    p.push_back(RandomDma(rng, c.g, golden::Op::kStore, c.Knobs(model::kSramRq)));
  }
  c.Emit(p, first_stage_words ? "PReLU, two rq words a tile, beside STOREs of the rq SRAM"
                              : "PReLU beside STOREs of the rq SRAM");
}

}  // namespace

Program GenSlopePrograms(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  golden::SlopeRegisters s1, s2;
  // The registers of the launch illegal, but a SET fetched before each GEMM that reads them.
  HostWrite(c, Illegal(int(rng.Uniform(0, kIllegalRules - 1)), golden::SlopeRegisters{}));
  {
    Descriptor g1 = SlopeGemm(c, &s1);
    Descriptor g2 = SlopeGemm(c, nullptr);
    const Descriptor set1 = SetOf(s1);
    Descriptor g3 = SlopeGemm(c, &s2);
    c.Emit({set1, g1, g2, SetOf(s2), g3}, "SET, two slope GEMMs, SET, a slope GEMM");
  }
  // The fetcher ahead of the compute engine: a long GEMM runs while the SET and the slope GEMM
  // behind it are fetched, so the GEMM is validated before the SET writes the registers (illegal
  // at the launch): the fetch rule's SET-seen flag lets it through. The slope registers are read
  // back to back meanwhile (each read against the model's, in its cycle: the SET's write).
  HostWrite(c, Illegal(int(rng.Uniform(0, kIllegalRules - 1)), s1));
  {
    golden::SlopeRegisters s3;
    Descriptor g = SlopeGemm(c, &s3);
    c.poll_reads = int(rng.Uniform(200, 600));
    c.poll_register = arch::reg::kSlopePosMult + 4 * uint32_t(rng.Uniform(0, 9));
    c.Emit({dma_test::LongGemm(c, 4, 4, 32), SetOf(s3), g},
           "a slope GEMM fetched before its SET runs");
    c.poll_reads = 0;
  }
  // No SET: the registers the last program left (s3) are legal.
  c.Emit({SlopeGemm(c, nullptr), RandomGemm(rng, c.g)}, "a slope GEMM on the registers left");
  // The registers of the launch illegal and no SET before the slope GEMM: BAD_SLOPE at its index,
  // after a GEMM without the stage that runs.
  HostWrite(c, Illegal(int(rng.Uniform(0, kIllegalRules - 1)), s2));
  c.Emit({RandomGemm(rng, c.g), SlopeGemm(c, nullptr)}, "a slope GEMM on illegal registers",
         arch::ErrCode::kBadSlope);
  // A SET of an illegal slope, each way of being one (each side's form, the clamp): BAD_SLOPE at
  // the SET, the GEMM before it runs.
  HostWrite(c, s1);
  for (int rule = 0; rule < kIllegalRules; ++rule) {
    c.Emit({SlopeGemm(c, nullptr), SetOf(Illegal(rule, s1))}, "a SET of an illegal slope",
           arch::ErrCode::kBadSlope);
  }
  // A program that ends with a SET, then illegal registers from the host and a slope GEMM first in
  // the next program: the SET of the last program (still the fetcher's descriptor in hand) counts
  // for nothing; BAD_SLOPE at index 0.
  {
    golden::SlopeRegisters s4;
    Descriptor g = SlopeGemm(c, &s4);
    c.Emit({g, SetOf(s4)}, "a program that ends with a SET");
  }
  HostWrite(c, Illegal(int(rng.Uniform(0, kIllegalRules - 1)), s1));
  c.Emit({SlopeGemm(c, nullptr)}, "a slope GEMM first after a program's last SET",
         arch::ErrCode::kBadSlope);
  for (int i = 0; i < 2; ++i) PreluProgram(c);
  return c.b.Take();
}

}  // namespace qacc::sim
