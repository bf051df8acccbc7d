// The program the fault test's report runs to measure the rest after the GPU is lost to the
// test's process (run::Options::isolate_with): the memhier command's `report --continue SPEC`,
// with the test's fault probes and family registered as in the test.
#include <exception>
#include <iostream>
#include <string>

#include "fault_family.hpp"
#include "memhier/run/pipeline.hpp"

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[1]) != "report" || std::string(argv[2]) != "--continue") {
    std::cerr << "usage: memhier_fault_child report --continue SPEC\n";
    return 2;
  }
  try {
    memhier::testing::register_faults();
    memhier::run::continue_report(argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "memhier_fault_child: " << e.what() << "\n";
    return 1;
  }
}
