// Model-only speed: one GEMM (default 256 x 256 x 256, int8 per-tensor requant) on a configuration,
// timed over several runs. Usage: qacc_model_bench [config.json] [M N K] [runs]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "model/arch.h"
#include "model/gemm_job.h"
#include "model/model_only.h"
#include "model/srams.h"

int main(int argc, char** argv) {
  using qacc::model::GemmJob;
  const qacc::arch::ArchConfig config =
      argc > 1 ? qacc::arch::LoadArchConfig(argv[1]) : qacc::arch::ArchConfig{};
  GemmJob job;
  job.m = argc > 4 ? std::atoi(argv[2]) : 256;
  job.n = argc > 4 ? std::atoi(argv[3]) : 256;
  job.k = argc > 4 ? std::atoi(argv[4]) : 256;
  const int runs = argc > 5 ? std::atoi(argv[5]) : 5;
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < job.m * job.k; ++i) job.a.push_back(static_cast<uint8_t>(byte(rng)));
  for (int i = 0; i < job.k * job.n; ++i) job.b.push_back(static_cast<uint8_t>(byte(rng)));
  job.bias.assign(job.n, 1000);
  job.requant.multiplier = 1 << 30;
  job.requant.shift = -10;

  qacc::model::Srams srams(config);
  for (const auto& write : qacc::model::PackOperands(config, job)) {
    const auto region = static_cast<qacc::arch::Region>(qacc::arch::RegionBits(write.addr));
    srams.HostWrite(region, qacc::arch::WindowOffset(write.addr), write.data, write.strobe);
  }
  const qacc::arch::Command command = qacc::model::ToCommand(job);
  double best = 1e30;
  qacc::model::RunResult result;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    result = qacc::model::RunCommand(config, command, srams);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  std::printf("%s %dx%d, GEMM %dx%dx%d: error %d, E = %lld cycles,", config.name.c_str(),
              config.rows, config.cols, job.m, job.n, job.k, static_cast<int>(result.error),
              static_cast<long long>(result.cycles));
  for (const qacc::arch::BeatUnitInfo& unit : qacc::arch::kBeatUnits) {
    std::printf(" %s %u,", unit.busy, result.perf.Busy(unit.beat));
  }
  std::printf(" out_writes %u\n", result.perf.out_writes);
  std::printf("model-only: best of %d runs %.3f ms, %.1f M simulated cycles/s, %.1f M MAC/s\n",
              runs, best * 1e3, double(result.cycles) / best / 1e6,
              double(job.m) * job.n * job.k / best / 1e6);
  return result.error == qacc::arch::ErrCode::kNone ? 0 : 1;
}
