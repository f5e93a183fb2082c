// The end-of-program checks against the golden executor (docs/data_movement.md 18): the memories
// at a program's launch are kept, golden::RunQueue runs on them when the program has ended, and
// the model's outcome (error, Q_ERR_INDEX, Q_RETIRED, every SRAM, the external memory image) is
// compared with golden's. Shared by the lockstep and the model-only runs. And the whole-memory
// comparisons of RTL and model after a command or a program.
#ifndef QACC_SIM_COSIM_PROGRAM_CHECK_H_
#define QACC_SIM_COSIM_PROGRAM_CHECK_H_

#include <cstdint>
#include <vector>

#include "golden/program.h"
#include "model/accel_state.h"
#include "model/arch.h"
#include "sim/cosim/dut.h"
#include "sim/cosim/scoreboard.h"
#include "sim/testgen/program.h"

namespace qacc::cosim {

// The memories of `state` as golden holds them: SRAM window images (an rq shift word keeps bits
// [5:0], its other bytes 0) and the whole external memory.
golden::MachineState GoldenState(const arch::ArchConfig& config, const model::AccelState& state);

// `initial`: GoldenState at the launch of program command `index` (`command`); `state` holds the
// model after the program's end (its last_program()). Records mismatches under kProgram at `cycle`:
// the generator's intended error vs golden's (a test that does not test what it says), the model's
// error and index vs golden's, and, unless the error is EXT_FAULT (14.3: then which descriptors ran
// depends on timing), Q_RETIRED, every SRAM and the external memory image.
void CheckProgramAgainstGolden(const arch::ArchConfig& config, const sim::ProgramCommand& command,
                               int index, golden::MachineState initial,
                               const model::AccelState& state, int64_t cycle,
                               Scoreboard& scoreboard);

// The external memory images of the RTL and the model, byte for byte: one mismatch (the first
// differing byte and the count) under kExtMem.
void CompareExtImages(const golden::MemoryImage& rtl, const golden::MemoryImage& model,
                      int64_t cycle, int command, Scoreboard& scoreboard);

// The whole content of every SRAM (arch::kSrams) after a command, the RTL's (read by the backdoor)
// vs the model's: a write anywhere, by the datapath or the host, that the other side did not make
// is a mismatch under kSram, one per differing word, in the bits the SRAM defines
// (SramDefinedBits). `scratch` holds the RTL's image between calls.
void CompareSrams(const arch::ArchConfig& config, const model::Srams& model, const Dut& dut,
                  int64_t cycle, std::vector<uint8_t>& scratch, Scoreboard& scoreboard);

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_PROGRAM_CHECK_H_
