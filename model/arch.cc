// Configuration loading and command validation of the spec mirror (docs/architecture.md sections 1
// and 4).
#include "model/arch.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace qacc::arch {
namespace {

[[noreturn]] void Fail(std::string_view source, std::string_view key, const std::string& what) {
  std::ostringstream os;
  os << source << ": " << key << ": " << what;
  throw std::invalid_argument(os.str());
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// A JSON value for a message: a scalar as written (a long string cut), a container by its kind and
// size. Never a whole container: nlohmann's dump recurses once per level, and a deeply nested value
// (a few MB of '[') would overflow the stack.
std::string Brief(const nlohmann::json& value) {
  if (value.is_array()) return "an array of " + std::to_string(value.size()) + " elements";
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " keys";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// Reads an integer at object[key] into *out when present. `path` is the dotted JSON key for
// messages; `rule` says what the field allows, as ValidateIn says it ("is not one of 4, 8, 16,
// 32"): a value beyond T's range fails with it, not with T's range, which no field allows.
template <typename T>
void ReadInt(const nlohmann::json& object, const char* key, const std::string& path,
             std::string_view source, T* out, const std::string& rule) {
  const auto it = object.find(key);
  if (it == object.end()) return;
  if (!it->is_number_integer()) Fail(source, path, "must be an integer, got " + Brief(*it));
  constexpr int64_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  // An integer above INT64_MAX is stored unsigned: reading it as int64_t would wrap it.
  const bool in_range = it->is_number_unsigned()
                            ? it->get<uint64_t>() <= uint64_t{kMax}
                            : it->get<int64_t>() >= kMin && it->get<int64_t>() <= kMax;
  if (!in_range) Fail(source, path, Brief(*it) + " " + rule);
  *out = static_cast<T>(it->get<int64_t>());
}

// What each field allows, in the words of ValidateIn's messages (which follow the value).
constexpr const char* kDimRule = "is not one of 4, 8, 16, 32";
constexpr const char* kDataBytesRule = "is not one of 8, 16, 32, 64";
constexpr const char* kOutstandingRule = "is out of range, allowed 1..8";
constexpr const char* kExtSizeRule = "is not allowed: a multiple of 4096 in 4096..4294967296";
constexpr const char* kExtLatencyRule = "is out of range, allowed 1..1024";
constexpr const char* kExtIntervalRule = "is out of range, allowed 1..64";
constexpr const char* kExtGapsRule = "is out of range, allowed 0..90 (percent of cycles)";
static_assert(kMaxReadyGaps == 90, "kExtGapsRule names the bound");
constexpr const char* kExtGapSeedRule = "is out of range, allowed 0..2147483647";
constexpr const char* kLutSlotsRule = "is out of range, allowed 1..16";
static_assert(kLutMaxSlots == 16, "kLutSlotsRule names the bound");

std::string FixedRule(int expected) {
  return "is not the spec's value " + std::to_string(expected) +
         " (allowed: " + std::to_string(expected) + ")";
}

// `product`: the SRAM's size in bytes as a formula ("a_depth * rows").
constexpr const char* kADepthProduct = "a_depth * rows";
constexpr const char* kBDepthProduct = "b_depth * cols";
constexpr const char* kBiasDepthProduct = "bias_depth * 4 * cols";
constexpr const char* kRqDepthProduct = "rq_depth * 8 * cols";
constexpr const char* kOutDepthProduct = "out_depth * 4 * cols";

std::string DepthRule(const char* product) {
  return std::string("is illegal: must be a power of 2 with ") + product + " <= 2^20";
}

void ReadString(const nlohmann::json& object, const char* key, std::string_view source,
                std::string* out) {
  const auto it = object.find(key);
  if (it == object.end()) return;
  if (!it->is_string()) Fail(source, key, "must be a string, got " + Brief(*it));
  *out = it->get<std::string>();
}

// Objects may hold only the listed keys: a misspelt key must not silently keep a default.
const nlohmann::json* CheckObject(const nlohmann::json& parent, const char* key,
                                  const std::string& path, std::string_view source,
                                  const std::set<std::string>& allowed) {
  const nlohmann::json* object = &parent;
  if (key != nullptr) {
    const auto it = parent.find(key);
    if (it == parent.end()) return nullptr;
    object = &*it;
  }
  if (!object->is_object()) {
    Fail(source, path.empty() ? "<document>" : path, "must be an object, got " + Brief(*object));
  }
  for (const auto& item : object->items()) {
    if (allowed.count(item.key()) == 0) {
      const std::string key_name = item.key().empty() ? "\"\"" : item.key();  // "" named visibly
      Fail(source, path.empty() ? key_name : path + "." + key_name, "unknown key");
    }
  }
  return object;
}

void CheckDepth(uint32_t depth, uint32_t word_bytes, const char* key, const char* product,
                std::string_view source) {
  if (!IsPowerOfTwo(depth) || uint64_t{depth} * word_bytes > kWindowSize) {
    Fail(source, key,
         std::to_string(depth) + " " + DepthRule(product) + " (" + std::to_string(word_bytes) +
             " bytes per word)");
  }
}

void CheckFixed(int value, int expected, const char* key, std::string_view source) {
  if (value != expected) Fail(source, key, std::to_string(value) + " " + FixedRule(expected));
}

void ValidateIn(const ArchConfig& c, std::string_view source) {
  const auto legal_dim = [](int v) { return v == 4 || v == 8 || v == 16 || v == 32; };
  if (!legal_dim(c.rows)) Fail(source, "array.rows", std::to_string(c.rows) + " " + kDimRule);
  if (!legal_dim(c.cols)) Fail(source, "array.cols", std::to_string(c.cols) + " " + kDimRule);
  CheckDepth(c.a_depth, c.a_word_bytes(), "sram.a_depth", kADepthProduct, source);
  CheckDepth(c.b_depth, c.b_word_bytes(), "sram.b_depth", kBDepthProduct, source);
  CheckDepth(c.bias_depth, c.bias_word_bytes(), "sram.bias_depth", kBiasDepthProduct, source);
  CheckDepth(c.rq_depth, c.rq_word_bytes(), "sram.rq_depth", kRqDepthProduct, source);
  CheckDepth(c.out_depth, c.out_word_bytes(), "sram.out_depth", kOutDepthProduct, source);
  CheckFixed(c.addr_bits, kAddrBits, "bus.addr_bits", source);
  CheckFixed(c.acc_bits, kAccBits, "acc_bits", source);
  CheckFixed(c.latency.cmd_setup, kCmdSetupLatency, "latency.cmd_setup", source);
  CheckFixed(c.latency.sram_read, kSramReadLatency, "latency.sram_read", source);
  CheckFixed(c.latency.mac_edge, kMacEdgeLatency, "latency.mac_edge", source);
  CheckFixed(c.latency.requant, kRequantLatency, "latency.requant", source);
  CheckFixed(c.latency.out_write, kOutWriteLatency, "latency.out_write", source);
  CheckFixed(c.latency.lut, kLutLatency, "latency.lut", source);
  const int d = c.mem_data_bytes;
  if (d != 8 && d != 16 && d != 32 && d != 64)
    Fail(source, "mem.data_bytes", std::to_string(d) + " " + kDataBytesRule);
  if (c.mem_max_outstanding < 1 || c.mem_max_outstanding > 8)
    Fail(source, "mem.max_outstanding",
         std::to_string(c.mem_max_outstanding) + " " + kOutstandingRule);
  constexpr uint64_t kPage = 4096, kMaxExt = uint64_t{1} << 32;
  if (c.ext_mem_size_bytes < kPage || c.ext_mem_size_bytes > kMaxExt ||
      c.ext_mem_size_bytes % kPage != 0) {
    Fail(source, "ext_mem.size_bytes", std::to_string(c.ext_mem_size_bytes) + " " + kExtSizeRule);
  }
  if (c.lut_slots < 1 || c.lut_slots > kLutMaxSlots)
    Fail(source, "lut.slots", std::to_string(c.lut_slots) + " " + kLutSlotsRule);
  if (c.ext_mem_latency < 1 || c.ext_mem_latency > 1024)
    Fail(source, "ext_mem.latency", std::to_string(c.ext_mem_latency) + " " + kExtLatencyRule);
  if (c.ext_mem_interval < 1 || c.ext_mem_interval > 64)
    Fail(source, "ext_mem.interval", std::to_string(c.ext_mem_interval) + " " + kExtIntervalRule);
  if (c.ext_mem_ready_gaps < 0 || c.ext_mem_ready_gaps > kMaxReadyGaps)
    Fail(source, "ext_mem.ready_gaps", std::to_string(c.ext_mem_ready_gaps) + " " + kExtGapsRule);
  if (c.ext_mem_gap_seed < 0 || c.ext_mem_gap_seed > 0x7FFFFFFF)
    Fail(source, "ext_mem.gap_seed", std::to_string(c.ext_mem_gap_seed) + " " + kExtGapSeedRule);
}

}  // namespace

uint32_t ArchConfig::depth(Region sram) const {
  switch (sram) {
    case Region::kA:
      return a_depth;
    case Region::kB:
      return b_depth;
    case Region::kBias:
      return bias_depth;
    case Region::kRq:
      return rq_depth;
    case Region::kOut:
      return out_depth;
    case Region::kLut:
      return uint32_t(kLutSlotWords) * uint32_t(lut_slots);
    default:
      return 0;
  }
}

const char* UnitName(Unit unit) {
  for (const UnitInfo& info : kUnits) {
    if (info.id == unit) return info.name;
  }
  return "?";
}

const RegisterInfo* FindRegister(uint32_t offset) {
  for (const RegisterInfo& info : kRegisters) {
    if (info.offset == offset) return &info;
  }
  return nullptr;
}

void ValidateArchConfig(const ArchConfig& config) { ValidateIn(config, config.name); }

ArchConfig ParseArchConfig(std::string_view json_text, std::string_view source) {
  // nlohmann::json stops at a NUL byte as at the end of the text: what follows one would be ignored.
  if (const size_t nul = json_text.find('\0'); nul != std::string_view::npos) {
    Fail(source, "<document>", "a NUL byte at offset " + std::to_string(nul) + ": not a JSON text");
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
    Fail(source, "<document>", std::string("JSON parse error: ") + e.what());
  }
  ArchConfig c;
  const auto* root = CheckObject(doc, nullptr, "", source,
                                 {"name", "description", "array", "sram", "bus", "acc_bits",
                                  "latency", "lut", "mem", "ext_mem"});
  ReadString(*root, "name", source, &c.name);
  ReadString(*root, "description", source, &c.description);
  ReadInt(*root, "acc_bits", "acc_bits", source, &c.acc_bits, FixedRule(kAccBits));
  if (const auto* o = CheckObject(*root, "array", "array", source, {"rows", "cols"})) {
    ReadInt(*o, "rows", "array.rows", source, &c.rows, kDimRule);
    ReadInt(*o, "cols", "array.cols", source, &c.cols, kDimRule);
  }
  if (const auto* o = CheckObject(*root, "sram", "sram", source,
                                  {"a_depth", "b_depth", "bias_depth", "rq_depth", "out_depth"})) {
    ReadInt(*o, "a_depth", "sram.a_depth", source, &c.a_depth, DepthRule(kADepthProduct));
    ReadInt(*o, "b_depth", "sram.b_depth", source, &c.b_depth, DepthRule(kBDepthProduct));
    ReadInt(*o, "bias_depth", "sram.bias_depth", source, &c.bias_depth,
            DepthRule(kBiasDepthProduct));
    ReadInt(*o, "rq_depth", "sram.rq_depth", source, &c.rq_depth, DepthRule(kRqDepthProduct));
    ReadInt(*o, "out_depth", "sram.out_depth", source, &c.out_depth, DepthRule(kOutDepthProduct));
  }
  if (const auto* o = CheckObject(*root, "bus", "bus", source, {"addr_bits"})) {
    ReadInt(*o, "addr_bits", "bus.addr_bits", source, &c.addr_bits, FixedRule(kAddrBits));
  }
  if (const auto* o =
          CheckObject(*root, "latency", "latency", source,
                      {"cmd_setup", "sram_read", "mac_edge", "requant", "out_write", "lut"})) {
    ReadInt(*o, "cmd_setup", "latency.cmd_setup", source, &c.latency.cmd_setup,
            FixedRule(kCmdSetupLatency));
    ReadInt(*o, "sram_read", "latency.sram_read", source, &c.latency.sram_read,
            FixedRule(kSramReadLatency));
    ReadInt(*o, "mac_edge", "latency.mac_edge", source, &c.latency.mac_edge,
            FixedRule(kMacEdgeLatency));
    ReadInt(*o, "requant", "latency.requant", source, &c.latency.requant,
            FixedRule(kRequantLatency));
    ReadInt(*o, "out_write", "latency.out_write", source, &c.latency.out_write,
            FixedRule(kOutWriteLatency));
    ReadInt(*o, "lut", "latency.lut", source, &c.latency.lut, FixedRule(kLutLatency));
  }
  if (const auto* o = CheckObject(*root, "lut", "lut", source, {"slots"})) {
    ReadInt(*o, "slots", "lut.slots", source, &c.lut_slots, kLutSlotsRule);
  }
  if (const auto* o = CheckObject(*root, "mem", "mem", source, {"data_bytes", "max_outstanding"})) {
    ReadInt(*o, "data_bytes", "mem.data_bytes", source, &c.mem_data_bytes, kDataBytesRule);
    ReadInt(*o, "max_outstanding", "mem.max_outstanding", source, &c.mem_max_outstanding,
            kOutstandingRule);
  }
  if (const auto* o =
          CheckObject(*root, "ext_mem", "ext_mem", source,
                      {"size_bytes", "latency", "interval", "ready_gaps", "gap_seed"})) {
    // Read as int64_t (ReadInt's range check is signed); a negative size fails ValidateIn's range.
    int64_t size_bytes = static_cast<int64_t>(c.ext_mem_size_bytes);
    ReadInt(*o, "size_bytes", "ext_mem.size_bytes", source, &size_bytes, kExtSizeRule);
    if (size_bytes < 0) {
      Fail(source, "ext_mem.size_bytes", std::to_string(size_bytes) + " " + kExtSizeRule);
    }
    c.ext_mem_size_bytes = static_cast<uint64_t>(size_bytes);
    ReadInt(*o, "latency", "ext_mem.latency", source, &c.ext_mem_latency, kExtLatencyRule);
    ReadInt(*o, "interval", "ext_mem.interval", source, &c.ext_mem_interval, kExtIntervalRule);
    ReadInt(*o, "ready_gaps", "ext_mem.ready_gaps", source, &c.ext_mem_ready_gaps, kExtGapsRule);
    ReadInt(*o, "gap_seed", "ext_mem.gap_seed", source, &c.ext_mem_gap_seed, kExtGapSeedRule);
  }
  ValidateIn(c, source);
  return c;
}

ArchConfig LoadArchConfig(const std::string& path) {
  std::error_code error;
  // An ifstream opens a directory, then reads nothing: it would pass for an empty document.
  if (std::filesystem::is_directory(path, error)) {
    throw std::invalid_argument(path + " is a directory, expected a configuration file");
  }
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseArchConfig(text.str(), path);
}

std::string DescribeArchConfig(const ArchConfig& c) {
  std::ostringstream os;
  os << c.name << ": " << c.rows << "x" << c.cols << ", A " << c.a_depth << ", B " << c.b_depth
     << ", bias " << c.bias_depth << ", rq " << c.rq_depth << ", out " << c.out_depth << " words";
  return os.str();
}

bool SlopeRegistersLegal(const std::array<uint32_t, kSlopeRegisterCount>& regs) {
  // A side is four words from its MULT: MULT, SHIFT, ZP, CFG (requant.md 6.2).
  auto side_legal = [](const uint32_t* w) {
    const uint32_t cfg = w[3];
    const auto mult = static_cast<int32_t>(w[0]);
    if (cfg & kSlopePosRqForm) {
      const uint32_t width = (cfg & kSlopePosMultWidthMask) >> kSlopePosMultWidthLsb;
      const uint32_t round = (cfg & kSlopePosRshiftRoundMask) >> kSlopePosRshiftRoundLsb;
      if (width > static_cast<uint32_t>(MultWidth::kW32) ||
          round > static_cast<uint32_t>(RshiftRound::kDown)) {
        return false;
      }
      return LowBitsSigned(w[0], MultWidthBits(width)) == mult &&
             RshiftValue(w[1]) <= uint32_t(kMaxRqRshift);
    }
    const int32_t shift = ShiftValue(w[1]);
    return (mult == 0 || mult >= kMinNonzeroMult) && shift >= kMinShift && shift <= kMaxShift;
  };
  const auto lo = static_cast<int32_t>(regs[8]), hi = static_cast<int32_t>(regs[9]);
  return side_legal(&regs[0]) && side_legal(&regs[4]) && lo <= hi && lo >= kMinInt8ModeClamp &&
         hi <= kMaxInt8ModeClamp;
}

ErrCode ValidateCommand(const ArchConfig& config, const Command& cmd,
                        bool slope_registers_checked) {
  // The opcode first: the other checks read the fields of a GEMM.
  if (cmd.Op() != static_cast<uint32_t>(Opcode::kGemm)) return ErrCode::kBadOpcode;
  const int64_t m = cmd.M(), n = cmd.N(), k = cmd.K();
  // A table's input is a requant code, never a raw accumulator (lut.md 10.4).
  if (m == 0 || n == 0 || k == 0 || ((cmd.lut() || cmd.slope()) && cmd.out_raw())) {
    return ErrCode::kBadShape;
  }
  const Timing timing(config.rows, config.cols, m, n, k);
  const int64_t mb = timing.MB(), nb = timing.NB();
  constexpr uint32_t base_mask = (uint32_t{1} << kBaseBits) - 1;
  if (int64_t{cmd.a_base & base_mask} + mb * k > int64_t{config.a_depth}) return ErrCode::kARange;
  if (int64_t{cmd.b_base & base_mask} + nb * k > int64_t{config.b_depth}) return ErrCode::kBRange;
  if (cmd.bias_en() && int64_t{cmd.bias_base & base_mask} + nb > int64_t{config.bias_depth}) {
    return ErrCode::kBiasRange;
  }
  if (const int64_t rq_words = cmd.rq_words_per_tile();
      rq_words > 0 && int64_t{cmd.rq_base & base_mask} + rq_words * nb > int64_t{config.rq_depth}) {
    return ErrCode::kRqRange;
  }
  if (int64_t{cmd.out_base & base_mask} + OutWords(timing.T(), config.rows, OutLayoutOf(cmd)) >
      int64_t{config.out_depth}) {
    return ErrCode::kOutRange;
  }
  if (!cmd.out_raw()) {
    bool bad_form = false;
    if (cmd.tpu_mlir_form()) {
      bad_form = cmd.mult_width() > static_cast<uint32_t>(MultWidth::kW32) ||
                 cmd.rshift_round() > static_cast<uint32_t>(RshiftRound::kDown);
    } else {
      const int32_t shift = ShiftValue(cmd.shift);
      bad_form = shift < kMinShift || shift > kMaxShift ||
                 (!cmd.per_channel() && cmd.mult != 0 && cmd.mult < kMinNonzeroMult);
    }
    const bool bad_order = cmd.clamp_min > cmd.clamp_max;
    const bool bad_int8 = cmd.clamp_min < kMinInt8ModeClamp || cmd.clamp_min > kMaxInt8ModeClamp ||
                          cmd.clamp_max < kMinInt8ModeClamp || cmd.clamp_max > kMaxInt8ModeClamp;
    if (bad_form || bad_order || bad_int8) return ErrCode::kBadRequant;
    if (cmd.tpu_mlir_form() && !cmd.per_channel()) {
      const int bits = MultWidthBits(cmd.mult_width());
      if (LowBitsSigned(static_cast<uint32_t>(cmd.mult), bits) != cmd.mult) {
        return ErrCode::kMultWidth;
      }
      if (RshiftValue(cmd.shift) > uint32_t(kMaxRqRshift)) return ErrCode::kRshiftRange;
    }
  }
  const int32_t a_zp = ZpA(cmd.zp_ab), b_zp = ZpB(cmd.zp_ab);
  if (a_zp < kMinOperandZp || a_zp > kMaxOperandZp || b_zp < kMinOperandZp ||
      b_zp > kMaxOperandZp) {
    return ErrCode::kBadZp;
  }
  if (cmd.act() != static_cast<uint32_t>(Act::kNone) && !cmd.lut() && !cmd.slope()) {
    return ErrCode::kUnitAbsent;
  }
  if (cmd.slope()) {  // requant.md 6.2: the input zero point, then the registers
    if (cmd.zp_out < kMinInt8ModeClamp || cmd.zp_out > kMaxInt8ModeClamp) return ErrCode::kBadSlope;
    if (!slope_registers_checked && !SlopeRegistersLegal(cmd.slope_regs)) return ErrCode::kBadSlope;
  }
  if (cmd.lut()) {
    if (cmd.lut_slot() >= uint32_t(config.lut_slots)) return ErrCode::kLutSlot;
    if (cmd.lut_in_bits() < uint32_t(kLutMinInBits) ||
        cmd.lut_in_bits() > uint32_t(kLutMaxInBits)) {
      return ErrCode::kLutInBits;
    }
    if (cmd.lut_entry_bits() != 8 && cmd.lut_entry_bits() != 16) return ErrCode::kLutEntryBits;
  }
  return ErrCode::kNone;
}

}  // namespace qacc::arch
