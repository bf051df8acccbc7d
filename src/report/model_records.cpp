#include "memhier/report/model_records.hpp"

namespace memhier::report {

nlohmann::json shared_totals(const model::SharedAnalysis& a) {
  return {{"wavefronts", a.wavefronts},
          {"ideal_wavefronts", a.ideal_wavefronts},
          {"conflicts", a.conflicts},
          {"degree", a.degree}};
}

nlohmann::json global_totals(const model::GlobalAnalysis& a) {
  return {{"requests", a.requests},
          {"sectors", a.sectors},
          {"sectors_per_request", a.sectors_per_request},
          {"lines", a.lines},
          {"ideal_sectors", a.ideal_sectors},
          {"bytes_needed", a.bytes_needed},
          {"caching_utilization", a.caching_utilization},
          {"noncaching_utilization", a.noncaching_utilization}};
}

nlohmann::json shared_record(const std::string& declaration, const std::string& access,
                             const model::SharedAnalysis& a,
                             const std::vector<model::SharedFix>& fixes) {
  nlohmann::json j = {{"declaration", declaration}, {"access", access}};
  j.update(shared_totals(a));
  j["instructions"] = nlohmann::json::array();
  for (const auto& ic : a.per_instruction) {
    nlohmann::json ij = {
        {"member", ic.instruction.label},   {"width_bytes", ic.instruction.width_bytes},
        {"wavefronts", ic.cost.wavefronts}, {"ideal_wavefronts", ic.cost.ideal_wavefronts},
        {"conflicts", ic.cost.conflicts},   {"degree", ic.cost.degree},
        {"bank_words", ic.cost.bank_words}};
    nlohmann::json banks = nlohmann::json::array();
    for (int l = 0; l < 32; ++l)  // an inactive lane has no bank: null
      banks.push_back(ic.warp.active(l) ? nlohmann::json(ic.cost.lane_bank[l]) : nlohmann::json());
    ij["lane_bank"] = banks;
    j["instructions"].push_back(ij);
  }
  j["fixes"] = nlohmann::json::array();
  for (const auto& f : fixes) {
    nlohmann::json fj = {{"kind", f.kind},
                         {"declaration", f.decl_text},
                         {"access", f.access_text},
                         {"note", f.note}};
    fj.update(shared_totals(f.analysis));
    j["fixes"].push_back(fj);
  }
  return j;
}

nlohmann::json global_record(const std::string& declaration, const std::string& access,
                             std::int64_t offset_bytes, const model::GlobalAnalysis& a) {
  nlohmann::json j = {
      {"declaration", declaration}, {"access", access}, {"offset_bytes", offset_bytes}};
  j.update(global_totals(a));
  return j;
}

nlohmann::json occupancy_record(const model::ArchSpec& arch, const model::LaunchResources& r,
                                const model::OccupancyResult& res, const std::string& advice) {
  return {{"cc", arch.cc()},
          {"block_threads", r.block_threads},
          {"regs_per_thread", r.regs_per_thread},
          {"dynamic_smem_bytes", r.dynamic_smem_bytes},
          {"static_smem_bytes", r.static_smem_bytes},
          {"carveout_percent", r.carveout_percent},
          {"blocks_per_sm", res.blocks_per_sm},
          {"active_warps", res.active_warps},
          {"max_warps", res.max_warps},
          {"occupancy", res.occupancy},
          {"limiter", model::to_string(res.limiter)},
          {"bounds",
           {{"warps", res.blocks_by_warps},
            {"blocks", res.blocks_by_blocks},
            {"registers", res.blocks_by_registers},
            {"shared_memory", res.blocks_by_smem}}},
          {"regs_per_block", res.regs_per_block},
          {"smem_per_block", res.smem_per_block},
          {"smem_carveout_bytes", res.smem_carveout_bytes},
          {"advice", advice}};
}

}  // namespace memhier::report
