#include "sim/cli/common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace qacc::cli {

namespace {

// Parses a double the way CLI11 does, but rejects trailing garbage; returns false on failure.
bool ParseDouble(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

}  // namespace

const CLI::Validator kPositiveFinite(
    [](std::string& text) -> std::string {
      double value = 0;
      if (!ParseDouble(text, &value) || !std::isfinite(value) || !(value > 0)) {
        return fmt::format("{} is not allowed, must be a finite number > 0", text);
      }
      return {};
    },
    "FLOAT>0", "positive finite");

const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      double value = 0;
      if (!ParseDouble(text, &value) || !std::isfinite(value)) {
        return fmt::format("{} is not allowed, must be a finite number", text);
      }
      return {};
    },
    "FLOAT", "finite");

void AddOutputOptions(CLI::App* cmd, OutputOptions* options) {
  cmd->add_flag("--json", options->json, "Print one JSON document instead of text");
  cmd->add_option("-o,--output", options->output_path,
                  "Write the output to FILE instead of stdout (atomically: no partial file on error)");
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) {
    throw UsageError(fmt::format("--output: cannot create {}: {}", path, std::strerror(errno)));
  }
  const bool written = write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  const bool closed = close(fd) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UsageError(fmt::format("--output: cannot write {}: {}", path, std::strerror(errno)));
  }
}

void Emit(const OutputOptions& options, const std::string& human, const nlohmann::json& json) {
  const std::string text = options.json ? json.dump(2) + "\n" : human;
  if (options.output_path.empty()) {
    std::cout << text << std::flush;
  } else {
    WriteFileAtomically(options.output_path, text);
  }
}

}  // namespace qacc::cli
