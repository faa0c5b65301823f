// Deterministic inputs and .npy output for programs that drive an assembled model: the
// benchmarks (bench/bench_main.cc) and relay_model_test's driver
// (rules/private/model_test_main.cc). Not part of what model libraries link; reading .npy files is
// lowering/io/npy.h's.
#ifndef RULES_RELAY_RUNTIME_MODEL_IO_H_
#define RULES_RELAY_RUNTIME_MODEL_IO_H_

#include <cstdint>
#include <string>

#include "runtime/tensor_view.h"

namespace relay {

// Fills `v` with values that depend only on `seed`, the same on every run and machine: floats in
// [-1, 1) from a fixed LCG, integers in [0, int_range), bools 0/1 (float16: +0.0).
void FillDeterministic(const TensorView& v, uint64_t seed, int64_t int_range);

// Writes `v` as a version 1.0 .npy file; false on an I/O error.
bool WriteNpy(const std::string& path, const TensorView& v);

}  // namespace relay

#endif  // RULES_RELAY_RUNTIME_MODEL_IO_H_
