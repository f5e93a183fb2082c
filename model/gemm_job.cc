#include "model/gemm_job.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include "golden/lut_unit.h"
#include "golden/requant_tensor.h"

namespace qacc::model {

namespace {

// Appends the host writes of one SRAM word of `bytes.size()` bytes (a multiple of 4) at window byte
// `offset`.
void AppendWord(uint32_t window_base, uint64_t offset, const std::vector<uint8_t>& bytes,
                std::vector<BusWrite>& writes) {
  for (size_t i = 0; i < bytes.size(); i += 4) {
    const uint32_t data = uint32_t{bytes[i]} | uint32_t{bytes[i + 1]} << 8 |
                          uint32_t{bytes[i + 2]} << 16 | uint32_t{bytes[i + 3]} << 24;
    writes.push_back({static_cast<uint32_t>(window_base + offset + i), data, 0xF});
  }
}

template <typename T>
golden::Matrix<T> ToMatrix(int rows, int cols, const std::vector<uint8_t>& codes) {
  if (codes.size() != size_t(rows) * size_t(cols)) {
    throw std::invalid_argument("GemmJob: operand size does not match its shape");
  }
  golden::Matrix<T> matrix(rows, cols);
  for (size_t i = 0; i < codes.size(); ++i) {
    matrix.data[i] = static_cast<T>(codes[i] < 128 || !std::is_signed_v<T> ? int{codes[i]}
                                                                           : int{codes[i]} - 256);
  }
  return matrix;
}

template <typename TA, typename TB>
golden::Matrix<int32_t> GoldenGemm(const GemmJob& job) {
  return golden::Gemm(ToMatrix<TA>(job.m, job.k, job.a), ToMatrix<TB>(job.k, job.n, job.b),
                      job.bias, job.a_zp, job.b_zp);
}

// The requant stage of the job: golden::ApplyOutputStage with its per-tensor or per-channel
// parameters.
golden::Matrix<int32_t> Requantize(const GemmJob& job, const golden::Matrix<int32_t>& acc) {
  golden::OutputStage stage;
  if (job.per_channel) {
    stage.mode = golden::OutputMode::kRequantPerChannel;
    for (int n = 0; n < job.n; ++n) {
      golden::RequantParams params = job.requant;
      params.multiplier = job.channel_mult.at(n);
      params.shift = job.channel_shift.at(n);
      stage.params.push_back(params);
    }
  } else {
    stage.mode = golden::OutputMode::kRequantPerTensor;
    stage.params.push_back(job.requant);
  }
  return golden::ApplyOutputStage(acc, stage);
}

}  // namespace

int64_t RqWordsPerTile(const GemmJob& job) {
  return (job.per_channel ? 1 : 0) + (job.channel_slope.empty() ? 0 : 1);
}

arch::Command ToCommand(const GemmJob& job) {
  arch::Command cmd;
  cmd.m = static_cast<uint32_t>(job.m);
  cmd.n = static_cast<uint32_t>(job.n);
  cmd.k = static_cast<uint32_t>(job.k);
  cmd.a_base = job.a_base;
  cmd.b_base = job.b_base;
  cmd.bias_base = job.bias_base;
  cmd.rq_base = job.rq_base;
  cmd.out_base = job.out_base;
  cmd.mode = (job.requant.rounding == golden::RequantRounding::kSingleRounding ? arch::kModeRounding
                                                                               : 0u) |
             (job.per_channel ? arch::kModePerChannel : 0u) |
             (job.out_raw ? arch::kModeOutRaw : 0u) | (job.bias.empty() ? 0u : arch::kModeBiasEn) |
             (job.a_unsigned ? arch::kModeAUnsigned : 0u) |
             (job.b_unsigned ? arch::kModeBUnsigned : 0u);
  if (!job.lut) {
    cmd.mode |= job.ignored_lut_fields &
                (arch::kModeLutSlotMask | arch::kModeLutInBitsMask | arch::kModeLutEntryBitsMask);
  } else {
    cmd.mode |= uint32_t(arch::Act::kLut) << arch::kModeActLsb |
                job.lut_slot << arch::kModeLutSlotLsb |
                uint32_t(job.lut->address_bits()) << arch::kModeLutInBitsLsb |
                uint32_t(job.lut->entry_bits()) << arch::kModeLutEntryBitsLsb;
  }
  cmd.zp_ab = arch::PackZpAb(job.a_zp, job.b_zp);
  cmd.zp_out = job.requant.output_zero_point;
  cmd.clamp_min = job.requant.clamp_min;
  cmd.clamp_max = job.requant.clamp_max;
  // The requant form (requant.md 6.1). Each form ignores the other's fields, which hold the job's
  // values whatever the form.
  const auto& roundings = golden::tpu_mlir::kAllRoundings;
  const uint32_t round_code = static_cast<uint32_t>(
      std::find(std::begin(roundings), std::end(roundings), job.requant.rshift_rounding) -
      std::begin(roundings));
  const uint32_t width_code = job.requant.mult_bits == 8    ? 0u
                              : job.requant.mult_bits == 16 ? 1u
                                                            : 2u;
  cmd.mode |= (job.requant.form == golden::RequantForm::kTpuMlir ? arch::kModeRqForm : 0u) |
              round_code << arch::kModeRshiftRoundLsb | width_code << arch::kModeMultWidthLsb;
  cmd.mult = job.requant.multiplier;
  cmd.shift = static_cast<uint32_t>(job.requant.shift) & ((1u << arch::kShiftBits) - 1);
  if (job.ignored_slope_per_channel && !job.slope) cmd.mode |= arch::kModeSlopePerChannel;
  if (job.slope) {
    if (job.lut)
      throw std::logic_error("ToCommand: a job with a table and a slope (ACT is one unit)");
    cmd.mode |= uint32_t(arch::Act::kSlope) << arch::kModeActLsb |
                (job.channel_slope.empty() ? 0u : arch::kModeSlopePerChannel);
    cmd.slope_regs = golden::EncodeSlopeRegisters(*job.slope);
  }
  return cmd;
}

std::vector<BusWrite> CommandWrites(const GemmJob& job) { return CommandWrites(ToCommand(job)); }

std::vector<BusWrite> CommandWrites(const arch::Command& cmd) {
  namespace reg = arch::reg;
  std::vector<BusWrite> writes;
  if (cmd.slope()) {
    for (size_t i = 0; i < cmd.slope_regs.size(); ++i) {
      writes.push_back({reg::kSlopePosMult + 4 * uint32_t(i), cmd.slope_regs[i]});
    }
  }
  const std::vector<BusWrite> command = {{reg::kCmdOp, cmd.op},
                                         {reg::kCmdM, cmd.m},
                                         {reg::kCmdN, cmd.n},
                                         {reg::kCmdK, cmd.k},
                                         {reg::kCmdABase, cmd.a_base},
                                         {reg::kCmdBBase, cmd.b_base},
                                         {reg::kCmdBiasBase, cmd.bias_base},
                                         {reg::kCmdRqBase, cmd.rq_base},
                                         {reg::kCmdOutBase, cmd.out_base},
                                         {reg::kCmdMode, cmd.mode},
                                         {reg::kCmdZpAb, cmd.zp_ab},
                                         {reg::kCmdZpOut, static_cast<uint32_t>(cmd.zp_out)},
                                         {reg::kCmdClampMin, static_cast<uint32_t>(cmd.clamp_min)},
                                         {reg::kCmdClampMax, static_cast<uint32_t>(cmd.clamp_max)},
                                         {reg::kCmdMult, static_cast<uint32_t>(cmd.mult)},
                                         {reg::kCmdShift, cmd.shift}};
  writes.insert(writes.end(), command.begin(), command.end());
  return writes;
}

std::vector<BusWrite> PackOperands(const arch::ArchConfig& config, const GemmJob& job) {
  const int rows = config.rows, cols = config.cols;
  const arch::Timing timing(rows, cols, job.m, job.n, job.k);
  std::vector<BusWrite> writes;
  std::vector<uint8_t> word;
  for (int64_t mb = 0; mb < timing.MB();
       ++mb) {  // A word A_BASE + mb*K + k, lane r = A[mb*R + r][k]
    for (int k = 0; k < job.k; ++k) {
      word.assign(rows, job.pad_byte);
      for (int r = 0; r < timing.MValid(mb); ++r) word[r] = job.a[(mb * rows + r) * job.k + k];
      AppendWord(arch::kABase, (job.a_base + mb * job.k + k) * uint64_t(rows), word, writes);
    }
  }
  for (int64_t nb = 0; nb < timing.NB();
       ++nb) {  // B word B_BASE + nb*K + k, lane c = B[k][nb*C + c]
    for (int k = 0; k < job.k; ++k) {
      word.assign(cols, job.pad_byte);
      for (int c = 0; c < timing.NValid(nb); ++c)
        word[c] = job.b[size_t(k) * job.n + nb * cols + c];
      AppendWord(arch::kBBase, (job.b_base + nb * job.k + k) * uint64_t(cols), word, writes);
    }
  }
  for (int64_t nb = 0; nb < timing.NB(); ++nb) {
    for (int c = 0; c < cols; ++c) {
      const int64_t n = nb * cols + c;
      const uint64_t lane = (job.bias_base + nb) * uint64_t(cols) + c;
      if (!job.bias.empty()) {
        writes.push_back({static_cast<uint32_t>(arch::kBiasBase + lane * 4),
                          n < job.n ? static_cast<uint32_t>(job.bias[n]) : 0u, 0xF});
      }
      const bool valid = n < job.n;
      const uint64_t rq_word = job.rq_base + uint64_t(RqWordsPerTile(job) * nb);
      if (job.per_channel) {
        const uint64_t entry = (rq_word * uint64_t(cols) + c) * 8;
        writes.push_back({static_cast<uint32_t>(arch::kRqBase + entry),
                          valid ? static_cast<uint32_t>(job.channel_mult[n]) : 0u, 0xF});
        writes.push_back({static_cast<uint32_t>(arch::kRqBase + entry + 4),
                          valid ? static_cast<uint32_t>(job.channel_shift[n]) : 0u, 0xF});
      }
      if (!job.channel_slope.empty()) {  // requant.md 6.3; padding lanes: 0, legal in each form
        const uint64_t entry = ((rq_word + (job.per_channel ? 1 : 0)) * uint64_t(cols) + c) * 8;
        const golden::SlopeChannelWords words =
            valid ? golden::EncodeSlopeChannelWords(*job.slope, job.channel_slope[size_t(n)])
                  : golden::SlopeChannelWords{};
        writes.push_back({static_cast<uint32_t>(arch::kRqBase + entry), words.mult, 0xF});
        writes.push_back({static_cast<uint32_t>(arch::kRqBase + entry + 4), words.shift, 0xF});
      }
    }
  }
  if (job.lut) {  // the table's slot, whole (lut.md 10.1)
    AppendWord(arch::kLutBase, uint64_t{job.lut_slot} * golden::kLutSlotBytes,
               golden::LutSlotImage(*job.lut), writes);
  }
  return writes;
}

golden::Matrix<int32_t> GoldenOutput(const GemmJob& job) {
  golden::Matrix<int32_t> acc;
  if (job.a_unsigned) {
    acc = job.b_unsigned ? GoldenGemm<uint8_t, uint8_t>(job) : GoldenGemm<uint8_t, int8_t>(job);
  } else {
    acc = job.b_unsigned ? GoldenGemm<int8_t, uint8_t>(job) : GoldenGemm<int8_t, int8_t>(job);
  }
  if (job.out_raw) return acc;
  golden::Matrix<int32_t> codes = Requantize(job, acc);
  if (job.slope) {  // channel n's own stage with PReLU
    for (size_t i = 0; i < codes.data.size(); ++i) {
      const size_t n = i % size_t(job.n);
      codes.data[i] =
          golden::SlopeStage(codes.data[i], job.requant.output_zero_point,
                             job.channel_slope.empty() ? *job.slope : job.channel_slope.at(n));
    }
  }
  if (!job.lut) return codes;
  golden::Matrix<int32_t> out(job.m, job.n);
  const int bits = job.lut->address_bits();
  for (size_t i = 0; i < codes.data.size(); ++i) {
    out.data[i] = job.lut->entries_by_address()[golden::LutAddress(codes.data[i], bits)];
  }
  return out;
}

golden::Matrix<int32_t> UnpackOutput(const arch::ArchConfig& config, const GemmJob& job,
                                     const std::vector<uint8_t>& out_image) {
  const int64_t nb_count = arch::CeilDiv(job.n, config.cols);
  golden::Matrix<int32_t> out(job.m, job.n);
  for (int m = 0; m < job.m; ++m) {
    for (int n = 0; n < job.n; ++n) {
      const int64_t entry = arch::OutEntryOf(m, n, config.rows, config.cols, nb_count);
      const size_t byte = static_cast<size_t>(arch::OutWindowByte(
          job.out_base, entry, n % config.cols, config.cols, arch::OutLayoutOf(ToCommand(job))));
      if (job.lut) {
        const golden::QuantSpec& spec = job.lut->out();
        const int32_t raw = spec.bits > 8
                                ? int32_t{out_image.at(byte)} | out_image.at(byte + 1) << 8
                                : int32_t{out_image.at(byte)};
        const int width = spec.bits > 8 ? 16 : 8;
        out.at(m, n) = spec.is_signed && raw >= (1 << (width - 1)) ? raw - (1 << width) : raw;
      } else if (job.out_raw) {
        const uint32_t value =
            uint32_t{out_image.at(byte)} | uint32_t{out_image.at(byte + 1)} << 8 |
            uint32_t{out_image.at(byte + 2)} << 16 | uint32_t{out_image.at(byte + 3)} << 24;
        out.at(m, n) = golden::WrapToInt32(value);
      } else {
        const int code = out_image.at(byte);
        const int32_t clamp_min = job.slope ? job.slope->clamp_min : job.requant.clamp_min;
        out.at(m, n) = clamp_min >= 0 || code < 128 ? code : code - 256;
      }
    }
  }
  return out;
}

}  // namespace qacc::model
