// The slope stage's parameters for a GEMM test (docs/requant.md 6.2): golden's three LeakyReLU
// forms built from quantization specs that match the job's first stage, arbitrary legal stages over
// every field's range, and stages aimed at the rounding ties and the extremes of d and K.
#ifndef QACC_SIM_TESTGEN_SLOPE_DRAW_H_
#define QACC_SIM_TESTGEN_SLOPE_DRAW_H_

#include "model/gemm_job.h"
#include "sim/testgen/rng.h"

namespace qacc::sim {

enum class SlopeDraw {
  kForms,     // golden's forms: LeakyRelu (TFLite, any alpha), seed 002's 8-bit form, TFLite r1.15
  kAny,       // any legal stage: each side's form, multiplier, shift, modes, K and zero point
  kTies,      // the TPU-MLIR form with m = +-2^u and rshift u + 1: every odd x is a tie
  kExtremes,  // K -256 and 255, d -383 and 383, the forms' extreme multipliers and shifts
};

// Sets job.slope; kForms and kExtremes also set the first stage's zero point and clamp (the
// input spec of the form, or the widest codes). The job must not be out_raw. With per_channel
// also job.channel_slope (PReLU, requant.md 6.3): kForms draws golden's PReLU forms (Prelu, seed
// 002's Int8SlopePrelu), the others the registers' stage with each channel's NEG multiplier and
// shift drawn in the same way and, in the TFLite form, K negated on half of the channels. The
// caller fits RQ_BASE to the job's rq words.
void DrawSlope(Rng& rng, SlopeDraw draw, model::GemmJob& job, bool per_channel = false);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_SLOPE_DRAW_H_
