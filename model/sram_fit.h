// Whether a GEMM job's operands and result fit the SRAMs, by the range rules of the command
// validation (docs/architecture.md section 4: A_RANGE, B_RANGE, BIAS_RANGE, RQ_RANGE, OUT_RANGE),
// and, when they do not, the largest M, N or K that would fit with the other two fixed. Tools use
// it to refuse a shape before running it, with a message that names the dimension and its limit.
#ifndef QACC_MODEL_SRAM_FIT_H_
#define QACC_MODEL_SRAM_FIT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "model/arch.h"
#include "model/gemm_job.h"

namespace qacc::model {

enum class Dim : uint8_t { kM, kN, kK };

struct SramOverflow {
  arch::ErrCode code = arch::ErrCode::kNone;  // the validation error the command would get
  std::string sram;                           // "A", "B", "bias", "rq", "out"
  std::string formula;                        // "ceil(M/8) x K = 38 x 300 = 11400"
  int64_t words = 0;                          // words the job needs in that SRAM
  int64_t available = 0;                      // depth minus the job's base word
};

// The first range rule the job breaks, in the spec's order; nullopt when every operand and the
// result fit. Shape errors (a zero dimension) are not range errors: nullopt.
std::optional<SramOverflow> FindSramOverflow(const arch::ArchConfig& config, const GemmJob& job);

// The largest value of `dim` (1..65535) with which the job passes every range rule, the other two
// dimensions as they are; 0 when no value does.
int64_t MaxFittingDim(const arch::ArchConfig& config, const GemmJob& job, Dim dim);

}  // namespace qacc::model

#endif  // QACC_MODEL_SRAM_FIT_H_
