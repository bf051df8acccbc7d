// The claims catalogue, the tiers beyond the card: host memory and the other GPUs. The source
// texts name unified memory and the host without a figure to test, so these are memhier's own
// goals, each checked by the probe that measures the tier (or runs the collective).
#include "stated.hpp"

namespace memhier::claims {

std::vector<Claim> outer_claims() {
  return {
      // ---- The host tier (probe host).
      checked(ClaimId::host_pinned_over_pageable, "memhier goal: the host tier",
              "pinned host memory copies faster than pageable memory, which the driver stages "
              "through pinned buffers of its own (each direction, at the largest size)",
              {probe("host")},
              {Tolerance::at_least(1.1),
               "pinned at least 10 % faster each way: a staged copy adds a host-side copy to "
               "the same DMA"}),
      checked(ClaimId::host_copy_compute_overlap, "memhier goal: the host tier",
              "a copy on one stream runs while a kernel computes on another: two streams take "
              "well under one stream's time (ideally the longer of the two alone)",
              {probe("host")},
              {Tolerance::at_most(0.75),
               "two streams' time at most 3/4 of one stream's, copy and kernel being about "
               "equal (the ideal is 1/2)"}),
      checked(ClaimId::managed_prefetch_over_faults, "memhier goal: the host tier",
              "prefetching managed memory to the GPU (cudaMemPrefetchAsync) beats letting the "
              "kernel's page faults migrate it",
              {probe("host")},
              {Tolerance::above(1.0),
               "an ordering: the fault-driven total strictly above the prefetch plus the "
               "kernel"}),
      // ---- The peer tier (probe peer).
      checked(ClaimId::peer_sm_load_matches_copy_engine, "memhier goal: the peer tier",
              "SM loads through a peer pointer move data between GPUs as fast as the copy "
              "engine, one way",
              {probe("peer")},
              {Tolerance::at_least(0.95),
               "every ordered pair with peer access at 0.95 x its copy engine or more"}),
      // ---- Collectives (probe allreduce).
      checked(ClaimId::allreduce_one_shot_beats_nccl_small, "memhier goal: the all-reduce ladder",
              "one-shot, every GPU loading every peer's vector over P2P in one step, is faster "
              "than NCCL's all-reduce at every size up to 256 KiB, fp32 and bf16",
              {probe("allreduce")},
              {Tolerance::above(1.0),
               "every size up to 256 KiB strictly faster than NCCL (median of paired rounds), "
               "its outputs exact"}),
      checked(ClaimId::allreduce_best_near_nccl_large, "memhier goal: the all-reduce ladder",
              "the faster of the one-shot and two-shot kernels stays within 10 % of NCCL's "
              "all-reduce at 64 MiB and more, fp32 and bf16",
              {probe("allreduce")},
              {Tolerance::at_least(0.9),
               "every size from 64 MiB at 0.9 x NCCL's speed or more, its outputs exact"}),
  };
}

}  // namespace memhier::claims
