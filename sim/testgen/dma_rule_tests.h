// Tests of the dma suite that aim at the program engine's rules (docs/data_movement.md 12-17)
// rather than its fields: each creates the conditions of one group of the rule bins
// (sim/cosim/coverage_rules.h) on purpose, on every config and every seed.
//   dma_token_races   a SIGNAL's give and a WAIT's take on one counter in the same cycle, both
//                     counters: programs drawn until the model (model/program_engine.h) shows the
//                     coincidence, so the seed's program has it by construction
//   dma_deadlocks     every form of DEADLOCK: the fetcher blocked on a full queue with both engines
//                     waiting; every descriptor fetched, after the other engine retired higher
//                     indices; the lowest head a completed SIGNAL held at 15; on both engines
//   dma_check_order   for each opcode, each adjacent pair of its validation checks failed by one
//                     descriptor (the first is reported); golden confirms both checks fail alone
//   dma_port_stalls   a STORE or LOAD on an SRAM port the compute engine uses, for every use of
//                     17.6's table; a GEMM that holds A or B (and out, R >= C) longer than the
//                     memory latency; a STORE whose write responses return while its reads wait
//   dma_stop_phases   a program stopped (a descriptor fetch's EXT_FAULT) in the cycles around a
//                     STORE's first SRAM read: around the smallest GEMM K at which the model shows
//                     the STORE writing (its first burst begun before the stop, 17.7)
#ifndef QACC_SIM_TESTGEN_DMA_RULE_TESTS_H_
#define QACC_SIM_TESTGEN_DMA_RULE_TESTS_H_

#include "model/arch.h"
#include "sim/testgen/program.h"
#include "sim/testgen/rng.h"

namespace qacc::sim {

Program GenTokenRaces(Rng& rng, const arch::ArchConfig& config);
Program GenDeadlocks(Rng& rng, const arch::ArchConfig& config);
Program GenCheckOrder(Rng& rng, const arch::ArchConfig& config);
Program GenPortStalls(Rng& rng, const arch::ArchConfig& config);
Program GenStopPhases(Rng& rng, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_DMA_RULE_TESTS_H_
