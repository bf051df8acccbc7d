// The size of a kernel's machine code, read with no GPU from the file the kernel was loaded
// from (the program, or a shared object such as the Python extension): the host stub's name from
// the ELF symbol table, that name's .text section in the device ELF images nvcc embeds in
// .nv_fatbin. The memory-system model charges it as instruction fetch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memhier::core {

/// Bytes of device code of the __global__ whose host-side symbol is `kernel` (the pointer a
/// launch takes); the largest over the embedded images. Nothing when the kernel's file
/// cannot be read, has no symbol table or fatbin, or names no such kernel.
std::optional<std::int64_t> kernel_code_bytes(const void* kernel);

/// The same from a mangled name and an ELF file's bytes (what kernel_code_bytes reads from
/// the kernel's file); nothing when the file holds no such .text section.
std::optional<std::int64_t> code_bytes_in_file(const std::string& elf_bytes,
                                               const std::string& mangled_name);

}  // namespace memhier::core
