// The "program" suite (docs/testplan.md): each test is a program of several commands with bus
// traffic between and during them, checked by the co-simulation like a single GEMM (every beat,
// every bus response, BUSY and irq_o every cycle, whole SRAMs after each command, results vs
// golden).
//   prog_chain    the output of one command is the A operand of the next; back-to-back relaunch;
//                 IRQ enable, DONE W1C
//   prog_errors   every validation rule at its boundary: the last legal value runs, the first
//                 illegal one fails with its code; two failing rules at once; nothing is written
//   prog_bus      accesses while busy at chosen cycles: every register, SRAM windows (refused),
//                 CMD_* and CTRL writes (refused), read-only, reserved and unmapped addresses
//   prog_corners  legal field extremes: output zero point and clamp at their limits, saturation
//                 with zero points, ties in both rounding stages, every shift, bias wrap-around,
//                 K = 1 and the largest K, operands and results at the end of each SRAM
//   prog_launch_after_reset  a command launched about 12 cycles after reset, inside the bias-read
//                 delay line's length on 16 columns (a delay line reset leaves non-empty fires into it)
#ifndef QACC_SIM_TESTGEN_PROGRAM_TESTS_H_
#define QACC_SIM_TESTGEN_PROGRAM_TESTS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/arch.h"
#include "sim/testgen/program.h"
#include "sim/testgen/suites.h"

namespace qacc::sim {

std::vector<TestInfo> ProgramTests();
// Throws std::invalid_argument for an unknown name.
Program MakeProgramTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_PROGRAM_TESTS_H_
