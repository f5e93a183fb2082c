// Harness `cli_flags`: the qacc command line's numeric flags, as main() parses them: the real option
// tree (every Register*Command of sim/cli but cosim and bench, which need the co-simulation build),
// with each subcommand's action replaced by a recorder, so that a fuzzed command line is parsed and
// validated exactly as `qacc` does and nothing runs. Two helpers that parse numbers after parsing
// are driven directly: ParseSeed (--seed of cosim, --seed-base of regress) and MakeSpec (the
// --PREFIX-bits/-scale/-zp/-amax formats of qacc apply).
//
// Input: lines (one argument each). First line "@seed": the second line goes to ParseSeed. First
// line "@spec": the rest are arguments of a command holding AddSpecOptions("x"), then MakeSpec.
// Otherwise the lines are qacc's arguments (without the program name).
//
// Contract:
//  * the parse ends normally or with CLI::ParseError, UsageError or std::invalid_argument (what
//    main() turns into exit 2, or 0 for --help/--version), with a non-empty message; any other
//    exception (std::out_of_range from a conversion, a logic_error) is a finding (main would exit 1
//    with "internal error");
//  * after a parse that succeeds, every numeric flag given holds a value inside the range its help
//    and docs/bad_input.md state, checked against the table kRanges below (written from the help
//    texts, not from the validators); at start-up the harness refuses to run if a numeric flag of
//    the tree has no row there, so a new flag gets its range checked in the same change;
//  * ParseSeed: decimal digits only, 0..2^64-1, equal to the value computed here with __int128;
//    else UsageError "OPTION: 'TEXT' is not a seed: ..." naming the range;
//  * MakeSpec: a QuantSpec with bits 2..16, a finite scale > 0 and a zero point inside its codes,
//    or UsageError / ParseError naming an --x- option.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "golden/quant.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/spec_options.h"
#include "tests/fuzz/fuzz_check.h"

