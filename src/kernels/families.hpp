// One function per ladder, declared from families.inc: <name>_family() in
// src/kernels/<name>/family.cu builds that ladder's table.
#pragma once

#include "memhier/registry/family.hpp"

namespace memhier::kernels {

#define MEMHIER_FAMILY(name) registry::Family name##_family();
#include "kernels/families.inc"
#undef MEMHIER_FAMILY

}  // namespace memhier::kernels
