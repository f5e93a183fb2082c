// Harness `arch_config`: the architecture configuration reader (model/arch.cc ParseArchConfig, what
// LoadArchConfig does with the text of a configs/*.json file given to --config) on any text.
//
// Contract (model/arch.h, docs/architecture.md section 1):
//  * ParseArchConfig either returns a config or throws std::invalid_argument whose message is
//    "fuzz.json: KEY: what", KEY a key path of the document or "<document>" (only for text that is
//    not JSON or holds a NUL byte, or a JSON value that is not an object); no other exception (a nlohmann::json error escaping is a finding), no crash.
//  * When the message is about an integer field holding an integer, it quotes that integer as
//    written.
//  * An accepted config is exactly what the document says, checked here independently: the
//    document is an object holding only the keys of section 1, every present field has the
//    document's value and every absent one its default, and the values obey section 1 (rows and
//    cols 4, 8, 16 or 32; depths powers of 2 with depth * word bytes <= 2^20; the fixed fields
//    equal to the spec's). ValidateArchConfig accepts it.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/arch.h"
#include "tests/fuzz/fuzz_check.h"

namespace qacc::fuzz {
namespace {

constexpr std::string_view kSource = "fuzz.json";

// Every key of section 1 with its default (configs/default.json) or, for strings, nullptr.
const std::map<std::string, nlohmann::json>& KnownFields() {
  static const std::map<std::string, nlohmann::json> fields = {
      {"name", "default"},      {"description", ""},      {"acc_bits", 32},
      {"array.rows", 8},        {"array.cols", 8},        {"sram.a_depth", 8192},
      {"sram.b_depth", 8192},   {"sram.bias_depth", 256}, {"sram.rq_depth", 256},
      {"sram.out_depth", 8192}, {"bus.addr_bits", 24},    {"latency.cmd_setup", 1},
      {"latency.sram_read", 1}, {"latency.mac_edge", 1},  {"latency.requant", 4},
      {"latency.out_write", 1}, {"latency.lut", 2},       {"lut.slots", 4},
  };
  return fields;
}

int64_t FieldOf(const arch::ArchConfig& c, const std::string& key) {
  if (key == "acc_bits") return c.acc_bits;
  if (key == "array.rows") return c.rows;
  if (key == "array.cols") return c.cols;
  if (key == "sram.a_depth") return c.a_depth;
  if (key == "sram.b_depth") return c.b_depth;
  if (key == "sram.bias_depth") return c.bias_depth;
  if (key == "sram.rq_depth") return c.rq_depth;
  if (key == "sram.out_depth") return c.out_depth;
  if (key == "bus.addr_bits") return c.addr_bits;
  if (key == "latency.cmd_setup") return c.latency.cmd_setup;
  if (key == "latency.sram_read") return c.latency.sram_read;
  if (key == "latency.mac_edge") return c.latency.mac_edge;
  if (key == "latency.requant") return c.latency.requant;
  if (key == "latency.out_write") return c.latency.out_write;
  if (key == "latency.lut") return c.latency.lut;
  if (key == "lut.slots") return c.lut_slots;
  FUZZ_CHECK(false, "no field {}", key);
}

// The value at a dotted key path, or nullptr.
const nlohmann::json* At(const nlohmann::json& doc, const std::string& path) {
  const size_t dot = path.find('.');
  const nlohmann::json* parent = &doc;
  std::string key = path;
  if (dot != std::string::npos) {
    const auto it = doc.find(path.substr(0, dot));
    if (it == doc.end() || !it->is_object()) return nullptr;
    parent = &*it;
    key = path.substr(dot + 1);
  }
  const auto it = parent->find(key);
  return it == parent->end() ? nullptr : &*it;
}

bool PowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void CheckAccepted(const nlohmann::json& doc, const arch::ArchConfig& c) {
  FUZZ_CHECK(doc.is_object(), "accepted a document that is not an object");
  static const std::map<std::string, std::set<std::string>> kObjects = {
      {"array", {"rows", "cols"}},
      {"sram", {"a_depth", "b_depth", "bias_depth", "rq_depth", "out_depth"}},
      {"bus", {"addr_bits"}},
      {"latency", {"cmd_setup", "sram_read", "mac_edge", "requant", "out_write", "lut"}},
      {"lut", {"slots"}}};
  for (const auto& item : doc.items()) {
    const auto object = kObjects.find(item.key());
    if (object == kObjects.end()) {
      FUZZ_CHECK(item.key() == "name" || item.key() == "description" || item.key() == "acc_bits",
                 "accepted the unknown key '{}'", item.key());
      continue;
    }
    FUZZ_CHECK(item.value().is_object(), "accepted '{}' that is not an object", item.key());
    for (const auto& inner : item.value().items()) {
      FUZZ_CHECK(object->second.count(inner.key()) == 1, "accepted the unknown key '{}.{}'",
                 item.key(), inner.key());
    }
  }
  for (const auto& [key, default_value] : KnownFields()) {
    const nlohmann::json* value = At(doc, key);
    if (key == "name" || key == "description") {
      const std::string& field = key == "name" ? c.name : c.description;
      FUZZ_CHECK(field == (value ? *value : default_value).get<std::string>(),
                 "{} is not the document's", key);
      continue;
    }
    if (value != nullptr) {
      FUZZ_CHECK(value->is_number_integer(), "accepted {} = {}: not an integer", key,
                 value->dump());
      const bool fits = value->is_number_unsigned()
                            ? value->get<uint64_t>() <= uint64_t{INT64_MAX}
                            : true;
      FUZZ_CHECK(fits && value->get<int64_t>() == FieldOf(c, key),
                 "{} = {} in the document, {} in the config", key, value->dump(),
                 FieldOf(c, key));
    } else {
      FUZZ_CHECK(FieldOf(c, key) == default_value.get<int64_t>(), "absent {} is {}, not {}", key,
                 FieldOf(c, key), default_value.dump());
    }
  }
  // Section 1's rules, written out here.
  const auto legal_dim = [](int v) { return v == 4 || v == 8 || v == 16 || v == 32; };
  FUZZ_CHECK(legal_dim(c.rows) && legal_dim(c.cols), "array {}x{} accepted", c.rows, c.cols);
  const std::pair<uint32_t, uint32_t> depths[] = {{c.a_depth, uint32_t(c.rows)},
                                                  {c.b_depth, uint32_t(c.cols)},
                                                  {c.bias_depth, 4u * c.cols},
                                                  {c.rq_depth, 8u * c.cols},
                                                  {c.out_depth, 4u * c.cols}};
  for (const auto& [depth, word_bytes] : depths) {
    FUZZ_CHECK(PowerOfTwo(depth) && uint64_t{depth} * word_bytes <= (uint64_t{1} << 20),
               "depth {} of {}-byte words accepted", depth, word_bytes);
  }
  FUZZ_CHECK(c.addr_bits == 24 && c.acc_bits == 32 && c.latency.cmd_setup == 1 &&
                 c.latency.sram_read == 1 && c.latency.mac_edge == 1 && c.latency.requant == 4 &&
                 c.latency.out_write == 1 && c.latency.lut == 2,
             "a fixed field differs from the spec's");
  FUZZ_CHECK(c.lut_slots >= 1 && c.lut_slots <= 16, "lut.slots {} accepted", c.lut_slots);
  arch::ValidateArchConfig(c);  // throws (a finding) if the validator disagrees
  (void)arch::DescribeArchConfig(c);
}

// How the reader names a key in a message: "" is written as two quotes.
std::string KeyName(const std::string& key) { return key.empty() ? "\"\"" : key; }

void CheckRefused(std::string_view text, const std::string& message) {
  const std::string prefix = std::string(kSource) + ": ";
  FUZZ_CHECK(StartsWith(message, prefix), "message does not start with the source: {}", message);
  // nlohmann::json stops at a NUL byte; the reader refuses one.
  const bool json = text.find('\0') == std::string_view::npos &&
                    nlohmann::json::accept(text.begin(), text.end());
  const nlohmann::json doc =
      json ? nlohmann::json::parse(text.begin(), text.end()) : nlohmann::json();
  if (!json || !doc.is_object()) {
    FUZZ_CHECK(StartsWith(message, prefix + "<document>: "),
               "a message about a text that is not a JSON object names no <document>: {}",
               message);
    return;
  }
  // The key named: the longest key path of the document that the message starts with (a key may
  // itself hold ": ").
  std::string key;
  const auto consider = [&](const std::string& path) {
    if (StartsWith(message, prefix + path + ": ") && path.size() >= key.size()) key = path;
  };
  for (const auto& item : doc.items()) {
    consider(KeyName(item.key()));
    if (!item.value().is_object()) continue;
    for (const auto& inner : item.value().items()) {
      consider(KeyName(item.key()) + "." + KeyName(inner.key()));
    }
  }
  FUZZ_CHECK(!key.empty(), "the message names no key of the document: {}", message);
  const nlohmann::json* value = KnownFields().count(key) ? At(doc, key) : nullptr;
  if (value != nullptr && value->is_number_integer()) {
    FUZZ_CHECK(message.find(value->dump(), prefix.size() + key.size()) != std::string::npos,
               "the message does not quote {} = {} as written: {}", key, value->dump(), message);
  }
}

}  // namespace
}  // namespace qacc::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qacc::fuzz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  qacc::arch::ArchConfig config;
  try {
    config = qacc::arch::ParseArchConfig(text, kSource);
  } catch (const std::invalid_argument& e) {
    CheckRefused(text, e.what());
    return 0;
  }
  CheckAccepted(nlohmann::json::parse(text.begin(), text.end()), config);
  return 0;
}
