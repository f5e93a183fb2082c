// One GEMM on the qacc accelerator model, checked against the golden reference: the host loads the
// operands into the SRAMs, programs the command registers, starts and waits, then dumps the output.
// Usage: gemm_example [CONFIG.json]   (default: the installed configs/default.json)
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "golden/gemm.h"
#include "golden/requant.h"
#include "model/accelerator.h"

namespace arch = qacc::arch;
namespace golden = qacc::golden;
using arch::Region;

int main(int argc, char** argv) {
  qacc::model::Accelerator acc(argc > 1 ? argv[1] : QACC_CONFIG_DIR "/default.json");
  const int R = acc.config().rows, C = acc.config().cols;

  // out = requant(A x B + bias): A is M x K int8 (activations, zero point 3), B is K x N int8
  // (weights), int8 output with scale 2^30 / 2^31 * 2^-6 = 1/128 and zero point -5.
  const int M = 10, N = 12, K = 7;
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> code(-128, 127);
  golden::Matrix<int8_t> a(M, K), b(K, N);
  for (int8_t& x : a.data) x = static_cast<int8_t>(code(rng));
  for (int8_t& x : b.data) x = static_cast<int8_t>(code(rng));
  std::vector<int32_t> bias(N);
  for (int n = 0; n < N; ++n) bias[n] = 300 * n - 1500;
  const int32_t a_zp = 3, b_zp = 0;
  golden::RequantParams rq;
  rq.multiplier = 1 << 30;
  rq.shift = -6;
  rq.output_zero_point = -5;

  // Operands in panels (docs/architecture.md 6.1): A word mb*K + k holds A[mb*R + r][k] in lane r,
  // B word nb*K + k holds B[k][nb*C + c] in lane c, bias word nb lane c (int32) bias[nb*C + c].
  const int MB = (M + R - 1) / R, NB = (N + C - 1) / C;
  std::vector<uint8_t> a_sram(size_t(MB) * K * R), b_sram(size_t(NB) * K * C);
  std::vector<uint8_t> bias_sram(size_t(NB) * C * 4);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) a_sram[(size_t(m / R) * K + k) * R + m % R] = uint8_t(a.at(m, k));
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) b_sram[(size_t(n / C) * K + k) * C + n % C] = uint8_t(b.at(k, n));
  for (int n = 0; n < N; ++n)
    for (int byte = 0; byte < 4; ++byte)
      bias_sram[4 * n + byte] = uint8_t(uint32_t(bias[n]) >> 8 * byte);
  acc.LoadMemory(Region::kA, 0, a_sram);
  acc.LoadMemory(Region::kB, 0, b_sram);
  acc.LoadMemory(Region::kBias, 0, bias_sram);

  // The command (3.2, 4): every base 0, bias on, per-tensor double-rounding requant, int8 output.
  acc.WriteRegister(arch::reg::kCmdM, M);
  acc.WriteRegister(arch::reg::kCmdN, N);
  acc.WriteRegister(arch::reg::kCmdK, K);
  acc.WriteRegister(arch::reg::kCmdMode, arch::kModeBiasEn);
  acc.WriteRegister(arch::reg::kCmdZpAb, arch::PackZpAb(a_zp, b_zp));
  acc.WriteRegister(arch::reg::kCmdZpOut, uint32_t(rq.output_zero_point));
  acc.WriteRegister(arch::reg::kCmdClampMin, uint32_t(rq.clamp_min));
  acc.WriteRegister(arch::reg::kCmdClampMax, uint32_t(rq.clamp_max));
  acc.WriteRegister(arch::reg::kCmdMult, uint32_t(rq.multiplier));
  acc.WriteRegister(arch::reg::kCmdShift, uint32_t(rq.shift));
  const qacc::model::CommandResult result = acc.RunToCompletion();
  if (!result.ok()) {
    std::printf("command rejected: %s\n", arch::ErrCodeName(result.error));
    return 1;
  }

  // Output (6.3): int8 mode packs four rows per word, T * R * C bytes for the T = MB * NB tiles.
  const std::vector<uint8_t> out = acc.DumpMemory(Region::kOut, 0, uint32_t(MB * NB * R * C));
  const golden::Matrix<int32_t> acc32 = golden::Gemm(a, b, bias, a_zp, b_zp);
  int mismatches = 0;
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      const int64_t entry = arch::OutEntryOf(m, n, R, C, NB);
      const int8_t actual = int8_t(out[arch::OutWindowByte(0, entry, n % C, C, false)]);
      const int32_t expected = golden::RequantizeAccumulator(acc32.at(m, n), rq);
      if (actual != expected) ++mismatches;
    }
  }
  std::printf("GEMM %dx%dx%d on %s (%dx%d): %u cycles from cycle %lld, %d of %d outputs differ\n",
              M, N, K, acc.config().name.c_str(), R, C, result.perf.cycles,
              static_cast<long long>(result.launch_cycle), mismatches, M * N);
  return mismatches == 0 ? 0 : 1;
}
