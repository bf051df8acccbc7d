#include "kernels/split_k/workspace.hpp"

#include <stdexcept>
#include <string>

#include "memhier/core/check.hpp"
#include "memhier/core/per_stream.hpp"

namespace memhier::kernels::split_k {

Workspace workspace_for(std::size_t floats, std::size_t tiles, cudaStream_t stream) {
  struct Held {
    core::Scratch<float> partials;
    core::Scratch<unsigned> counters;
  };
  static core::PerStream<Held> all;
  return all.with(stream, [&](Held& h) {
    h.partials.reserve(floats, stream, "split-K");
    if (h.counters.reserve(tiles, stream, "split-K"))
      MEMHIER_CUDA(cudaMemsetAsync(h.counters.data(), 0, h.counters.bytes(), stream));
    return Workspace{h.partials.data(), h.counters.data()};
  });
}

Args args_for(int m, int n, int splits, std::size_t tiles, cudaStream_t stream) {
  Args a;
  a.splits = splits;
  a.ld = (n + 3) / 4 * 4;
  a.slice = static_cast<long long>(m) * a.ld;
  const Workspace w = workspace_for(
      static_cast<std::size_t>(a.slice) * static_cast<std::size_t>(splits), tiles, stream);
  a.partials = w.partials;
  a.counters = w.counters;
  return a;
}

Slots slots_for(long long tiles, int splits, std::size_t tile_floats, long long first_tile,
                cudaStream_t stream) {
  const Workspace w = workspace_for(
      static_cast<std::size_t>(tiles) * static_cast<std::size_t>(splits) * tile_floats,
      static_cast<std::size_t>(tiles), stream);
  Slots s;
  s.partials = w.partials;
  s.counters = w.counters;
  s.first_tile = static_cast<int>(first_tile);
  s.splits = splits;
  return s;
}

std::string no_split(const char* name, long long tiles, int tile_m, int tile_n, int resident) {
  return std::string(name) + ": its " + std::to_string(tiles) + " tiles of " +
         std::to_string(tile_m) + "x" + std::to_string(tile_n) + " fill more than half of the " +
         std::to_string(resident) +
         " blocks this card holds at once, or K is too short to split: it would split nothing, "
         "and a kernel without splits runs this shape";
}

std::string no_tail_split(const char* name, long long tiles, int tile_m, int tile_n,
                          long long resident) {
  return std::string(name) + ": its " + std::to_string(tiles) + " tiles of " +
         std::to_string(tile_m) + "x" + std::to_string(tile_n) + " against the " +
         std::to_string(resident) +
         " blocks this card holds at once leave no last wave whose split would save a sixth of a "
         "round (under one wave, whole waves, or K too short): a kernel without it runs this "
         "shape";
}

}  // namespace memhier::kernels::split_k
