// The six SRAMs of the accelerator (A, B, bias, rq, out, LUT table) as byte arrays laid out exactly
// as their host windows (docs/architecture.md 3.1), with the host-window access rules and the
// datapath's word/lane view (6.1).
//
// Storage is the window image: byte `off` of a window is byte `off` of the array, little endian,
// lane 0 in the lowest bytes. The one irregular field is the rq shift: 6 bits stored in byte 0 of
// its 32-bit host word; writes keep bits [5:0], reads return it sign-extended to 32 bits.
#ifndef QACC_MODEL_SRAMS_H_
#define QACC_MODEL_SRAMS_H_

#include <cstdint>
#include <vector>

#include "model/arch.h"

namespace qacc::model {

class Srams {
 public:
  explicit Srams(const arch::ArchConfig& config);

  // True for the SRAM windows (A, B, bias, rq, out, LUT table).
  static bool IsSramRegion(arch::Region region);
  // Window size in bytes: depth * word bytes (0 for a region without an SRAM).
  uint32_t WindowBytes(arch::Region region) const;
  // True when the byte offset lies inside the SRAM (offset < depth * word bytes).
  bool InRange(arch::Region region, uint32_t offset) const { return offset < WindowBytes(region); }

  // 32-bit host access at `offset` (bits [1:0] ignored). Throws std::out_of_range unless
  // IsSramRegion and InRange (the bus answers such an access with an error instead).
  uint32_t HostRead(arch::Region region, uint32_t offset) const;
  // `strobe` bit b enables byte b (pstrb).
  void HostWrite(arch::Region region, uint32_t offset, uint32_t data, uint8_t strobe);

  // Datapath view. Lane codes are raw bytes; the command's A_UNSIGNED / B_UNSIGNED give their
  // meaning.
  uint8_t a(uint32_t word, int lane) const { return a_[size_t(word) * rows_ + lane]; }
  uint8_t b(uint32_t word, int lane) const { return b_[size_t(word) * cols_ + lane]; }
  int32_t bias(uint32_t word, int lane) const;
  int32_t rq_mult(uint32_t word, int lane) const;
  // The shift word's kept byte, sign-extended: -128..127 (TFLite legal -31..30; TPU-MLIR reads it
  // unsigned, legal 0..63).
  int32_t rq_shift(uint32_t word, int lane) const;
  // One output SRAM word write: 4 * Cols bytes, byte j written when be[j] != 0.
  void WriteOutWord(uint32_t word, const std::vector<uint8_t>& data,
                    const std::vector<uint8_t>& be);

  // The raw window images (tests and drivers; the host normally goes through HostRead / HostWrite).
  const std::vector<uint8_t>& image(arch::Region region) const;
  std::vector<uint8_t>& image(arch::Region region);

 private:
  uint32_t Load32(const std::vector<uint8_t>& bytes, size_t offset) const;
  void CheckHostAccess(arch::Region region, uint32_t offset) const;

  int rows_;
  int cols_;
  std::vector<uint8_t> a_, b_, bias_, rq_, out_, lut_;
  std::vector<uint8_t> none_;  // the image of a region without an SRAM: empty
};

}  // namespace qacc::model

#endif  // QACC_MODEL_SRAMS_H_
