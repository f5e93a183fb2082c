// The "lut" suite (docs/testplan.md; lut.md 10): GEMMs with the LUT stage fused (CMD_MODE.ACT =
// LUT), their tables loaded into the table SRAM's slots through the host window, checked by the
// co-simulation like every command (the LUT unit's beats lane by lane, the out writer's int8 or
// int16 writes, every copy of the table SRAM after each command, the result against golden's Lut
// applied to golden's GEMM and requant: model::GoldenOutput).
//   lut_fused  one random GEMM of the gemm suite's draw with a random table: every built-in
//              function, input width 2..8, signed, unsigned and narrow, exact and seed-compat,
//              8- and 16-bit entries, any slot; sometimes a clamp wider than the table's codes
//              (the code's low bits address it, lut.md 10.3)
//   lut_slots  several commands over several slots in one run: slots reloaded between commands,
//              other slots loaded while one waits, slots 0 and S - 1
//   lut_sweep  every code 0..255 through an 8-bit table in every slot: each address of each slot
//              read, in both entry widths
#ifndef QACC_SIM_TESTGEN_LUT_TESTS_H_
#define QACC_SIM_TESTGEN_LUT_TESTS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "golden/lut.h"
#include "model/arch.h"
#include "model/gemm_job.h"
#include "sim/testgen/program.h"
#include "sim/testgen/rng.h"
#include "sim/testgen/suites.h"

namespace qacc::sim {

std::vector<TestInfo> LutTests();
// Throws std::invalid_argument for an unknown name.
Program MakeLutTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config);

// A random table the LUT unit can hold: a built-in function, input width 2..8 (signed, unsigned or
// narrow), entries of 8 or 16 bits (signed or unsigned), exact or seed-compat mode.
golden::Lut RandomLut(Rng& rng, int in_bits, int entry_bits);
golden::Lut RandomLut(Rng& rng);

// Fuses `lut` in slot `slot` after the job's requant (ACT = LUT): the requant output takes the
// table's input zero point and codes as its clamp (or, with `wide_clamp`, a clamp beyond them:
// the codes' low bits address the table), OUT_RAW off, and the shape and OUT_BASE refitted to
// the out SRAM in the layout of the table's entries.
void FuseLut(Rng& rng, const arch::ArchConfig& config, golden::Lut lut, uint32_t slot,
             bool wide_clamp, model::GemmJob& job);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_LUT_TESTS_H_
