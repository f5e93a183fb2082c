// Which files a command line names, so that no output of a command overwrites one of its inputs or
// another of its outputs (`qacc compile net.json -o net.json` would replace the network by the
// report, `qacc cosim --waves f -o f` the waves by the report).
//
// Two names are the same file when
//  * both exist and stat(2) gives the same device and inode: a symbolic link, a hard link, `./x`
//    and `dir/../x` all name their target;
//  * neither exists and their parent directories are the same directory (by device and inode, as
//    above) and their last components are equal: `out.json` and `./sub/../out.json` are one new
//    file.
// An existing file and a missing one are never the same. "-" is standard output: two outputs "-"
// clash, an input is never "-".
#ifndef QACC_SIM_CLI_PATH_IDENTITY_H_
#define QACC_SIM_CLI_PATH_IDENTITY_H_

#include <string>
#include <vector>

namespace qacc::cli {

// A file of a command line and the option (or positional argument) that names it: {"--program",
// "net.bin"}, {"NETWORK", "net.json"}. An empty path is "not given" and is skipped.
struct NamedPath {
  std::string option;
  std::string path;
};

// True when `a` and `b` name the same file (see above); "-" is the same as "-" only.
bool SameFile(const std::string& a, const std::string& b);

// Throws UsageError, before anything is written, when an output names the same file as an input
// ("--output: ./net.json is also read as NETWORK (net.json): writing it would destroy that input;
// give another file") or as an earlier output ("--json and --junit: both write r.json; give each
// output its own file").
void CheckOutputsDistinct(const std::vector<NamedPath>& inputs,
                          const std::vector<NamedPath>& outputs);

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_PATH_IDENTITY_H_
