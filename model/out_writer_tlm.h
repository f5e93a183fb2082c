// SystemC model of the out writer (unit 3, docs/architecture.md 6.3): takes one requant row per
// cycle and, for rows i < m_valid, presents the output SRAM write Lw cycles later (word address,
// byte enables and data packed by the plain C++ OutWriterModel); padded rows pass the stage without
// a write. After the last row of the command's last tile it reports the cycle that row left the
// stage to the controller. The
// output SRAM's content is AccelState's; this module produces the write beats a monitor compares.
#ifndef QACC_MODEL_OUT_WRITER_TLM_H_
#define QACC_MODEL_OUT_WRITER_TLM_H_

#include <memory>
#include <optional>
#include <systemc>
#include <tlm>

#include "model/out_writer_model.h"
#include "model/unit_tlm.h"

namespace qacc::model {

class OutWriterTlm : public sc_core::sc_module, public tlm::tlm_blocking_put_if<RowTile> {
 public:
  sc_core::sc_export<tlm::tlm_blocking_put_if<RowTile>> beat_in;      // from the requant unit
  sc_core::sc_port<CompletionIf> complete_out;                        // to the controller
  tlm::tlm_analysis_port<OutWriteTile> monitor;

  OutWriterTlm(sc_core::sc_module_name name, const UnitLatencies& latencies);

  void put(const RowTile& in) override;

 private:
  int64_t latency_;
  IssueRateCheck input_;
  std::shared_ptr<const GemmEngine> command_;  // the command `writer_` was built for
  std::optional<OutWriterModel> writer_;
  int64_t last_row_ = -1;  // the cycle the last row left the stage
};

}  // namespace qacc::model

#endif  // QACC_MODEL_OUT_WRITER_TLM_H_
