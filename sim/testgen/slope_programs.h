// The slope stage in programs (docs/requant.md 6.2), a test of the dma suite:
//   dma_slope   SETs of the slope registers between GEMMs with ACT = SLOPE; the fetcher's rule for
//   a
//               GEMM's registers (a SET fetched before it, or the registers of the launch legal) on
//               both sides of its boundary; a SET of an illegal slope; the registers read back
#ifndef QACC_SIM_TESTGEN_SLOPE_PROGRAMS_H_
#define QACC_SIM_TESTGEN_SLOPE_PROGRAMS_H_

#include "model/arch.h"
#include "sim/testgen/program.h"
#include "sim/testgen/rng.h"

namespace qacc::sim {

Program GenSlopePrograms(Rng& rng, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_SLOPE_PROGRAMS_H_
