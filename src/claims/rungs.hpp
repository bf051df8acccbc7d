// A rung's name as its bench records carry it, generated from the family's own table: the
// ladder claims name rungs by the family's Variant enum, so renaming a rung fails to compile.
// Included by the claims' sources (ladders.cpp, profile_claims.cpp) only.
#pragma once

#include "memhier/kernels/attention.hpp"
#include "memhier/kernels/elementwise.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/reduction.hpp"
#include "memhier/kernels/softmax.hpp"
#include "memhier/kernels/transpose.hpp"

namespace memhier::claims {

// One case per rung of the table the includer expands.
#define MEMHIER_RUNG_NAME(family, name) \
  case family::Variant::name:           \
    return #name;

inline const char* rung(gemm::Variant v) {
  switch (v) {
#define MEMHIER_RUNG(name, ...) MEMHIER_RUNG_NAME(gemm, name)
#define MEMHIER_BEST(name, ...) MEMHIER_RUNG_NAME(gemm, name)
#include "memhier/kernels/gemm_rungs.inc"
  }
  return "";
}

inline const char* rung(transpose::Variant v) {
  switch (v) {
#define MEMHIER_RUNG(name, ...) MEMHIER_RUNG_NAME(transpose, name)
#define MEMHIER_BEST(name, ...) MEMHIER_RUNG_NAME(transpose, name)
#include "memhier/kernels/transpose_rungs.inc"
  }
  return "";
}

inline const char* rung(softmax::Variant v) {
  switch (v) {
#define MEMHIER_RUNG(name, ...) MEMHIER_RUNG_NAME(softmax, name)
#define MEMHIER_BEST(name, ...) MEMHIER_RUNG_NAME(softmax, name)
#include "memhier/kernels/softmax_rungs.inc"
  }
  return "";
}

inline const char* rung(elementwise::Variant v) {
  switch (v) {
#define MEMHIER_RUNG(name, ...) MEMHIER_RUNG_NAME(elementwise, name)
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(name, ...) MEMHIER_RUNG_NAME(elementwise, name)
#include "memhier/kernels/elementwise_rungs.inc"
  }
  return "";
}

inline const char* rung(reduction::Variant v) {
  switch (v) {
#define MEMHIER_CLASSIC_RUNG(name, ...) MEMHIER_RUNG_NAME(reduction, name)
#define MEMHIER_GRID_RUNG(name, ...) MEMHIER_RUNG_NAME(reduction, name)
#define MEMHIER_BEST(name, ...) MEMHIER_RUNG_NAME(reduction, name)
#include "memhier/kernels/reduction_rungs.inc"
  }
  return "";
}

inline const char* rung(attention::Variant v) {
  switch (v) {
#define MEMHIER_RUNG(name, ...) MEMHIER_RUNG_NAME(attention, name)
#define MEMHIER_BEST(name, ...) MEMHIER_RUNG_NAME(attention, name)
#include "memhier/kernels/attention_rungs.inc"
  }
  return "";
}

#undef MEMHIER_RUNG_NAME

}  // namespace memhier::claims
