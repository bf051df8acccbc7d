// The tuning cache's host logic (every tuned family's; GEMM keys here): the derived key,
// tolerant reading, atomic merged writes. The device facts are plain data here; no GPU needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "memhier/kernels/gemm_tuning_cache.hpp"

#if !defined(_WIN32)
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace tuning = memhier::gemm::tuning;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

tuning::DeviceFacts h100() {
  return {"NVIDIA H100 80GB HBM3|sm_90", "550.54.15 (CUDA 12040)", "12040", "12040", "0.1.0"};
}

const std::vector<std::string> kCandidates = {"double_buffered", "cfg_64x64x16_4x4",
                                              "cfg_128x64x8_8x4"};

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class TuningCacheFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("memhier-tuning-") + info->name() + "-" +
            std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "gemm-tuning.json").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void put(const std::string& text) const { std::ofstream(path_, std::ios::trunc) << text; }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    return names;
  }

  fs::path dir_;
  std::string path_;
};

json entry(const std::string& choice) {
  return json{{"choice", choice}, {"tuned_on", "1024x1024x1024"}, {"min_ms", {{choice, 1.5}}}};
}

}  // namespace

TEST(TuningCacheKey, ChangesWithEveryFactAndTheCandidateList) {
  const std::string base = tuning::key_prefix(h100(), kCandidates);
  EXPECT_EQ(base, tuning::key_prefix(h100(), kCandidates));  // deterministic
  const std::vector<std::string tuning::DeviceFacts::*> fields = {
      &tuning::DeviceFacts::device, &tuning::DeviceFacts::driver, &tuning::DeviceFacts::toolkit,
      &tuning::DeviceFacts::runtime, &tuning::DeviceFacts::memhier_version};
  for (auto field : fields) {
    tuning::DeviceFacts f = h100();
    f.*field += "x";
    EXPECT_NE(base, tuning::key_prefix(f, kCandidates)) << f.*field;
  }
  std::vector<std::string> added = kCandidates, removed = kCandidates, reordered = kCandidates;
  added.push_back("cfg_new");
  removed.pop_back();
  std::swap(reordered[0], reordered[1]);
  for (const auto& c : {added, removed, reordered}) EXPECT_NE(base, tuning::key_prefix(h100(), c));
}

TEST(TuningCacheKey, FingerprintSeparatesNames) {
  EXPECT_NE(tuning::candidates_fingerprint({"ab", "c"}),
            tuning::candidates_fingerprint({"a", "bc"}));
  EXPECT_EQ(tuning::candidates_fingerprint({"a"}).size(), 16u);
}

TEST_F(TuningCacheFile, MissingFileIsEmptyWithoutWarning) {
  std::ostringstream err;
  tuning::Warnings w(err);
  EXPECT_EQ(tuning::read_entries(path_, w), json::object());
  EXPECT_EQ(err.str(), "");
}

TEST_F(TuningCacheFile, CorruptOrForeignFilesWarnOnceAndReadEmpty) {
  const std::vector<std::string> bad = {
      "{\"format\": \"memhier-gemm-tuning/1\", \"entries\": {",  // cut short
      "",
      "[1, 2]",
      "{\"format\": \"memhier-gemm-tuning/1\", \"entries\": []}",
      "{\"format\": \"memhier-gemm-tuning/1\"}",
      "{\"format\": \"memhier-gemm-tuning/1\", \"entries\": {\"k\": {\"choice\": 3}}}",
      "{\"format\": \"memhier-gemm-tuning/1\", \"entries\": {\"k\": \"naive\"}}",
      "{\"format\": \"someone-else/2\", \"entries\": {}}",  // foreign
      "{\"format\": 1}",
      "{\"settings\": {}}",
  };
  for (const std::string& text : bad) {
    put(text);
    std::ostringstream err;
    tuning::Warnings w(err);
    EXPECT_EQ(tuning::read_entries(path_, w), json::object()) << text;
    EXPECT_EQ(tuning::read_entries(path_, w), json::object()) << text;
    EXPECT_EQ(count_lines(err.str()), 1u) << text << "\n" << err.str();
    EXPECT_EQ(err.str().rfind("memhier: ignoring the tuning cache at " + path_ + ": ", 0), 0u)
        << err.str();
  }
}

