// The memhier command as a user meets it: exit codes, one-sentence errors, JSON keys.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../common/run_memhier.hpp"

namespace {

using memhier::testing::Result;
using memhier::testing::run;
using memhier::testing::slurp;

// Bad input: exit 2, nothing on stdout, one sentence on stderr's first line.
void expect_bad_input(const std::vector<std::string>& args) {
  const Result r = run(args);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("memhier: ", 0), 0u) << r.err;
}

}  // namespace

TEST(Cli, HelpListsEverySubcommand) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* sub :
       {"analyze", "occupancy", "probe", "list", "info", "report", "claims", "tune"})
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub;
}

TEST(Cli, AnalyzeSharedJsonKeys) {
  const Result r = run({"analyze", "shared", "float tile[32][32]", "tile[lane][0]", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["wavefronts"], 32);
  EXPECT_EQ(j["ideal_wavefronts"], 1);
  EXPECT_EQ(j["conflicts"], 31);
  EXPECT_EQ(j["degree"], 32);
  EXPECT_EQ(j["schema"], "memhier.analyze.shared");
  ASSERT_EQ(j["fixes"].size(), 2u);
  for (const auto& f : j["fixes"]) EXPECT_EQ(f["conflicts"], 0) << f.dump();
}

TEST(Cli, AnalyzeSharedTextShowsFix) {
  const Result r =
      run({"analyze", "shared", "float tile[32][32]", "tile[tx][ty]", "--block", "32x32"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("float tile[32][33]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conflict-free"), std::string::npos) << r.out;
}

TEST(Cli, AnalyzeGlobalJsonKeys) {
  const Result r =
      run({"analyze", "global", "float a[]", "a[lane]", "--offset-bytes", "4", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["requests"], 1);
  EXPECT_EQ(j["sectors"], 5);
  EXPECT_EQ(j["lines"], 2);
  EXPECT_DOUBLE_EQ(j["sectors_per_request"].get<double>(), 5.0);
}

TEST(Cli, SweepGivesOneObjectPerValue) {
  const Result r =
      run({"analyze", "shared", "float s[]", "lane * stride", "--sweep", "stride=1..33", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 33u);
  EXPECT_EQ(j[31]["stride"], 32);
  EXPECT_EQ(j[31]["degree"], 32);
  EXPECT_EQ(j[32]["degree"], 1);
  const Result g =
      run({"analyze", "global", "float a[]", "a[lane * s]", "--sweep", "s=1..4", "--json"});
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(nlohmann::json::parse(g.out)[3]["sectors"], 16);
}

// A sweep's JSON is printed row by row: the text must be exactly what dump(2) gives for
// the whole array; an error midway prints nothing on stdout.
TEST(Cli, SweepJsonIsTheWholeArrayAndAllOrNothing) {
  const Result r =
      run({"analyze", "global", "float a[]", "a[lane * s]", "--sweep", "s=0..6:3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, nlohmann::json::parse(r.out).dump(2) + "\n");
  for (const char* json : {"--json", "--store"}) {
    const Result e =
        run({"analyze", "shared", "float a[40]", "a[lane + s]", "--sweep", "s=0..20", json});
    EXPECT_EQ(e.status, 2) << e.out << e.err;
    EXPECT_TRUE(e.out.empty()) << e.out;  // s = 9 leaves the array: no partial table
    EXPECT_NE(e.err.find("s = 9"), std::string::npos) << e.err;
  }
}

TEST(Cli, SetGivesVariablesValues) {
  const Result r =
      run({"analyze", "shared", "float tile[32][33]", "tile[lane][k]", "--set", "k=3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["conflicts"], 0);
}

TEST(Cli, OccupancyJsonKeys) {
  const Result r = run(
      {"occupancy", "--cc", "9.0", "--block", "256", "--regs", "64", "--smem", "48K", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"blocks_per_sm", "active_warps", "occupancy", "limiter"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GT(j["blocks_per_sm"].get<int>(), 0);
}

TEST(Cli, ListAndInfoAnswer) {
  const Result l = run({"list", "--json"});
  ASSERT_EQ(l.status, 0) << l.err;
  EXPECT_TRUE(nlohmann::json::parse(l.out)["entries"].is_array());
  const Result i = run({"info"});
  EXPECT_EQ(i.status, 0) << i.err;
  EXPECT_FALSE(i.out.empty());
}

// Every kernel variant's and probe's claim names its source text by title ("GPU Memory
// Hierarchy, §L2 Cache"), never by the number the data keeps ("001 §L2 Cache").
TEST(Cli, ListCitesSourcesByTitle) {
  const Result l = run({"list", "--json"});
  ASSERT_EQ(l.status, 0) << l.err;
  const std::regex bare("(^|[^0-9])[0-9]{3} §");
  std::set<std::string> kinds_citing;
  const auto list = nlohmann::json::parse(l.out);
  for (const auto& e : list["entries"]) {
    const auto source = e["claim"]["source"].get<std::string>();
    EXPECT_FALSE(std::regex_search(source, bare)) << e["name"] << ": " << source;
    if (source.find(", §") != std::string::npos) kinds_citing.insert(e["kind"].get<std::string>());
  }
  EXPECT_EQ(kinds_citing, (std::set<std::string>{"kernel", "probe"}));
}

TEST(Cli, ReportWritesItsFiles) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("memhier_report_" + std::to_string(getpid()));
  const Result r = run({"report", "--out", dir.string(), "--quiet", "--no-gpu"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"index.html", "report.md", "results.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  const auto j = nlohmann::json::parse(slurp(dir / "results.json"));
  EXPECT_EQ(j["schema"], "memhier.report");
  std::filesystem::remove_all(dir);
}

TEST(Cli, BadInputExitsTwoWithOneSentence) {
  expect_bad_input({"analyze", "shared", "flaot s[]", "s[lane]"});
  expect_bad_input({"analyze", "shared", "float tile[32][32]", "tile[lane][33]"});
  expect_bad_input({"analyze", "global", "float a[]", "a[k]"});
  expect_bad_input({"analyze", "shared", "float s[]", "s[lane]", "--sweep", "k=5..1"});
  expect_bad_input({"analyze", "shared", "float s[]", "s[lane]", "--block", "2048"});
  expect_bad_input({"analyze", "shared", "float s[]", "s[lane]", "--warp", "3"});
  expect_bad_input({"occupancy", "--cc", "6.1"});
  expect_bad_input({"occupancy", "--block", "2048"});
  expect_bad_input({"occupancy", "--regs", "300"});
  expect_bad_input({"occupancy", "--smem", "lots"});
  expect_bad_input({"frobnicate"});
  expect_bad_input({"analyze", "shared", "float s[]"});
  expect_bad_input({"bench", "nope"});
  expect_bad_input({"bench", "transpose", "--variant", "nope"});
  expect_bad_input({"bench", "gemm", "--size", "0x1x1"});
  expect_bad_input({"bench", "softmax", "--size", "3x"});
  expect_bad_input({"bench", "gemm", "--m", "5"});
  expect_bad_input({"bench", "transpose", "--sweep"});  // no sweep of shapes
  expect_bad_input({"bench", "gemm_bf16", "--sweep", "--size", "64x64x64"});
}

TEST(Cli, MalformedExpressionShowsCaretUnderTheColumn) {
  const Result r = run({"analyze", "shared", "float tile[32][32]", "tile[lane+][0]"});
  EXPECT_EQ(r.status, 2);
  // The caret line: spaces then '^' under the ']' that ended the expression early.
  const auto caret = r.err.find('^');
  ASSERT_NE(caret, std::string::npos) << r.err;
  const auto line_start = r.err.rfind('\n', caret) + 1;
  const auto prev_line_start = r.err.rfind('\n', line_start - 2) + 1;
  const std::string input_line = r.err.substr(prev_line_start, line_start - 1 - prev_line_start);
  const std::size_t col = caret - line_start;
  ASSERT_LT(col, input_line.size()) << r.err;
  EXPECT_EQ(input_line[col], ']') << r.err;
}

TEST(Cli, GpuCommandsWithoutAGpuExitThree) {
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  if (!nlohmann::json::parse(info.out)["device"].is_null())
    GTEST_SKIP() << "this machine has a GPU";
  const Result r = run({"probe", "--quick"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("needs a GPU"), std::string::npos) << r.err;
  const Result peer = run({"probe", "peer"});  // no GPU at all: the GPU's sentence first
  EXPECT_EQ(peer.status, 3) << peer.out << peer.err;
  EXPECT_NE(peer.err.find("needs a GPU"), std::string::npos) << peer.err;
  const Result p = run({"profile", "transpose"});
  EXPECT_EQ(p.status, 3) << p.out << p.err;
  EXPECT_TRUE(p.out.empty()) << p.out;
}

// memhier report measures: without a GPU it still writes the models' report (the claims with
// their reasons), says where before writing and that the measured sections need a GPU, and
// exits 3 like probe, bench and profile. --no-gpu asks for that report alone: exit 0.
TEST(Cli, ReportWithoutAGpuWritesTheModelsAndExitsThree) {
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  if (!nlohmann::json::parse(info.out)["device"].is_null())
    GTEST_SKIP() << "this machine has a GPU";
  const auto dir =
      std::filesystem::temp_directory_path() / ("memhier_nogpu_" + std::to_string(getpid()));
  const Result r = run({"report", "--out", dir.string(), "--quiet"});
  EXPECT_EQ(r.status, 3) << r.err;
  for (const char* f : {"index.html", "report.md", "results.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  EXPECT_EQ(r.err.rfind("memhier report: writing " + dir.string() + "/", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("measured sections need a GPU"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
  // Bare `memhier` is the report into ./memhier-report: it says so first.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(dir);
  const Result bare = run({});
  std::filesystem::current_path(cwd);
  EXPECT_EQ(bare.status, 3) << bare.err;
  EXPECT_EQ(bare.err.rfind("memhier report: writing " + (dir / "memhier-report").string() + "/",
                           0),
            0u)
      << bare.err;
  std::filesystem::remove_all(dir);
}

// A word CLI11 did not expect is named, with what would do.
TEST(Cli, UnexpectedWordsAreNamedWithTheChoices) {
  const Result mode = run({"analyze", "texture", "float a[]", "a[lane]"});
  EXPECT_EQ(mode.status, 2);
  EXPECT_EQ(mode.err, "memhier: memhier analyze needs one of shared or global, not 'texture'.\n");
  const Result extra = run({"info", "gpu"});
  EXPECT_EQ(extra.status, 2);
  EXPECT_EQ(extra.err, "memhier: memhier info does not take 'gpu'; it takes --json.\n");
  const Result family = run({"list", "transpose"});
  ASSERT_EQ(family.status, 0) << family.err;
  EXPECT_NE(family.out.find("kernel transpose"), std::string::npos) << family.out;
  EXPECT_EQ(family.out.find("kernel reduction"), std::string::npos) << family.out;
  const Result unknown = run({"list", "texture"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown family 'texture'; known: latency,"), std::string::npos)
      << unknown.err;
}

// Without a GPU, info names every command that still works; a full SM has no limiter.
TEST(Cli, InfoAndOccupancySayWhatHolds) {
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  if (nlohmann::json::parse(info.out)["device"].is_null()) {
    const Result text = run({"info"});
    for (const char* works : {"analyze", "occupancy", "simulate --card", "claims", "report --no-gpu"})
      EXPECT_NE(text.out.find(works), std::string::npos) << works << ": " << text.out;
  }
  const Result full = run({"occupancy", "--json"});
  ASSERT_EQ(full.status, 0) << full.err;
  const auto j = nlohmann::json::parse(full.out);
  EXPECT_EQ(j["occupancy"], 1.0);
  EXPECT_EQ(j["limiter"], "none");
}

// memhier tune: a family whose best is not tuned, no shape, a bad shape or list is bad input
// before any GPU; without a GPU good input exits 3.
TEST(Cli, TuneRefusesBadInputBeforeTheGpu) {
  expect_bad_input({"tune", "nope", "--shapes", "64x64x64"});
  expect_bad_input({"tune", "softmax", "--shapes", "8x65536"});
  expect_bad_input({"tune", "all", "--shapes", "64x64x64"});
  expect_bad_input({"tune", "gemm"});
  expect_bad_input({"tune", "gemm_bf16", "--shapes", "4096x4096"});
  expect_bad_input({"tune", "gemm_bf16", "--shapes", "64x64x64,,128x128x128"});
  expect_bad_input({"tune", "gemm", "--shapes", "64x64x64,0x1x1"});
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  if (!nlohmann::json::parse(info.out)["device"].is_null())
    GTEST_SKIP() << "this machine has a GPU";
  const Result r = run({"tune", "gemm_bf16", "--shapes", "1024x1024x1024,4096x4096x4096"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// memhier profile: bad targets, variants and shapes are bad input before any GPU or ncu.
TEST(Cli, ProfileBadInputExitsTwo) {
  expect_bad_input({"profile", "latency"});  // a probe without access patterns
  expect_bad_input({"profile", "nope"});
  expect_bad_input({"profile", "gemm", "--variant", "nope"});
  expect_bad_input({"profile", "transpose", "--size", "0x5"});
  expect_bad_input({"profile", "shared-stride", "--size", "7"});
  expect_bad_input({"profile", "all", "--variant", "naive"});
}

// memhier explain: bad options are bad input before ncu or a GPU is looked for.
TEST(Cli, ExplainBadInputExitsTwo) {
  expect_bad_input({"explain"});                                      // no program
  expect_bad_input({"explain", "--kernel", "(", "--", "/bin/true"});  // not a regex
  expect_bad_input({"explain", "--launch-count", "x", "--", "/bin/true"});
  expect_bad_input({"explain", "--json", "--html", "--", "/bin/true"});
}

// Without ncu: one sentence and exit 3, as profile does, on any machine.
TEST(Cli, ExplainWithoutNcuExitsThree) {
  ::setenv("MEMHIER_NCU", "/nonexistent/ncu", 1);  // an explicit choice is never overridden
  const Result r = run({"explain", "--", "/bin/true"});
  ::unsetenv("MEMHIER_NCU");
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("Nsight Compute (ncu) was not found"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
}

TEST(Cli, ClaimsMarkdownIsDocsClaimsMd) {
  const Result r = run({"claims", "--markdown"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = std::filesystem::path(MEMHIER_SOURCE_DIR) / "docs" / "claims.md";
  EXPECT_TRUE(r.out == slurp(doc))
      << doc << " differs from `memhier claims --markdown`: run scripts/gen-claims.sh";
}

TEST(Cli, ClaimsJsonAndTextName) {
  const Result j = run({"claims", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema"], "memhier.claims");
  ASSERT_TRUE(doc["claims"].is_array());
  ASSERT_FALSE(doc["claims"].empty());
  for (const char* key : {"id", "source", "sources", "text", "checked_by", "unmeasured"})
    EXPECT_TRUE(doc["claims"][0].contains(key)) << key;
  const Result t = run({"claims", "padding-3x-matmul"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("padding-3x-matmul"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("bench gemm"), std::string::npos) << t.out;
  expect_bad_input({"claims", "no-such-claim"});
  expect_bad_input({"claims", "--markdown", "--json"});
}

TEST(Cli, ReportWithoutMeasurementsSaysWhyForEveryClaim) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("memhier_claims_" + std::to_string(getpid()));
  const Result r = run({"report", "--out", dir.string(), "--quiet", "--no-gpu"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir / "results.json"));
  std::filesystem::remove_all(dir);
  const nlohmann::json* table = nullptr;
  for (const auto& s : j["sections"])
    if (s["id"] == "claims")
      for (const auto& t : s["tables"])
        if (t["id"] == "claims") table = &t;
  ASSERT_NE(table, nullptr) << "no Claims section in results.json";
  ASSERT_FALSE((*table)["rows"].empty());
  for (const auto& row : (*table)["rows"]) {
    EXPECT_EQ(row["verdict"], "not measurable here") << row["claim_id"];
    EXPECT_FALSE(row["detail"].get<std::string>().empty()) << row["claim_id"];
  }
}

TEST(Cli, UnknownProbeIsBadInput) {
  expect_bad_input({"probe", "--only", "no-such-probe"});
  expect_bad_input({"probe", "host", "no-such-probe"});  // names as --only takes them
}

// memhier simulate runs on the CPU: a transpose tile's traffic as the JSON table, and every
// malformed input is one sentence with exit 2.
TEST(Cli, SimulateJsonHasTheTrafficColumns) {
  const Result r = run({"simulate", "transpose", "--variant", "padded", "--size", "1000x772",
                        "--card", "h100-sxm", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& t = j["sections"][0]["tables"][0];
  ASSERT_EQ(t["rows"].size(), 1u) << t.dump();
  const auto& cell = t["rows"][0];
  // Every input byte is read from DRAM once (rows are contiguous: 3,088,000 bytes), and the
  // kernel's code (a few KB of it).
  EXPECT_GT(cell["code_bytes"].get<double>(), 0) << t.dump();
  EXPECT_LT(cell["code_bytes"].get<double>(), 16384) << t.dump();
  EXPECT_EQ(cell["dram_read_bytes"].get<double>(), 3088000 + cell["code_bytes"].get<double>())
      << t.dump();
  for (const char* k : {"l1_hit_rate", "l2_hit_rate", "l2_sm_sectors", "dram_write_bytes",
                        "time_bound_us", "bound_by"})
    EXPECT_TRUE(cell.contains(k)) << k;
}

// The command line a record names pastes back into a shell: a word with a space or a quote
// is single-quoted, a quote inside written '\''.
TEST(Cli, TheRecordedCommandLineIsShellQuoted) {
  const Result r = run({"simulate", "transpose", "--variant", "padded", "--size", "64x64",
                        "--card", "H100 SXM", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["meta"]["command"],
            "memhier simulate transpose --variant padded --size 64x64 --card 'H100 SXM' --json");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("memhier_quote_" + std::to_string(getpid())) / "it's";
  const Result q = run({"report", "--no-gpu", "--json", "--out", dir.string()});
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_EQ(nlohmann::json::parse(q.out)["meta"]["command"],
            "memhier report --no-gpu --json --out '" + dir.parent_path().string() + "/it'\\''s'");
  std::filesystem::remove_all(dir.parent_path());
}

// The default card is the one in this machine: without a GPU, one sentence naming the
// table's cards and exit 3; a named card (the H200's own entry, not the H100's) runs anywhere.
TEST(Cli, SimulateDefaultsToThisCardAndNamesTheH200) {
  const Result here = run({"simulate", "transpose", "--variant", "padded", "--size", "64x64"});
  if (here.status == 3) {
    EXPECT_NE(here.err.find("Name a card instead"), std::string::npos) << here.err;
    EXPECT_NE(here.err.find("h200"), std::string::npos) << here.err;
  } else {
    EXPECT_EQ(here.status, 0) << here.err;
  }
  const Result h200 =
      run({"simulate", "transpose", "--variant", "padded", "--size", "64x64", "--card", "h200"});
  ASSERT_EQ(h200.status, 0) << h200.err;
  EXPECT_NE(h200.out.find("H200"), std::string::npos) << h200.out;
  EXPECT_NE(h200.out.find("60 MiB"), std::string::npos) << h200.out;
}

TEST(Cli, SimulateOnAnotherCardAndBadInput) {
  const Result r = run(
      {"simulate", "elementwise", "--variant", "float4", "--size", "copy:4099", "--card", "8.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("A100"), std::string::npos) << r.out;
  expect_bad_input({"simulate", "transpose", "--size", "0x5", "--card", "h200"});
  expect_bad_input({"simulate", "transpose", "--size", "012x5", "--card", "h200"});
  expect_bad_input({"simulate", "transpose", "--size", "", "--card", "h200"});
  expect_bad_input({"simulate", "transpose", "--card", "z80"});
  expect_bad_input({"simulate", "transpose", "--card", "h300"});
  expect_bad_input({"simulate", "transpose", "--variant", "nope", "--card", "h200"});
  expect_bad_input({"simulate", "all", "--size", "4x4", "--card", "h200"});
  expect_bad_input({"simulate", "histogram", "--size", "u8-uniform:0", "--card", "h200"});
  expect_bad_input({"simulate", "nothing", "--card", "h200"});
}

// The report's child-process option (internal, not in --help: a report runs it after a fault
// loses the GPU to its process) takes only the JSON a report writes for it, refused before any
// GPU; one it reads needs the GPU like every measuring command.
TEST(Cli, ReportContinueTakesOnlyItsOwnSpec) {
  expect_bad_input({"report", "--continue", "after the fault family"});
  expect_bad_input({"report", "--continue", R"({"resume": {"stage": "elsewhere"}, "out": "x"})"});
  expect_bad_input({"report", "--continue", R"({"resume": {"stage": "ladders"}})"});
  const Result help = run({"report", "--help"});
  EXPECT_EQ(help.out.find("--continue"), std::string::npos) << help.out;
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  if (!nlohmann::json::parse(info.out)["device"].is_null())
    GTEST_SKIP() << "this machine has a GPU";
  const auto out =
      std::filesystem::temp_directory_path() / ("memhier_continue_" + std::to_string(getpid()));
  const nlohmann::json spec = {
      {"resume", {{"stage", "ladders"}, {"family", "transpose"}}}, {"out", out.string()}};
  const Result r = run({"report", "--continue", spec.dump()});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}
