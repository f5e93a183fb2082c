// The "dma" suite (docs/testplan.md): programs of LOAD / STORE descriptors (docs/data_movement.md
// 11-17) launched with CTRL.RUN, with compute commands where a test overlaps them. Every run puts
// random data and its descriptors into the external memory by backdoor (WriteExt), fills every
// SRAM with a first program of whole-SRAM LOADs, and ends each program with RunAndCheck: every
// register, the external memory images of RTL and model, the model against the golden executor
// (golden::RunQueue) and every SRAM. Each program is race free (golden::RaceCheck, checked by the
// generator) unless a test says otherwise.
//   dma_load_store       every SRAM and out layout as LOAD destination and STORE source
//   dma_edges            counts and strides at their edges, 4 KiB crossings, bursts of 16 beats
//   dma_back_to_back     DMA descriptors only, queue full; a RUN right after DONE
//   dma_overlap          DMA overlapped with GEMM and MOVE under WAIT/SIGNAL tokens
//   dma_queue_tokens     token counters at 15 both ways, a SIGNAL held at 15, WAITs that wait,
//                        both queues full and empty while the program runs
//   dma_errors           validation errors in the middle of a program, DEADLOCK, Q_COUNT = 0
//   dma_ext_fault        EXT_FAULT: a LOAD and a STORE reaching the external memory's end, a
//                        descriptor fetched from beyond it
//   dma_random           random programs of every opcode, plain or edge shapes
//   dma_token_races, dma_deadlocks, dma_check_order, dma_port_stalls
//                        the program engine's rules, aimed at (dma_rule_tests.h)
#ifndef QACC_SIM_TESTGEN_DMA_TESTS_H_
#define QACC_SIM_TESTGEN_DMA_TESTS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/arch.h"
#include "sim/testgen/program.h"
#include "sim/testgen/suites.h"

namespace qacc::sim {

std::vector<TestInfo> DmaTests();
// Throws std::invalid_argument for an unknown name, std::logic_error when a generator's own check
// fails (a race, a descriptor that does not fit).
Program MakeDmaTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_DMA_TESTS_H_
