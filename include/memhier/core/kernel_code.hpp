// The size of a kernel's machine code as the card that runs it would load it, read with no GPU
// from the file the kernel was loaded from (the program, or a shared object such as the Python
// extension): the host stub's name from the ELF symbol table, then that name's .text section
// in the device ELF images nvcc embeds in .nv_fatbin, one image per architecture. The
// memory-system model charges it as instruction fetch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memhier::core {

/// Bytes of device code a card of compute capability cc_major.cc_minor loads for the
/// __global__ whose host-side symbol is `kernel` (the pointer a launch takes): the image of
/// the highest architecture of the card's major not above its minor, the driver's rule for
/// machine code. Nothing when the kernel's file cannot be read, has no symbol table or
/// fatbin, names no such kernel, or holds no image that card runs (it would compile the PTX).
std::optional<std::int64_t> kernel_code_bytes(const void* kernel, int cc_major, int cc_minor);

/// The same from a mangled name and an ELF file's bytes (what kernel_code_bytes reads from
/// the kernel's file); nothing when the file holds no such kernel for that card.
std::optional<std::int64_t> code_bytes_in_file(const std::string& elf_bytes,
                                               const std::string& mangled_name, int cc_major,
                                               int cc_minor);

}  // namespace memhier::core
