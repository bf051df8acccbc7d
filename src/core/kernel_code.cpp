// Kernel code sizes from the ELF file each kernel was loaded from (see kernel_code.hpp).
#include "memhier/core/kernel_code.hpp"

#include <link.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

namespace memhier::core {

namespace {

// Little-endian ELF64 fields read with bounds checks (a truncated or foreign file reads as 0).
template <typename T>
T field(const std::string& b, std::uint64_t at) {
  T v{};
  if (at + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

struct Section {
  std::string name;
  std::uint32_t name_at = 0, type = 0, link = 0;
  std::uint64_t offset = 0, size = 0;
};

// The sections of the ELF64 image at b[base, base + size); empty when it is none.
std::vector<Section> sections(const std::string& b, std::uint64_t base = 0) {
  std::vector<Section> out;
  if (b.compare(base, 4, "\x7f" "ELF") != 0 || field<std::uint8_t>(b, base + 4) != 2) return out;
  const auto shoff = field<std::uint64_t>(b, base + 0x28);
  const auto entsize = field<std::uint16_t>(b, base + 0x3a);
  const auto count = field<std::uint16_t>(b, base + 0x3c);
  const auto strndx = field<std::uint16_t>(b, base + 0x3e);
  if (entsize < 64 || strndx >= count) return out;
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::uint64_t h = base + shoff + std::uint64_t{i} * entsize;
    Section s;
    s.type = field<std::uint32_t>(b, h + 4);
    s.offset = field<std::uint64_t>(b, h + 0x18);
    s.size = field<std::uint64_t>(b, h + 0x20);
    s.link = field<std::uint32_t>(b, h + 0x28);
    s.name_at = field<std::uint32_t>(b, h);
    out.push_back(s);
  }
  const std::uint64_t names = base + out[strndx].offset;  // the section-name string table
  for (Section& s : out) {
    const std::uint64_t at = names + s.name_at;
    s.name = at < b.size() ? std::string(b.c_str() + at) : std::string();
  }
  return out;
}

// One kernel's machine code in one architecture's image.
struct MachineCode {
  int sm = 0;              // major * 10 + minor (sm_90a: 90)
  std::int64_t bytes = 0;  // its .text
};

// Every kernel of the images: mangled name -> its machine code per image.
using Kernels = std::map<std::string, std::vector<MachineCode>>;

// One device image (architecture `sm`): each ".text.NAME"'s size.
void add_image(const std::string& b, std::uint64_t base, int sm, Kernels& out) {
  for (const Section& s : sections(b, base))
    if (s.name.rfind(".text.", 0) == 0)
      out[s.name.substr(6)].push_back({sm, static_cast<std::int64_t>(s.size)});
}

// Every kernel of the device images in the file's .nv_fatbin, per architecture.
Kernels device_code(const std::string& b) {
  Kernels code;
  for (const Section& fat : sections(b)) {
    if (fat.name != ".nv_fatbin") continue;
    constexpr std::uint32_t kFatMagic = 0xBA55ED50u;
    const std::uint64_t end = std::min<std::uint64_t>(fat.offset + fat.size, b.size());
    for (std::uint64_t p = fat.offset; p + 16 <= end;) {
      if (field<std::uint32_t>(b, p) != kFatMagic) {  // containers are 8-byte aligned
        p += 8;
        continue;
      }
      const std::uint64_t first = p + field<std::uint16_t>(b, p + 6);
      const std::uint64_t last = std::min(end, first + field<std::uint64_t>(b, p + 8));
      for (std::uint64_t e = first; e + 32 <= last;) {  // entries: kind 2 holds an ELF image
        const auto kind = field<std::uint16_t>(b, e);
        const auto header = field<std::uint32_t>(b, e + 4);
        const auto payload = field<std::uint64_t>(b, e + 8);
        const auto sm = static_cast<int>(field<std::uint32_t>(b, e + 28));  // 90 for sm_90(a)
        if (header == 0) break;
        if (kind == 2) add_image(b, e + header, sm, code);
        e += header + payload;
      }
      p = std::max(last, p + 8);
    }
  }
  return code;
}

// Of one kernel's images, the one a card of cc major.minor loads: the highest architecture of
// its major not above its minor (the largest code where two images share one).
std::optional<std::int64_t> for_card(const std::vector<MachineCode>& images, int major,
                                     int minor) {
  std::optional<MachineCode> best;
  for (const MachineCode& m : images) {
    if (m.sm / 10 != major || m.sm % 10 > minor) continue;
    if (!best || m.sm > best->sm || (m.sm == best->sm && m.bytes > best->bytes)) best = m;
  }
  if (!best) return std::nullopt;
  return best->bytes;
}

// The function symbols of the host image: address (as linked) -> names.
std::multimap<std::uint64_t, std::string> host_functions(const std::string& b) {
  std::multimap<std::uint64_t, std::string> fns;
  const std::vector<Section> secs = sections(b);
  for (const Section& s : secs) {
    if (s.type != 2 || s.link >= secs.size()) continue;  // SHT_SYMTAB
    const Section& str = secs[s.link];
    for (std::uint64_t at = s.offset; at + 24 <= s.offset + s.size; at += 24) {
      if ((field<std::uint8_t>(b, at + 4) & 0xf) != 2) continue;  // STT_FUNC
      const std::uint64_t name = str.offset + field<std::uint32_t>(b, at);
      if (name < b.size()) fns.emplace(field<std::uint64_t>(b, at + 8), b.c_str() + name);
    }
  }
  return fns;
}

struct Image {
  std::multimap<std::uint64_t, std::string> functions;
  Kernels code;
};

// The loaded file that holds `address` (the program, or a shared object such as the Python
// extension) and its load bias: symbol values are addresses as linked, before the bias.
struct Holder {
  std::uintptr_t address = 0;
  std::string file;
  std::uint64_t bias = 0;
  bool found = false;
};

int find_holder(dl_phdr_info* info, std::size_t, void* data) {
  Holder& h = *static_cast<Holder*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type != PT_LOAD || h.address < start || h.address >= start + ph.p_memsz) continue;
    // The program itself has no name here.
    h.file = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
    h.bias = info->dlpi_addr;
    h.found = true;
    return 1;
  }
  return 0;
}

// Each file read once, when a kernel in it is first asked about.
const Image& image_of(const std::string& file) {
  static std::map<std::string, Image> images;
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [it, added] = images.try_emplace(file);
  if (added) {
    std::ifstream in(file, std::ios::binary);
    const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    it->second.functions = host_functions(b);
    it->second.code = device_code(b);
  }
  return it->second;
}

}  // namespace