TEST_F(TuningCacheFile, WrittenFileRoundTripsAndKeepsOtherKeys) {
  std::ostringstream err;
  tuning::Warnings w(err);
  const std::string ours = tuning::key_prefix(h100(), kCandidates) + "|large|aligned";
  tuning::DeviceFacts other = h100();
  other.device = "NVIDIA A100-SXM4-80GB|sm_80";
  const std::string theirs = tuning::key_prefix(other, kCandidates) + "|large|aligned";
  ASSERT_TRUE(tuning::write_entry(path_, theirs, entry("cfg_64x64x16_4x4"), w));
  ASSERT_TRUE(tuning::write_entry(path_, ours, entry("double_buffered"), w));
  const json got = tuning::read_entries(path_, w);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(got.at(ours), entry("double_buffered"));
  EXPECT_EQ(got.at(theirs), entry("cfg_64x64x16_4x4"));
  std::ifstream in(path_);
  EXPECT_EQ(json::parse(in).at("format"), tuning::kFormat);
  EXPECT_EQ(err.str(), "");
}

TEST_F(TuningCacheFile, WriteReplacesACorruptFile) {
  put("{ not json");
  std::ostringstream err;
  tuning::Warnings w(err);
  ASSERT_TRUE(tuning::write_entry(path_, "k", entry("naive"), w));
  EXPECT_EQ(count_lines(err.str()), 1u);
  EXPECT_EQ(tuning::read_entries(path_, w), json({{"k", entry("naive")}}));
}

TEST_F(TuningCacheFile, WritingLeavesNoTemporaryFiles) {
  tuning::Warnings w(std::cerr);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(tuning::write_entry(path_, "k" + std::to_string(i), entry("naive"), w));
  // The lock file stays: removing it while another process waits on it would split the lock.
  EXPECT_EQ(files(), (std::vector<std::string>{"gemm-tuning.json", "gemm-tuning.json.lock"}));
}

TEST_F(TuningCacheFile, UnwritablePlaceFailsQuietly) {
  put("{}");  // a regular file where the directory should be
  std::ostringstream err;
  tuning::Warnings w(err);
  EXPECT_FALSE(tuning::write_entry(path_ + "/sub/gemm-tuning.json", "k", entry("naive"), w));
  EXPECT_EQ(err.str(), "");
}

TEST_F(TuningCacheFile, ConcurrentWritersLeaveAValidFile) {
  std::ostringstream err;
  tuning::Warnings w(err);  // any torn file a reader or writer saw would warn here
  constexpr int kWrites = 40;
  auto writer = [&](const std::string& who) {
    for (int i = 0; i < kWrites; ++i)
      tuning::write_entry(path_, who + std::to_string(i), entry("naive"), w);
  };
  auto reader = [&] {
    for (int i = 0; i < 2 * kWrites; ++i) tuning::read_entries(path_, w);
  };
  std::thread a(writer, "a"), b(writer, "b"), c(reader);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(err.str(), "");
  std::string reason;
  std::ifstream in(path_);
  std::stringstream text;
  text << in.rdbuf();
  const json entries = tuning::parse_entries(text.str(), &reason);
  ASSERT_TRUE(entries.is_object()) << reason;
  // Each read-merge-write holds the lock: no writer's entry is lost to the other's rename.
  for (const char* who : {"a", "b"})
    for (int i = 0; i < kWrites; ++i) EXPECT_TRUE(entries.contains(who + std::to_string(i)));
  EXPECT_EQ(files(), (std::vector<std::string>{"gemm-tuning.json", "gemm-tuning.json.lock"}));
}

