#include "sim/cli/path_identity.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "sim/cli/common.h"

namespace qacc::cli {

namespace {

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId& other) const { return dev == other.dev && ino == other.ino; }
};

std::optional<FileId> IdOf(const std::filesystem::path& path) {
  struct stat st = {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

// A file that does not exist (yet): its parent directory and its name. A parent that does not
// exist either is compared by its normalized absolute name.
struct NewFile {
  std::optional<FileId> parent;
  std::string parent_name;
  std::string name;
};

NewFile NewFileOf(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error).lexically_normal();
  NewFile file;
  file.name = absolute.filename().string();
  file.parent = IdOf(absolute.parent_path());
  file.parent_name = absolute.parent_path().string();
  return file;
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  const std::optional<FileId> id_a = IdOf(a), id_b = IdOf(b);
  if (id_a || id_b) return id_a && id_b && *id_a == *id_b;
  const NewFile new_a = NewFileOf(a), new_b = NewFileOf(b);
  if (new_a.name != new_b.name) return false;
  if (new_a.parent && new_b.parent) return *new_a.parent == *new_b.parent;
  return !new_a.parent && !new_b.parent && new_a.parent_name == new_b.parent_name;
}

void CheckOutputsDistinct(const std::vector<NamedPath>& inputs,
                          const std::vector<NamedPath>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    for (const NamedPath& in : inputs) {
      if (in.path.empty() || out.path == "-" || !SameFile(in.path, out.path)) continue;
      throw UsageError(fmt::format(
          "{}: {} is also read as {} ({}): writing it would destroy that input; give another "
          "file",
          out.option, out.path, in.option, in.path));
    }
    for (size_t j = 0; j < i; ++j) {
      const NamedPath& earlier = outputs[j];
      if (earlier.path.empty() || !SameFile(earlier.path, out.path)) continue;
      throw UsageError(fmt::format("{} and {}: both write {}; give each output its own {}",
                                   earlier.option, out.option,
                                   out.path == "-" ? "standard output" : out.path,
                                   out.path == "-" ? "destination" : "file"));
    }
  }
}

}  // namespace qacc::cli
