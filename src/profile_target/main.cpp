// memhier-profile-target: the process Nsight Compute profiles for `memhier profile`.
#include "memhier/bench/profile_target.hpp"

int main(int argc, char** argv) {
  return memhier::bench::profile_target_main(argc, argv);
}
