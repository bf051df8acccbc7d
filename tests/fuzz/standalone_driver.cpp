// A main() for the fuzz target where libFuzzer is not available (GCC builds): runs the
// built-in seeds, then deterministic random mutations of them, within a time bound.
//   memhier_fuzz_expr_standalone [runs=200000] [seconds=20] [file ...]
// Files given after the two numbers are run first (to replay a crash).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// Set by the sanitizer runtime when it is linked in; absent (null) otherwise.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

const std::string* g_current = nullptr;  // the input being run, for crash reports

void print_current() {
  if (g_current == nullptr) return;
  std::fprintf(stderr, "\nfuzz_expr_standalone: crashing input (%zu bytes, C-escaped):\n\"",
               g_current->size());
  for (const char ch : *g_current) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '\n')
      std::fputs("\\n", stderr);
    else if (ch == '"' || ch == '\\')
      std::fprintf(stderr, "\\%c", ch);
    else if (u >= 0x20 && u < 0x7f)
      std::fputc(ch, stderr);
    else
      std::fprintf(stderr, "\\x%02x\"\"", u);
  }
  std::fputs("\"\n", stderr);
}

void run_one(const std::string& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  g_current = nullptr;
}

/// splitmix64: tiny, and the same sequence on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

const std::vector<std::string>& seeds() {
  static const std::vector<std::string> s = {
      "float tile[32][33]\ntile[lane][k]\n\x04\x05",
      "float tile[32][32]\ntile[k][lane + 1]\n\x07",
      "struct {float x, y, z;} p[32]\np[lane].y\n",
      "struct P { float f; int c; } q[64]\nq[lane * 2 % 64].c\n",
      "struct {double d; float f;} a[16]\na[lane / 2]\n",
      "struct {char c; int i;} a[8]\na[lane & 7].i\n",
      "extern __shared__ float smem[];\n(lane * 33 + k) ^ (lane >> 2)\n\x01\x02\x03",
      "double2 v[]\nv[(tx + ty * 32) << 1]\n",
      "float3 pts[128][4]\npts[warp * 32 + lane][lane % 4]\n",
      "double4 big[64]\nbig[63 - lane]\n",
      "char4 c[1024]\n-lane % 3 + ~0 & 7 | 0x10\n",
      "unsigned long long h[4][8][16]\nh[lane / 8][lane % 8][(k << 1) - 1]\n\x03\x09",
      "int a[32][33]\na[lane][(lane + k) % 33]\n\x00\x00",
      "half hs[2048]\nlane * 64 / (k - 1)\n\x05\x01",
      "float tile[32][33]\ntile[lane+][0]\n",
      "flaot tile[32]\ntile[0]\n",
      "float tile[32][]\ntile[1 << 64][0]\n",
      "short2 s[0x100]\ns[threadIdx.x + threadIdx.y * 16]\n",
      "tile[(((lane)))][-(-(k))]",
      "lane << 63 >> 63",
  };
  return s;
}

// Tokens a parser cares about; inserting them reaches deeper than random bytes do.
const std::vector<std::string>& tokens() {
  static const std::vector<std::string> t = [] {
    // clang-format off
    std::vector<std::string> v = {
        "[", "]", "(", ")", "{", "}", ";", ",", ".", "+", "-", "*", "/", "%", "&", "|", "^",
        "~", "<<", ">>", "[]", "0", "1", "7", "32", "33", "0x", "0xffffffffffffffff",
        "9223372036854775807", "9223372036854775808", "lane", "tx", "ty", "tz", "warp", "k",
        "threadIdx.x", "struct", "struct {", "float", "float3", "double4", "char4", "unsigned",
        "long", "int", "x", "y", "z", "tile", "p", " ", "\t", "\xff", "__shared__", "extern",
        "const", "\n"};
    // clang-format on
    v.emplace_back(1, '\0');  // a NUL byte: a string literal would end before it
    return v;
  }();
  return t;
}

std::string mutate(const std::string& base, const std::vector<std::string>& pool, Rng& rng) {
  std::string s = base;
  const std::size_t edits = 1 + rng.below(4);
  for (std::size_t e = 0; e < edits; ++e) {
    const std::size_t at = rng.below(s.size() + 1);
    switch (rng.below(9)) {
      case 0:  // flip one bit
        if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
        break;
      case 1:  // replace a byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.next() & 0xff);
        break;
      case 2:  // insert a token
      case 3: {
        const std::string& t = tokens()[rng.below(tokens().size())];
        s.insert(at, t);
        break;
      }
      case 4:  // insert a number, sometimes a huge one
        s.insert(at, std::to_string(rng.below(2) ? rng.below(100) : rng.next()));
        break;
      case 5:  // erase a range
        if (!s.empty()) s.erase(at, 1 + rng.below(8));
        break;
      case 6:  // truncate
        s.resize(rng.below(s.size() + 1));
        break;
      case 7: {  // splice with another input
        const std::string& other = pool[rng.below(pool.size())];
        s = s.substr(0, at) + other.substr(rng.below(other.size() + 1));
        break;
      }
      default: {  // repeat a token: deep nesting, long chains, the length limit
        const std::string& t = tokens()[rng.below(tokens().size())];
        const std::size_t n = rng.below(4) == 0 ? 300 + rng.below(4000) : 1 + rng.below(300);
        std::string rep;
        for (std::size_t i = 0; i < n; ++i) rep += t;
        s.insert(at, rep);
        break;
      }
    }
  }
  if (s.size() > 12000) s.resize(12000);  // past the 4096 limit, not without bound
  return s;
}

bool read_file(const char* path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(print_current);
  std::set_terminate([] {
    print_current();
    std::abort();
  });
  const long long runs = argc > 1 ? std::atoll(argv[1]) : 200000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 20.0;
  for (int i = 3; i < argc; ++i) {
    std::string input;
    if (!read_file(argv[i], &input)) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 2;
    }
    run_one(input);
  }

  std::vector<std::string> pool = seeds();
  for (const std::string& s : pool) run_one(s);

  const auto start = std::chrono::steady_clock::now();
  Rng rng(0x6d656d68696572ull);  // "memhier": a fixed seed, so a failure reproduces
  long long done = 0;
  for (; done < runs; ++done) {
    if ((done & 255) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds)
      break;
    std::string input = mutate(pool[rng.below(pool.size())], pool, rng);
    run_one(input);
    // Keep some mutants as bases: without coverage feedback this still walks away from
    // the seeds. Bounded, so memory stays flat.
    if (rng.below(16) == 0) {
      if (pool.size() < 4096)
        pool.push_back(std::move(input));
      else
        pool[seeds().size() + rng.below(pool.size() - seeds().size())] = std::move(input);
    }
  }
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz_expr_standalone: %zu seeds, %lld mutations in %.1f s, no crash\n",
              seeds().size(), done, took);
  return 0;
}
