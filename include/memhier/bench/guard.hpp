// Every measured item (a probe, a ladder's variant at a shape, a profiled item) runs under
// a guard: whatever it throws becomes one sentence for its row or section, a CUDA error
// that broke the context resets the device, and the run goes on with the next item. Where
// the driver cannot give this process a new context after the reset, the GPU is lost to the
// process: later items are not attempted and each says so (the run pipeline measures them in
// a child process instead where it can: run/isolate.cpp).
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace memhier::bench {

/// What a guard learned from a failed item.
struct Failure {
  std::string why;     ///< "out of GPU memory (...) while allocating 512 MiB", for a user
  bool reset = false;  ///< the context was broken and the device was reset (cudaDeviceReset)
  /// The GPU is lost to this process: this item broke the context for good, or came after.
  bool lost = false;
  /// "not measured: " + why: the text of the item's row or section.
  std::string not_measured() const { return "not measured: " + why; }
};

/// The sentence for `e` as a user reads it (no source line): out of GPU memory with the
/// allocation's size, a kernel fault, a busy device, or the exception's own message. Where
/// the CUDA context no longer works, resets the device and says so, or, when the reset does
/// not restore it, marks the GPU lost to this process for every later item.
Failure describe_failure(const std::exception& e);

/// What guarded() does with an item once the GPU is lost: refuse it (it would touch the GPU),
/// or run it (an item that says for itself, row by row, that the GPU was lost).
enum class WhenLost { refuse, run };

/// Runs `item` (once the GPU is lost, as `when_lost` says); returns true when it completed,
/// else false with `failure` filled (any exception is caught, std::invalid_argument included:
/// callers that treat a decline apart catch it inside `item`).
bool guarded(const std::function<void()>& item, Failure* failure,
             WhenLost when_lost = WhenLost::refuse);

/// Why the GPU is lost to this process (the fault that broke its context for good); "" while
/// it is not. A caller may then measure the rest in another process (run/isolate).
std::string gpu_lost();

}  // namespace memhier::bench
