// The counters `memhier explain` reads of a user's kernels. The keys are what the diagnosis
// (bench/explain.hpp) asks for; the access counters share their keys and metrics with
// `memhier profile`'s table, so both read a kernel the same way.
#include <algorithm>

#include "memhier/profile/ncu.hpp"

namespace memhier::profile {

const std::vector<Metric>& explain_metrics() {
  static const std::vector<Metric> m = [] {
    // From profile's table: the access counts per space, hit rates, DRAM bytes, stall shares,
    // occupancy, issue and tensor-pipe use, registers, duration.
    static const char* const kShared[] = {"shared_ld_instructions",
                                          "shared_ld_wavefronts",
                                          "shared_ldsm_wavefronts",
                                          "shared_st_instructions",
                                          "shared_st_wavefronts",
                                          "global_ld_instructions",
                                          "global_ld_requests",
                                          "global_ld_sectors",
                                          "global_st_instructions",
                                          "global_st_requests",
                                          "global_st_sectors",
                                          "local_ld_sectors",
                                          "local_st_sectors",
                                          "dram_read_bytes",
                                          "dram_write_bytes",
                                          "l1_hit_rate_pct",
                                          "l2_hit_rate_pct",
                                          "l2_sm_sectors",
                                          "stall_short_scoreboard_pct",
                                          "stall_mio_throttle_pct",
                                          "stall_long_scoreboard_pct",
                                          "achieved_occupancy_pct",
                                          "issue_active_pct",
                                          "tensor_pipe_pct",
                                          "tensor_hmma_pct",
                                          "tensor_gmma_pct",
                                          "registers",
                                          "duration_ns"};
    std::vector<Metric> t;
    for (const char* key : kShared)
      for (const Metric& p : metrics())
        if (p.key == key) t.push_back(p);
    // Bytes the instructions asked for (the access width's ideal follows from them), local
    // requests, the L2's and L1's own traffic, the launch's resources, the pipes, the FLOPs.
    // Optional where the name is not on every card's list (ncu leaves it out on a retry).
    const std::vector<Metric> more = {
        {"global_ld_bytes", "sm__sass_data_bytes_mem_global_op_ld.sum", "global ld bytes asked",
         false, true},
        {"global_st_bytes", "sm__sass_data_bytes_mem_global_op_st.sum", "global st bytes asked",
         false, true},
        {"shared_ld_bytes", "sm__sass_data_bytes_mem_shared_op_ld.sum", "shared ld bytes asked",
         false, true},
        {"shared_st_bytes", "sm__sass_data_bytes_mem_shared_op_st.sum", "shared st bytes asked",
         false, true},
        {"local_ld_requests", "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "local ld requests",
         false},
        {"local_st_requests", "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", "local st requests",
         false},
        {"l2_bytes", "lts__t_bytes.sum", "L2 bytes", false},
        {"l1_bytes", "l1tex__t_bytes.sum", "L1 bytes", false, true},
        {"shared_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
         "shared wavefronts (all)", false},
        {"block_size", "launch__block_size", "block size", false},
        {"grid_size", "launch__grid_size", "grid size", false},
        {"smem_static", "launch__shared_mem_per_block_static", "static shared B/block", false},
        {"smem_dynamic", "launch__shared_mem_per_block_dynamic", "dynamic shared B/block", false},
        {"occ_limit_registers", "launch__occupancy_limit_registers", "block limit: registers",
         false, true},
        {"occ_limit_shared", "launch__occupancy_limit_shared_mem", "block limit: shared", false,
         true},
        {"occ_limit_warps", "launch__occupancy_limit_warps", "block limit: warps", false, true},
        {"occ_limit_blocks", "launch__occupancy_limit_blocks", "block limit: blocks", false, true},
        {"waves", "launch__waves_per_multiprocessor", "waves per SM", false, true},
        {"fma_pipe_pct", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
         "FMA pipe %", false, true},
        {"alu_pipe_pct", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
         "ALU pipe %", false, true},
        {"lsu_pipe_pct", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
         "LSU pipe %", false, true},
        {"ffma", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "fp32 FMA (threads)", false},
        {"fadd", "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "fp32 add (threads)", false},
        {"fmul", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "fp32 mul (threads)", false},
        {"hfma", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "fp16 FMA (threads)", false},
        {"hadd", "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "fp16 add (threads)", false},
        {"hmul", "sm__sass_thread_inst_executed_op_hmul_pred_on.sum", "fp16 mul (threads)", false},
        {"tensor_bf16_ops", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "tensor bf16 ops", false,
         true},
        {"tensor_fp16_ops", "sm__ops_path_tensor_src_fp16_dst_fp32.sum", "tensor fp16 ops", false,
         true},
        {"tensor_fp16h_ops", "sm__ops_path_tensor_src_fp16_dst_fp16.sum",
         "tensor fp16 (fp16 acc.) ops", false, true},
        {"tensor_tf32_ops", "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "tensor tf32 ops", false,
         true},
    };
    t.insert(t.end(), more.begin(), more.end());
    return t;
  }();
  return m;
}

}  // namespace memhier::profile