namespace qacc::fuzz {
namespace {

// A subcommand's action, reached through a pointer to CLI::App's protected member: the harness
// keeps it (it owns the options' variables) and installs a recorder in its place.
struct AppAccess : CLI::App {
  static constexpr auto kFinal = &AppAccess::final_callback_;
  static constexpr auto kParseComplete = &AppAccess::parse_complete_callback_;
};

// The range of a numeric flag, as its help text and docs/bad_input.md state it, as far as the parse
// enforces it (a range the command checks when it runs, such as --shift -31..30 in MakeRequantSetup,
// appears here as its variable's range).
struct Range {
  enum Kind { kInt, kUint, kFloat } kind;
  long double lo, hi;    // inclusive, unless lo_open
  bool lo_open = false;  // lo < value
};
constexpr long double kInf = INFINITY;
Range Int(long double lo, long double hi) { return {Range::kInt, lo, hi}; }
Range Int32() { return Int(INT32_MIN, INT32_MAX); }
Range Int64() { return Int(INT64_MIN, INT64_MAX); }
Range Positive() { return {Range::kFloat, 0, kInf, true}; }
Range NonNegative() { return {Range::kFloat, 0, kInf}; }
Range Finite() { return {Range::kFloat, -kInf, kInf}; }

// "subcommand path option" -> range; "* --x-bits" rows hold for every subcommand with that option
// (the formats of spec_options.h). Every numeric flag of the tree has a row (checked at start).
const std::map<std::string, Range>& Ranges() {
  static const std::map<std::string, Range> ranges = {
      {"lut --alpha", Finite()},
      {"lut --in-bits", Int(2, 8)},
      {"lut --in-amax", Positive()},
      {"lut --in-scale", Positive()},
      {"lut --in-zp", Int32()},  // "within the input codes": checked when it runs
      {"lut --out-bits", Int(2, 16)},
      {"lut --out-amax", Positive()},
      {"lut --out-min", Finite()},
      {"lut --out-max", Finite()},
      {"lut --out-scale", Positive()},
      {"lut --out-zp", Int32()},
      {"softmax-tables --n", Int(1, 65536)},
      {"softmax-tables --in-bits", Int(2, 8)},
      {"softmax-tables --in-amax", Positive()},
      {"softmax-tables --out-bits", Int(2, 16)},
      {"softmax-tables --out-amax", Positive()},
      {"softmax-tables --acc-bits", Int(8, 32)},
      {"softmax-tables --error-rows", Int(0, 100000)},
      {"softmax-tables --seed", {Range::kUint, 0, 18446744073709551615.0L}},
      {"softmax-tables --min-acc-bits", Int(0, 65535)},
      {"table-memory --in-bits", Int(2, 16)},
      {"table-memory --acc-bits", Int(1, 48)},
      {"table-memory --out-bits", Int(2, 16)},
      {"multiplier --scale", NonNegative()},
      {"multiplier --bits", Int(8, 32)},  // 8, 16 or 32: checked below
      {"multiplier --max-multiplier", Int(1, 4611686018427387904.0L)},
      {"calibrate --percentile", {Range::kFloat, 0, 100, true}},
      {"calibrate --bits", Int(2, 16)},
      {"calibrate --bins", Int(1, 65536)},
      {"* --in-bits", Int(2, 16)},
      {"* --out-bits", Int(2, 16)},
      {"* --a-bits", Int(2, 16)},
      {"* --b-bits", Int(2, 16)},
      {"* --in-scale", Positive()},
      {"* --out-scale", Positive()},
      {"* --a-scale", Positive()},
      {"* --b-scale", Positive()},
      {"* --in-amax", Positive()},
      {"* --out-amax", Positive()},
      {"* --a-amax", Positive()},
      {"* --b-amax", Positive()},
      {"* --in-zp", Int64()},  // inside the codes: MakeSpec, when it runs
      {"* --out-zp", Int64()},
      {"* --a-zp", Int64()},
      {"* --b-zp", Int64()},
      {"apply lut --alpha", Finite()},
      {"apply softmax --acc-bits", Int(8, 32)},
      {"apply lut --in-bits", Int(2, 8)},  // the table is addressed by an int8 code
      {"apply softmax --in-bits", Int(2, 8)},
      {"apply requant --scale", NonNegative()},
      {"apply requant --multiplier", Int64()},  // 0 or 2^30..2^31-1: MakeRequantSetup
      {"apply requant --shift", Int64()},       // -31..30: MakeRequantSetup
      {"apply requant --rshift", Int64()},      // 0..63: MakeTpuMlirRequantSetup
      {"apply requant --axis", Int32()},        // an axis of the input: when it runs
      {"apply requant --max-multiplier", Int(1, 2147483647)},
      {"apply avgpool --kernel", Int32()},
      {"apply avgpool --stride", Int32()},
      {"apply avgpool --pad", Int32()},
      {"apply avgpool --multiplier-bits", Int32()},
      {"apply pad --pad", Int32()},
      {"apply pad --value", Finite()},
      {"regress --seeds", Int(1, 9223372036854775807.0L)},
      {"regress --jobs", Int(1, 1024)},
      {"regress --timeout", {Range::kFloat, 0, 1e6, true}},
      {"regress --mutant", Int(0, 1073741824)},
      {"regress --memory-limit", Int(0, 1073741824)},
  };
  return ranges;
}

// The row of `option` under the subcommand `path`, or nullptr.
const Range* FindRange(const std::string& path, const std::string& option) {
  const auto& ranges = Ranges();
  auto it = ranges.find(path + " " + option);
  if (it == ranges.end()) it = ranges.find("* " + option);
  return it == ranges.end() ? nullptr : &it->second;
}

bool IsNumeric(const CLI::Option* opt) {
  const std::string type = opt->get_type_name();
  return StartsWith(type, "INT") || StartsWith(type, "UINT") || StartsWith(type, "FLOAT") ||
         StartsWith(type, "NUMBER");
}

void Dump(const CLI::App* app, const std::string& path) {
  for (const CLI::Option* opt : app->get_options()) {
    std::fprintf(stderr, "%s %s | %s | %s\n", path.c_str(), opt->get_name().c_str(),
                 opt->get_type_name().c_str(), opt->get_description().substr(0, 60).c_str());
  }
  for (const CLI::App* sub : app->get_subcommands({})) {
    Dump(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name());
  }
}

struct Tree {
  CLI::App app{"qacc"};
  std::vector<std::function<void()>> actions;  // the real actions, kept (never called)
  std::vector<CLI::App*> ran;                  // subcommands whose recorder ran
};

void Neutralise(Tree& tree, CLI::App* app) {
  for (CLI::App* sub : app->get_subcommands({})) {
    tree.actions.push_back(std::move(sub->*AppAccess::kFinal));
    tree.actions.push_back(std::move(sub->*AppAccess::kParseComplete));
    sub->final_callback([&tree, sub] { tree.ran.push_back(sub); });
    sub->parse_complete_callback({});
    Neutralise(tree, sub);
  }
}

std::unique_ptr<Tree> MakeTree() {
  auto tree = std::make_unique<Tree>();
  CLI::App& app = tree->app;
  app.name("qacc");
  app.set_version_flag("--version", "qacc fuzz");
  app.require_subcommand(1);
  cli::RegisterLutCommand(app);
  cli::RegisterSoftmaxTablesCommand(app);
  cli::RegisterTableMemoryCommand(app);
  cli::RegisterMultiplierCommand(app);
  cli::RegisterCalibrateCommand(app);
  cli::RegisterApplyCommand(app);
  cli::RegisterRegressCommand(app);
  cli::RegisterValidateCommand(app);
  cli::ReadIntegersInDecimal(app);  // as main() does
  Neutralise(*tree, &app);
  return tree;
}

// Lines of the input, one argument each (NUL separates too).
std::vector<std::string> Lines(const uint8_t* data, size_t size) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n' || data[i] == '\0') {  // an argv string holds no NUL
      lines.emplace_back();
    } else {
      lines.back() += static_cast<char>(data[i]);
    }
  }
  return lines;
}