std::optional<std::int64_t> code_bytes_in_file(const std::string& elf_bytes,
                                               const std::string& mangled_name, int cc_major,
                                               int cc_minor) {
  const Kernels code = device_code(elf_bytes);
  const auto it = code.find(mangled_name);
  if (it == code.end()) return std::nullopt;
  return for_card(it->second, cc_major, cc_minor);
}

std::optional<std::int64_t> kernel_code_bytes(const void* kernel, int cc_major, int cc_minor) {
  Holder holder;
  holder.address = reinterpret_cast<std::uintptr_t>(kernel);
  if (!kernel || dl_iterate_phdr(find_holder, &holder) == 0 || !holder.found) return std::nullopt;
  const Image& image = image_of(holder.file);
  const std::uint64_t linked = holder.address - holder.bias;
  const auto [first, last] = image.functions.equal_range(linked);
  for (auto f = first; f != last; ++f) {
    if (const auto c = image.code.find(f->second); c != image.code.end())
      return for_card(c->second, cc_major, cc_minor);
    // A static kernel's host name marks internal linkage ("detailL22double_buffered..."),
    // its device name does not; an L before a digit is only that mark in a mangled name.
    std::string device;
    for (std::size_t i = 0; i < f->second.size(); ++i)
      if (!(f->second[i] == 'L' && i + 1 < f->second.size() && f->second[i + 1] >= '0' &&
            f->second[i + 1] <= '9'))
        device += f->second[i];
    if (const auto c = image.code.find(device); c != image.code.end())
      return for_card(c->second, cc_major, cc_minor);
  }
  return std::nullopt;
}

}  // namespace memhier::core
