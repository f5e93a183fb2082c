// qacc table-memory: table memory figures as the article qacc's design follows counts them ("seed
// 000" in docs/softmax.md). A softmax needs X -> T (2^in_bits entries of acc_bits) and X -> P
// (2^in_bits entries of acc_bits + out_bits); an elementwise LUT needs 2^in_bits entries of
// out_bits. Without arguments it prints the three rows of the article's memory table. With --config
// it adds the accelerator's LUT table SRAM, replication included (docs/lut.md 10.2).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "golden/table_memory.h"
#include "model/arch.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"

namespace qacc::cli {

namespace {

// A pure formula, so wider than what lut and softmax-tables build (2..8 input bits, the width of
// the int8 code that addresses the RTL's table SRAM): input and output bits are any quantized width
// (quant.h's 2..16); entries up to acc 48 + out 16 = 64 bits.
inline constexpr int kMaxAccBits = 48;

struct Widths {
  int in_bits = 0;
  int acc_bits = 0;
  int out_bits = 0;
};

// The article's "映射表" memory table: (bit_input, bit_acc, bit_output).
const Widths kSeedRows[] = {{8, 16, 8}, {8, 32, 8}, {4, 16, 4}};

struct TableMemoryOptions {
  Widths widths;
  std::string config;  // empty: no accelerator figures
  OutputOptions output;
};

// The LUT unit's table SRAM of `config`, as text and as JSON.
void AddLutUnit(const arch::ArchConfig& config, std::string& human, nlohmann::json& json) {
  const golden::LutUnitMemory m = golden::LutUnitTableMemory(config.cols, config.lut_slots);
  human += fmt::format(
      "\nLUT unit table SRAM of {} (docs/lut.md 10.2): {} slots x 256 entries "
      "x 16 bits = {} bits ({} B) per copy; {} dual-port copies for {} lanes = {} bits ({} B)\n",
      config.name, m.slots, m.copy_bits, m.copy_bits / 8, m.copies, m.lanes, m.bits(),
      m.bits() / 8);
  json["lut_unit"] = {{"config", config.name},
                      {"lanes", m.lanes},
                      {"slots", m.slots},
                      {"copies", m.copies},
                      {"unreplicated_bits", m.copy_bits},
                      {"unreplicated_bytes", m.copy_bits / 8},
                      {"bits", m.bits()},
                      {"bytes", m.bits() / 8}};
}

void RunTableMemory(const CLI::App& cmd, const TableMemoryOptions& options) {
  arch::ArchConfig config;
  if (!options.config.empty()) {
    CheckOutputsDistinct({{"--config", options.config}},
                         {{"--output", options.output.output_path}});
    try {
      config = arch::LoadArchConfig(options.config);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--config: {}", e.what()));
    }
  }
  std::vector<Widths> rows(std::begin(kSeedRows), std::end(kSeedRows));
  const char* names[] = {"--in-bits", "--acc-bits", "--out-bits"};
  int given = 0;
  for (const char* name : names) given += cmd.count(name) > 0;
  if (given > 0) {
    for (const char* name : names) {
      if (cmd.count(name) == 0) {
        throw UsageError(
            fmt::format("{}: missing; --in-bits, --acc-bits and --out-bits go together "
                        "(none of them: the article's table)",
                        name));
      }
    }
    rows = {options.widths};
  }

  nlohmann::json json_rows = nlohmann::json::array();
  std::string human =
      "Table memory: X->T = 2^in x acc bits, X->P = 2^in x (acc + out) bits, LUT = 2^in x out "
      "bits\n";
  human += fmt::format("{:>3} {:>4} {:>4} {:>10} {:>10} {:>10} {:>10}\n", "in", "acc", "out",
                       "X->T (B)", "X->P (B)", "total (B)", "LUT (B)");
  for (const Widths& w : rows) {
    const golden::SoftmaxTableBytes bytes =
        golden::SoftmaxTablesBytes(w.in_bits, w.acc_bits, w.out_bits);
    const int64_t lut = golden::TableBytes(w.in_bits, w.out_bits);
    human += fmt::format("{:>3} {:>4} {:>4} {:>10} {:>10} {:>10} {:>10}\n", w.in_bits, w.acc_bits,
                         w.out_bits, bytes.exp_table, bytes.numerator_table, bytes.total(), lut);
    json_rows.push_back({{"in_bits", w.in_bits},
                         {"acc_bits", w.acc_bits},
                         {"out_bits", w.out_bits},
                         {"exp_table_bytes", bytes.exp_table},
                         {"numerator_table_bytes", bytes.numerator_table},
                         {"total_bytes", bytes.total()},
                         {"lut_bytes", lut}});
  }
  nlohmann::json json{{"rows", json_rows}};
  if (!options.config.empty()) AddLutUnit(config, human, json);
  Emit(options.output, human, json);
}

}  // namespace

void RegisterTableMemoryCommand(CLI::App& app) {
  auto options = std::make_shared<TableMemoryOptions>();
  CLI::App* cmd = app.add_subcommand("table-memory",
                                     "Bytes of the softmax tables (X->T, X->P) and of an "
                                     "elementwise LUT; no options: the three rows of the memory "
                                     "table of the article qacc's design follows");
  cmd->add_option("--in-bits", options->widths.in_bits,
                  "Input (address) bits, 2..16: any quantized width, since this is a formula "
                  "(lut and softmax-tables build tables for 2..8 bits only: the table SRAM is "
                  "addressed by an int8 code)")
      ->check(CLI::Range(golden::kMinQuantBits, golden::kMaxQuantBits));
  cmd->add_option("--acc-bits", options->widths.acc_bits, "Accumulator (X->T entry) bits, 1..48")
      ->check(CLI::Range(1, kMaxAccBits));
  cmd->add_option("--out-bits", options->widths.out_bits,
                  "Output bits, 2..16 (as lut and softmax-tables)")
      ->check(CLI::Range(golden::kMinQuantBits, golden::kMaxQuantBits));
  cmd->add_option("--config", options->config,
                  "Architecture config JSON: also report its LUT table SRAM, replication included "
                  "(lut.slots slots, one dual-port copy per two of array.cols lanes)");
  AddOutputOptions(cmd, &options->output);
  cmd->callback([cmd, options]() { RunTableMemory(*cmd, *options); });
}

}  // namespace qacc::cli