// The exact value of a decimal integer text ([+-]digits), or false for another spelling. Values
// beyond +-2^100 are clamped there (they fit no option).
bool DecimalValue(const std::string& text, __int128* value) {
  const size_t start = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (text.size() == start || text.find_first_not_of("0123456789", start) != std::string::npos) {
    return false;
  }
  constexpr __int128 kClamp = __int128{1} << 100;
  __int128 v = 0;
  for (size_t i = start; i < text.size(); ++i) v = std::min(kClamp, v * 10 + (text[i] - '0'));
  *value = text[0] == '-' ? -v : v;
  return true;
}

std::string ToString(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : v;
  std::string digits;
  for (; u > 0; u /= 10) digits.insert(digits.begin(), char('0' + int(u % 10)));
  return negative ? "-" + digits : digits;
}

// Every given numeric option of a parsed subcommand holds a value inside its range; a decimal text
// is read as that decimal number (not as octal for a leading 0, not saturated when too large).
void CheckParsed(const CLI::App* sub, const std::string& path) {
  for (const CLI::Option* opt : sub->get_options()) {
    if (opt->count() == 0 || !IsNumeric(opt)) continue;
    const Range* range = FindRange(path, opt->get_name());
    FUZZ_CHECK(range != nullptr, "{} {}: no range", path, opt->get_name());
    const std::vector<std::string> texts = opt->as<std::vector<std::string>>();
    const std::string where = fmt::format("{} {}", path, opt->get_name());
    if (range->kind == Range::kFloat) {
      const auto values = opt->as<std::vector<double>>();
      for (double v : values) {
        FUZZ_CHECK(std::isfinite(v) || !std::isfinite(range->hi),
                   "{}: {} accepted (texts {})", where, v, fmt::join(texts, ","));
        FUZZ_CHECK(std::isfinite(v), "{}: {} accepted, not finite (texts {})", where, v,
                   fmt::join(texts, ","));
        FUZZ_CHECK(range->lo_open ? v > range->lo : v >= range->lo,
                   "{}: {} accepted, below the range (texts {})", where, v, fmt::join(texts, ","));
        FUZZ_CHECK(v <= range->hi, "{}: {} accepted, above the range (texts {})", where, v,
                   fmt::join(texts, ","));
      }
      continue;
    }
    std::vector<__int128> values;
    if (range->kind == Range::kUint) {
      for (uint64_t v : opt->as<std::vector<uint64_t>>()) values.push_back(v);
    } else {
      for (int64_t v : opt->as<std::vector<int64_t>>()) values.push_back(v);
    }
    // One value per result text (the delimiter splits them before conversion).
    std::vector<std::string> split;
    for (const std::string& t : texts) {
      size_t begin = 0;
      for (size_t comma; (comma = t.find(',', begin)) != std::string::npos; begin = comma + 1) {
        split.push_back(t.substr(begin, comma - begin));
      }
      split.push_back(t.substr(begin));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const __int128 v = values[i];
      FUZZ_CHECK(v >= __int128(range->lo) && v <= __int128(range->hi),
                 "{}: {} accepted, outside {}..{}", where, ToString(v), ToString(range->lo),
                 ToString(range->hi));
      __int128 written = 0;
      if (values.size() == split.size() && DecimalValue(split[i], &written)) {
        FUZZ_CHECK(v == written, "{}: '{}' was read as {}", where, split[i], ToString(v));
      }
    }
    if (path == "multiplier" && opt->get_name() == "--bits") {
      FUZZ_CHECK(values[0] == 8 || values[0] == 16 || values[0] == 32, "--bits {} accepted",
                 ToString(values[0]));
    }
  }
}

