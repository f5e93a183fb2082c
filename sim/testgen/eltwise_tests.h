// The ELTWISE tests of suite `lut` (lut.md 10.5; docs/testplan.md): queued programs whose
// ELTWISE commands read and write the out SRAM among LOADs, STOREs, MOVEs and GEMMs, checked by
// the co-simulation like every program (mon_out_acc_* cycle by cycle, every SRAM after each
// program, the memories against golden's queue executor).
//   lut_eltwise        random race-free programs, ELTWISE the most frequent opcode: every OP,
//                      both add forms with golden's derivations and with every field at its
//                      extremes, lookups of every slot, input width and entry width, in place
//                      and disjoint, over random SRAM contents (random table entries of 16 bits)
//   lut_eltwise_chain  GEMM -> ELTWISE (lookup) -> MOVE -> GEMM, and two GEMMs -> ELTWISE (add,
//                      the residual connection), with real tables of golden's functions
//   lut_eltwise_whole  ELTWISE over the whole out SRAM in place, its first half plus its second,
//                      16-bit entries of its top third into the rest, an add of 16-bit entries
//                      whose b ends at the last word: the word counters' and addresses' top bits
#ifndef QACC_SIM_TESTGEN_ELTWISE_TESTS_H_
#define QACC_SIM_TESTGEN_ELTWISE_TESTS_H_

#include "model/arch.h"
#include "sim/testgen/program.h"
#include "sim/testgen/rng.h"

namespace qacc::sim {

Program GenEltwise(Rng& rng, const arch::ArchConfig& config);
Program GenEltwiseChain(Rng& rng, const arch::ArchConfig& config);
Program GenEltwiseWhole(Rng& rng, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_ELTWISE_TESTS_H_