#if !defined(_WIN32)
TEST_F(TuningCacheFile, ConcurrentProcessesLeaveAValidFile) {
  constexpr int kWrites = 40;
  std::vector<pid_t> children;
  for (const char* who : {"p", "q"}) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // the child: only async-safe exits, no gtest assertions
      std::ostringstream err;
      tuning::Warnings w(err);
      bool ok = true;
      for (int i = 0; i < kWrites; ++i)
        ok = tuning::write_entry(path_, who + std::to_string(i), entry("naive"), w) && ok;
      _exit(ok && err.str().empty() ? 0 : 1);
    }
    children.push_back(pid);
  }
  std::ostringstream err;
  tuning::Warnings w(err);
  for (int i = 0; i < 2 * kWrites; ++i) tuning::read_entries(path_, w);  // never a torn file
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  EXPECT_EQ(err.str(), "");
  const json entries = tuning::read_entries(path_, w);
  EXPECT_EQ(err.str(), "");
  // The flock spans processes: both children's entries are all there.
  for (const char* who : {"p", "q"})
    for (int i = 0; i < kWrites; ++i) EXPECT_TRUE(entries.contains(who + std::to_string(i)));
  EXPECT_EQ(files(), (std::vector<std::string>{"gemm-tuning.json", "gemm-tuning.json.lock"}));
}
#endif

// The key is the card and the exact shape: two shapes of one flops class (both above 2^34
// flops, where the old key had one "large" entry) are two entries, and so are one shape's
// layouts (leading dimensions, base alignment).
TEST(TuningCacheKey, EveryShapeAndLayoutIsItsOwnEntry) {
  const std::string prefix = tuning::key_prefix(h100(), kCandidates);
  const tuning::ShapeKey first = tuning::dense_shape(2048, 3072, 1536);
  const tuning::ShapeKey cube = tuning::dense_shape(4096, 4096, 4096);
  EXPECT_NE(tuning::entry_key(prefix, "gemm_bf16", first),
            tuning::entry_key(prefix, "gemm_bf16", cube));
  // The same flops, the extents swapped.
  EXPECT_NE(tuning::entry_key(prefix, "gemm", tuning::dense_shape(4096, 2048, 8192)),
            tuning::entry_key(prefix, "gemm", tuning::dense_shape(2048, 4096, 8192)));
  // The family is part of the key: one file holds both GEMM ladders.
  EXPECT_NE(tuning::entry_key(prefix, "gemm", cube), tuning::entry_key(prefix, "gemm_bf16", cube));
  const std::string base = tuning::entry_key(prefix, "gemm", cube);
  EXPECT_EQ(base, tuning::entry_key(prefix, "gemm", tuning::dense_shape(4096, 4096, 4096)));
  const std::vector<int tuning::ShapeKey::*> fields = {
      &tuning::ShapeKey::lda,     &tuning::ShapeKey::ldb,     &tuning::ShapeKey::ldc,
      &tuning::ShapeKey::align_a, &tuning::ShapeKey::align_b, &tuning::ShapeKey::align_c};
  for (auto field : fields) {
    tuning::ShapeKey s = cube;
    s.*field = cube.*field == 256 ? 16 : cube.*field + 64;
    EXPECT_NE(base, tuning::entry_key(prefix, "gemm", s)) << tuning::shape_text(s);
  }
  EXPECT_EQ(tuning::shape_text(tuning::dense_shape(5000, 3000, 4000)),
            "5000x3000x4000 ld 4000,3000,3000 a256,256,256");
  // An epilogue (bf16 C, bias) is its own entry; the plain fp32 store keeps the old text.
  tuning::ShapeKey with_epilogue = cube;
  with_epilogue.epilogue = "bf16+bias";
  EXPECT_NE(base, tuning::entry_key(prefix, "gemm", with_epilogue));
  EXPECT_EQ(tuning::shape_text(with_epilogue),
            "4096x4096x4096 ld 4096,4096,4096 a256,256,256 epi bf16+bias");
}

TEST(TuningCacheKey, AlignmentClassIsTheLargestPowerOfTwoUpTo256) {
  EXPECT_EQ(tuning::alignment_class(0), 256);
  EXPECT_EQ(tuning::alignment_class(0x7f0000001000u), 256);
  EXPECT_EQ(tuning::alignment_class(0x7f0000000080u), 128);
  EXPECT_EQ(tuning::alignment_class(48), 16);
  EXPECT_EQ(tuning::alignment_class(0x7f0000000002u), 2);
  EXPECT_EQ(tuning::alignment_class(0x7f0000000101u), 1);
  // A call's key: its extents, leading dimensions and each base's class.
  const auto at = [](std::uintptr_t a) { return reinterpret_cast<const void*>(a); };
  EXPECT_EQ(tuning::shape_text(tuning::call_shape(5, 6, 7, at(0x7f0000001000u), 8,
                                                  at(0x7f0000001002u), 9, at(0x7f0000001010u), 10)),
            "5x6x7 ld 8,9,10 a256,2,16");
}

