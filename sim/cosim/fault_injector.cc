#include "sim/cosim/fault_injector.h"

#include <algorithm>

namespace qacc::cosim {

void FaultInjector::Apply(RtlSample& sample) {
  BeatSample& mac = sample.beats[size_t(arch::BeatUnit::kMac)];
  BeatSample& rq = sample.beats[size_t(arch::BeatUnit::kRequant)];
  BeatSample& lut = sample.beats[size_t(arch::BeatUnit::kLut)];
  switch (fault_) {
    case Fault::kMacValue:  // lane 1 of the first MAC beat of row 1 (tile 0) off by one
      if (!injected_ && mac.valid && mac.row == std::min(1, rows_ - 1)) {
        mac.lanes[1 % cols_] ^= 1;
        injected_ = true;
      }
      break;
    case Fault::kRequantValue:  // lane 2 of the first requant beat of row 1 off by one
      if (!injected_ && rq.valid && rq.row == std::min(1, rows_ - 1)) {
        rq.lanes[2 % cols_] ^= 1;
        injected_ = true;
      }
      break;
    case Fault::kLutValue:  // lane 3 of the first LUT beat of row 1 (ACT = LUT) off by one
      if (!injected_ && lut.valid && lut.row == std::min(1, rows_ - 1)) {
        lut.lanes[3 % cols_] ^= 1;
        injected_ = true;
      }
      break;
    case Fault::kEltValue:  // byte 5 of the first ELTWISE out write off by one (lut.md 10.5)
      if (!injected_ && sample.out_acc.we) {
        sample.out_acc.wdata[5 % (4 * cols_)] ^= 1;
        injected_ = true;
      }
      break;
    case Fault::kMacLate:  // the last MAC beat of tile 0 one cycle late
      if (delayed_) {
        mac = delayed_beat_;
        delayed_ = false;
      } else if (!injected_ && mac.valid && mac.row == rows_ - 1) {
        delayed_beat_ = mac;
        mac.valid = false;
        delayed_ = injected_ = true;
      }
      break;
    case Fault::kNone:
    case Fault::kStartLost:
    case Fault::kRequantLatency:
      break;
  }
}

}  // namespace qacc::cosim