// Every numeric option of the tree has a row in Ranges().
void CheckTable(const CLI::App* app, const std::string& path) {
  for (const CLI::Option* opt : app->get_options()) {
    if (!IsNumeric(opt)) continue;
    if (FindRange(path, opt->get_name()) == nullptr) {
      std::fprintf(stderr,
                   "cli_flags: the numeric flag '%s %s' (%s) has no range in "
                   "tests/fuzz/cli_flags_fuzz.cc Ranges(): add its row\n",
                   path.c_str(), opt->get_name().c_str(), opt->get_type_name().c_str());
      std::abort();
    }
  }
  for (const CLI::App* sub : app->get_subcommands({})) {
    CheckTable(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name());
  }
}

std::string PathOf(const CLI::App* app) {
  std::string path;
  for (const CLI::App* a = app; a != nullptr && a->get_parent() != nullptr; a = a->get_parent()) {
    path = path.empty() ? a->get_name() : a->get_name() + " " + path;
  }
  return path;
}

// ParseSeed against the value computed here.
void CheckSeed(const std::string& text, const std::string& option) {
  __int128 expected = 0;
  const bool valid = text.find_first_not_of("0123456789") == std::string::npos &&
                     DecimalValue(text, &expected) && expected <= __int128(UINT64_MAX);
  try {
    const uint64_t seed = cli::ParseSeed(text, option);
    FUZZ_CHECK(valid && __int128(seed) == expected, "ParseSeed('{}') = {}", text, seed);
  } catch (const cli::UsageError& e) {
    FUZZ_CHECK(!valid, "ParseSeed refused '{}': {}", text, e.what());
    FUZZ_CHECK(StartsWith(e.what(), option + ": '" + text + "' is not a seed") &&
                   std::string(e.what()).find(cli::kSeedRange) != std::string::npos,
               "ParseSeed message: {}", e.what());
  }
}

void CheckSpec(const std::vector<std::string>& args) {
  CLI::App app{"spec"};
  cli::SpecArgs spec("x");
  cli::AddSpecOptions(&app, &spec, /*scale_needed=*/args.size() % 2 == 0);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return;
  }
  try {
    const golden::QuantSpec q = cli::MakeSpec(spec);
    FUZZ_CHECK(q.bits >= 2 && q.bits <= 16, "bits {}", q.bits);
    FUZZ_CHECK(std::isfinite(q.scale) && q.scale > 0, "scale {}", q.scale);
    FUZZ_CHECK(q.zero_point >= q.qmin() && q.zero_point <= q.qmax(), "zero point {} outside {}..{}",
               q.zero_point, q.qmin(), q.qmax());
    FUZZ_CHECK(q.qmin() < q.qmax(), "codes {}..{}", q.qmin(), q.qmax());
  } catch (const cli::UsageError& e) {
    FUZZ_CHECK(StartsWith(e.what(), "--x-"), "MakeSpec message names no option: {}", e.what());
  }
}

// The tree is built once (building it costs ten times a parse) and cleared before each parse:
// CLI::App::clear() resets every option's results, which is all the checks read.
Tree* tree_once = nullptr;

void CheckCommandLine(const std::vector<std::string>& args) {
  Tree* tree = tree_once;
  tree->app.clear();
  tree->ran.clear();
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  std::string error;
  try {
    tree->app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    error = e.what();
    if (e.get_exit_code() == 0) return;  // --help, --version
  } catch (const cli::UsageError& e) {
    error = e.what();
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  if (!error.empty()) return;
  FUZZ_CHECK(!tree->ran.empty(), "a command line accepted without a subcommand");
  for (const CLI::App* sub : tree->ran) {
    const std::string path = PathOf(sub);
    CheckParsed(sub, path);
    if (path == "regress" && sub->get_option("--seed-base")->count() > 0) {
      CheckSeed(sub->get_option("--seed-base")->as<std::string>(), "--seed-base");
    }
  }
}

}  // namespace
}  // namespace qacc::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto tree = qacc::fuzz::MakeTree();
  if (std::getenv("QACC_FUZZ_DUMP_OPTIONS")) {  // the option tree, to write Ranges()
    qacc::fuzz::Dump(&tree->app, "");
    std::exit(0);
  }
  qacc::fuzz::CheckTable(&tree->app, "");
  qacc::fuzz::tree_once = tree.release();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qacc::fuzz;
  std::vector<std::string> lines = Lines(data, size);
  if (lines[0] == "@seed") {
    CheckSeed(lines.size() > 1 ? lines[1] : "", "--seed");
  } else if (lines[0] == "@spec") {
    lines.erase(lines.begin());
    CheckSpec(lines);
  } else {
    CheckCommandLine(lines);
  }
  return 0;
}
