// The out writer (unit 3, docs/architecture.md 6.3) as plain C++: a requant output beat (row i of
// tile t, C lanes) -> one output SRAM word write (address, byte enables, data), for rows
// i < m_valid only. No timing: the SystemC shell (out_writer_tlm.h) writes Lw cycles after the
// requant beat.
#ifndef QACC_MODEL_OUT_WRITER_MODEL_H_
#define QACC_MODEL_OUT_WRITER_MODEL_H_

#include <cstdint>

#include "model/beats.h"
#include "model/command.h"

namespace qacc::model {

// Section 6.3: entry e = t * R + i; int32 mode: word OUT_BASE + e, lane c in bytes 4c..4c+3; int8
// mode: word OUT_BASE + e / 4, lane c in byte (e mod 4) * C + c holding the low 8 bits of y; int16
// (lut.md 10.6): word OUT_BASE + e / 2, lane c in bytes 2 ((e mod 2) C + c) .. +1. Lanes
// c >= n_valid: be = 0, data 0. Fills addr, be, data and known of `beat` (known: be = 1 and the
// lane's bit in `known_lanes`); its cycle, tile and row are left to the caller. `data` holds C
// lanes.
void PackOutRow(const DecodedCommand& cmd, int64_t tile, int row, const int32_t* data,
                uint64_t known_lanes, OutWriteBeat& beat);

class OutWriterModel {
 public:
  explicit OutWriterModel(const DecodedCommand& command) : command_(command) {}

  // True when row i of tile t is written: i < m_valid(mb) (padded rows are dropped).
  bool Writes(int64_t tile, int row) const {
    return row < command_.timing.MValid(command_.timing.TileMb(tile));
  }
  // The write of requant beat `beat` (cycle left at 0). Precondition: Writes(beat.tile, beat.row).
  OutWriteBeat Write(const RowBeat& beat) const;

 private:
  DecodedCommand command_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_OUT_WRITER_MODEL_H_
