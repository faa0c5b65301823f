// How the CUDA code generator spells loop-IR values in CUDA C: types, literals, names, the device
// helpers every kernel may call, and whether a launch's index arithmetic fits in 32 bits.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_C_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_C_H_

#include <cstdint>
#include <string>

#include "lowering/ir/dtype.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen {

// The device helpers every kernel may use: division that never traps, floor division,
// NaN-propagating float min/max. Overloaded for int and long long; nvcc inlines and folds them.
extern const char kCudaPrelude[];

// The C type of a value in registers ("float", "__half", "int", "long long", "bool").
std::string CudaValueType(ir::DType t);
// The element type in memory: bool is one byte ("unsigned char").
std::string CudaMemoryType(ir::DType t);
// A C identifier for a loop-IR name: characters outside [A-Za-z0-9] become '_', a leading digit
// gets a 'v'.
std::string CudaIdentifier(const std::string& name);
// An integer constant of `t`, parenthesized when negative ("(-3LL)"); INT_MIN spelled so that
// it parses.
std::string CudaIntLiteral(int64_t v, ir::DType t);
// A float32 constant, exactly: %.9g round-trips every float; infinities and NaN by their bits.
std::string CudaFloatLiteral(float f);

// Note on 32-bit index arithmetic. The loop IR's index arithmetic is int64, which a GPU emulates
// with several 32-bit instructions. A launch whose every int64 value provably fits in int32
// (loop variables over bounded ranges, constants, and arithmetic on them: no int64 loads, no
// casts from floats) is emitted with `int` instead. Whether `s` is such a launch, by
// tir::BoundOf over the ranges of its loop and let variables.
bool FitsInt32(const tir::Stmt& s);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_CUDA_C_H_