namespace {

bool any_name(const std::string&) {
  return true;
}

/// A tuning that counts its calls and chooses `choice`.
std::function<json()> counting(int* calls, const std::string& choice) {
  return [calls, choice] {
    ++*calls;
    return entry(choice);
  };
}

}  // namespace

// A shape known to the process or to the file costs no tuning; a new shape tunes once, and
// a later process (a new memo) finds it on disk.
TEST_F(TuningCacheFile, ACachedShapeCostsNoTuning) {
  const std::string prefix = tuning::key_prefix(h100(), kCandidates);
  const std::string a =
      tuning::entry_key(prefix, "gemm_bf16", tuning::dense_shape(2048, 3072, 1536));
  const std::string b =
      tuning::entry_key(prefix, "gemm_bf16", tuning::dense_shape(4096, 4096, 4096));
  std::ostringstream warned;
  tuning::Warnings w(warned);
  ASSERT_TRUE(tuning::write_entry(path_, a, entry("ws_c1_s6_128x128"), w));

  tuning::Memo memo;
  int calls = 0;
  bool tuned = true;
  EXPECT_EQ(memo.choose(a, path_, false, any_name, counting(&calls, "x"), &tuned, w),
            "ws_c1_s6_128x128");
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(tuned);
  // Another shape of the same flops class is tuned for itself.
  EXPECT_EQ(memo.known(b, path_, any_name, w), "");
  EXPECT_EQ(memo.choose(b, path_, false, any_name, counting(&calls, "ws_c1_s4_128x256"), &tuned, w),
            "ws_c1_s4_128x256");
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(tuned);
  EXPECT_EQ(memo.choose(b, path_, false, any_name, counting(&calls, "x"), &tuned, w),
            "ws_c1_s4_128x256");
  EXPECT_EQ(calls, 1);
  // The next process: both from the file, no tuning.
  tuning::Memo later;
  EXPECT_EQ(later.choose(a, path_, false, any_name, counting(&calls, "x"), &tuned, w),
            "ws_c1_s6_128x128");
  EXPECT_EQ(later.choose(b, path_, false, any_name, counting(&calls, "x"), &tuned, w),
            "ws_c1_s4_128x256");
  EXPECT_EQ(calls, 1);
  // retune times again and replaces the entry; a rejected name counts as unknown.
  EXPECT_EQ(later.choose(b, path_, true, any_name, counting(&calls, "ws_c2_s6_128x128"), &tuned, w),
            "ws_c2_s6_128x128");
  EXPECT_EQ(calls, 2);
  const auto only_ws_c1 = [](const std::string& n) { return n.rfind("ws_c1", 0) == 0; };
  EXPECT_EQ(
      later.choose(b, path_, false, only_ws_c1, counting(&calls, "ws_c1_s8_128x64"), &tuned, w),
      "ws_c1_s8_128x64");
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(warned.str(), "");
}

// A tuning that found nothing (no scratch memory, stream capture) is not remembered.
TEST_F(TuningCacheFile, ANullTuningIsNotRemembered) {
  const std::string key = tuning::entry_key(tuning::key_prefix(h100(), kCandidates), "gemm",
                                            tuning::dense_shape(1024, 1024, 1024));
  std::ostringstream warned;
  tuning::Warnings w(warned);
  tuning::Memo memo;
  int calls = 0;
  const auto nothing = [&calls]() -> json {
    ++calls;
    return nullptr;
  };
  EXPECT_EQ(memo.choose(key, path_, false, any_name, nothing, nullptr, w), "");
  EXPECT_EQ(memo.choose(key, path_, false, any_name, nothing, nullptr, w), "");
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(fs::exists(path_));
  // Without a path (MEMHIER_NO_TUNE_CACHE=1) the memo still remembers for the process.
  EXPECT_EQ(memo.choose(key, "", false, any_name, counting(&calls, "cfg_64x64x16_4x4"), nullptr, w),
            "cfg_64x64x16_4x4");
  EXPECT_EQ(memo.known(key, "", any_name, w), "cfg_64x64x16_4x4");
  EXPECT_FALSE(fs::exists(path_));
}
