#include "model/compute_engine.h"

#include <stdexcept>

#include "model/command.h"
#include "model/gemm_engine.h"
#include "model/model_only.h"

namespace qacc::model {

ComputeEngine::ComputeEngine(const arch::ArchConfig& config, Srams& srams)
    : config_(config), srams_(srams), move_(config, srams), eltwise_(config, srams) {}

arch::Timing ComputeEngine::StartGemm(const arch::Command& command, uint64_t start_cycle) {
  const LaunchDecision decision = DecodeCommand(config_, command);
  if (decision.error != arch::ErrCode::kNone) {
    throw std::logic_error("ComputeEngine::StartGemm: the fetcher pushed an invalid GEMM");
  }
  ExecuteTiles(GemmEngine(config_, decision.command, srams_), srams_);
  kind_ = Kind::kGemm;
  start_ = start_cycle;
  timing_ = decision.command.timing;
  end_ = start_ + uint64_t(timing_.E()) - 1;  // the last write slot W(T-1, R-1)
  bias_en_ = decision.command.bias_en;
  per_channel_ = decision.command.per_channel;
  slope_per_channel_ = decision.command.slope_per_channel;
  lut_ = decision.command.lut;
  // The LUT unit registers a beat's addresses, then its lanes read: L_lut - Lr after the beat.
  first_lut_read_ = timing_.Q(0, 0) + arch::kLutLatency - arch::kSramReadLatency;
  first_read_ = timing_.F(0, 0);
  first_param_read_ = timing_.BiasRead(0);
  first_write_ = timing_.W(0, 0);
  return timing_;
}

void ComputeEngine::StartMove(const MoveDesc& desc, uint64_t start_cycle) {
  kind_ = Kind::kMove;
  start_ = start_cycle;
  move_.Start(desc, start_cycle);
  end_ = move_.end_cycle();
}

void ComputeEngine::StartEltwise(const golden::EltwiseFields& fields, uint64_t start_cycle) {
  kind_ = Kind::kEltwise;
  start_ = start_cycle;
  eltwise_.Start(fields, start_cycle);
  end_ = eltwise_.end_cycle();
}

void ComputeEngine::StartSet(uint64_t start_cycle) {
  kind_ = Kind::kSet;
  start_ = end_ = start_cycle;
}

PortUse ComputeEngine::PortsAt(uint64_t cycle) const {
  if (cycle < start_ || cycle > end_ || kind_ == Kind::kSet) return {};
  if (kind_ == Kind::kMove) return move_.PortsAt(cycle);
  if (kind_ == Kind::kEltwise) return eltwise_.PortsAt(cycle);
  PortUse use;
  const int64_t rel = int64_t(cycle - start_);
  const int64_t period = timing_.P(), tiles = timing_.T();
  // A and B: F(t, k) = Ls + t*P + k, k < K.
  if (rel >= first_read_) {
    const int64_t x = rel - first_read_;
    if (x / period < tiles && x % period < timing_.k) {
      use.read |= uint8_t(1u << kSramA | 1u << kSramB);
    }
  }
  // bias and rq: O(t, 0) - 1 of every tile, each with its mode bit.
  if ((bias_en_ || per_channel_) && rel >= first_param_read_) {
    const int64_t y = rel - first_param_read_;
    if (y % period == 0 && y / period < tiles) {
      if (bias_en_) use.read |= uint8_t(1u << kSramBias);
      if (per_channel_) use.read |= uint8_t(1u << kSramRq);
    }
  }
  // The slope's rq word: O(t, 0), the cycle after (requant.md 6.3).
  if (slope_per_channel_ && rel > first_param_read_) {
    const int64_t y = rel - first_param_read_ - 1;
    if (y % period == 0 && y / period < tiles) use.read |= uint8_t(1u << kSramRq);
  }
  // LUT table: the lanes read in the cycle after each requant beat, Q(t, i) + 1, i < R, through
  // both ports of every copy (lut.md 10.2), so a DMA read or write of the table waits.
  if (lut_ && rel >= first_lut_read_) {
    const int64_t z = rel - first_lut_read_;
    if (z / period < tiles && z % period < timing_.rows) {
      use.read |= uint8_t(1u << kSramLut);
      use.write |= uint8_t(1u << kSramLut);
    }
  }
  // out: W(t, i) of the rows i < m_valid(mb) (P >= R, so (t, i) is unique).
  if (rel >= first_write_) {
    const int64_t z = rel - first_write_;
    const int64_t t = z / period, i = z % period;
    if (t < tiles && i < timing_.MValid(timing_.TileMb(t))) use.write |= uint8_t(1u << kSramOut);
  }
  return use;
}

void ComputeEngine::Cycle(uint64_t cycle, MoveRead& read, MoveWrite& write, OutAccess& out_access) {
  read = MoveRead{};
  write = MoveWrite{};
  out_access = OutAccess{};
  if (kind_ == Kind::kMove) move_.Cycle(cycle, read, write);
  if (kind_ == Kind::kEltwise) eltwise_.Cycle(cycle, out_access);
}

}  // namespace qacc::model
