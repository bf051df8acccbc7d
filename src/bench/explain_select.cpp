// Which of a program's launches `memhier explain` profiles, and the sentence that tells the
// user what that leaves out. Host-only (CPU-tested).
#include <regex>
#include <stdexcept>

#include "memhier/bench/explain.hpp"

namespace memhier::bench {

std::pair<profile::Selection, std::string> explain_selection(const ExplainOptions& o) {
  if (o.program.empty() || o.program.front().empty())
    throw std::invalid_argument(
        "name the program to explain after '--', e.g. memhier explain -- ./app --size 4096.");
  if (o.launch_skip < 0 || o.launch_count < 0)
    throw std::invalid_argument("--launch-skip and --launch-count take whole numbers >= 0.");
  if (o.timeout_s < 0) throw std::invalid_argument("--timeout takes a number of seconds > 0.");
  if (!o.kernel_regex.empty()) {
    try {
      std::regex check(o.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      throw std::invalid_argument("--kernel '" + o.kernel_regex + "' is not a regular expression.");
    }
    // ncu's --kernel-id splits its argument at ':'.
    if (!o.every_launch && o.kernel_regex.find(':') != std::string::npos)
      throw std::invalid_argument("--kernel '" + o.kernel_regex +
                                  "' has a ':', which cannot pick each kernel's first launch; "
                                  "add --every-launch or leave the ':' out.");
  }
  profile::Selection s;
  s.from_start = true;
  s.kernel_regex = o.kernel_regex;
  s.first_launch_each = !o.every_launch;
  s.launch_skip = o.launch_skip;
  s.launch_count = o.launch_count > 0 ? o.launch_count : kDefaultKernels;
  const std::string n = std::to_string(s.launch_count);
  const std::string which =
      o.kernel_regex.empty() ? "kernel" : "kernel whose name matches /" + o.kernel_regex + "/";
  std::string said;
  if (s.first_launch_each)
    said = "Profiled the first launch of each " + which + ", at most " + n + " kernels" +
           (s.launch_skip > 0 ? " after the first " + std::to_string(s.launch_skip) : "") +
           "; later launches of the same kernels were skipped (--every-launch profiles them).";
  else
    said = "Profiled every launch of each " + which + ", at most " + n + " launches" +
           (s.launch_skip > 0 ? " after skipping " + std::to_string(s.launch_skip) : "") + ".";
  return {s, said};
}

}  // namespace memhier::bench
