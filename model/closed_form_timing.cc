// The closed-form cycle numbers of section 7: the fast timing path (BeatPredictor, AccelState's
// done cycle and perf counters, estimates). Built as its own library, qacc_closed_form, so that the
// simulated unit modules, which must derive the same cycles independently, cannot link it.
#include <algorithm>
#include <stdexcept>

#include "model/arch.h"

namespace qacc::arch {

int64_t Timing::P() const { return std::max({k, rows, cols}); }
int64_t Timing::F(int64_t t, int64_t beat) const { return kCmdSetupLatency + t * P() + beat; }
int64_t Timing::I(int64_t t, int64_t beat) const { return F(t, beat) + kSramReadLatency; }
int64_t Timing::O(int64_t t, int64_t i) const { return I(t, 0) + k + cols + kMacEdgeLatency + i; }
int64_t Timing::BiasRead(int64_t t) const { return O(t, 0) - kSramReadLatency; }
int64_t Timing::Q(int64_t t, int64_t i) const { return O(t, i) + kRequantLatency; }
int64_t Timing::L(int64_t t, int64_t i) const { return Q(t, i) + kLutLatency; }
int64_t Timing::S(int64_t t, int64_t i) const { return Q(t, i) + kSlopeLatency; }
bool Timing::Beats(BeatUnit unit) const {
  return (unit != BeatUnit::kLut || lut) && (unit != BeatUnit::kSlope || slope);
}
int64_t Timing::Beat(BeatUnit unit, int64_t t, int64_t i) const {
  switch (unit) {
    case BeatUnit::kMac:
      return O(t, i);
    case BeatUnit::kRequant:
      return Q(t, i);
    case BeatUnit::kLut:
      return L(t, i);
    case BeatUnit::kSlope:
      return S(t, i);
  }
  throw std::logic_error("Timing::Beat: a beat unit without a cycle");
}
int64_t Timing::W(int64_t t, int64_t i) const {
  return (lut ? L(t, i) : slope ? S(t, i) : Q(t, i)) + kOutWriteLatency;
}
int64_t Timing::E() const { return W(T() - 1, rows - 1) + 1; }

Timing::InputBeats Timing::In(BeatUnit unit) const {
  switch (unit) {
    case BeatUnit::kMac:
      return {I(0, 0), k};
    case BeatUnit::kRequant:
      return {O(0, 0), rows};
    case BeatUnit::kLut:
      return {Q(0, 0), lut ? rows : 0};
    case BeatUnit::kSlope:
      return {Q(0, 0), slope ? rows : 0};
  }
  throw std::logic_error("Timing::In: a beat unit without input beats");
}
int64_t Timing::Busy(BeatUnit unit) const { return T() * In(unit).per_tile; }
int64_t Timing::OutWrites() const { return NB() * m; }
int64_t Timing::FeedStall() const { return (T() - 1) * (P() - k); }

}  // namespace qacc::arch
