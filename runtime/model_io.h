// Deterministic inputs and .npy files for programs that drive an assembled model: the benchmarks
// (bench/bench_main.cc) and relay_model_test's driver (rules/private/model_test_main.cc). Not
// part of what model libraries link.
#ifndef RULES_RELAY_RUNTIME_MODEL_IO_H_
#define RULES_RELAY_RUNTIME_MODEL_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/tensor_view.h"

namespace relay {

// Fills `v` with values that depend only on `seed`, the same on every run and machine: floats in
// [-1, 1) from a fixed LCG, integers in [0, int_range), bools 0/1 (float16: +0.0).
void FillDeterministic(const TensorView& v, uint64_t seed, int64_t int_range);

// Writes `v` as a version 1.0 .npy file; false on an I/O error.
bool WriteNpy(const std::string& path, const TensorView& v);

// A .npy file read back: its dtype descriptor ("<f4"), shape and raw little-endian data.
struct NpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::string data;
};

// Reads a version 1.x .npy file in C order; false (with `*error` set) when it cannot.
bool ReadNpy(const std::string& path, NpyArray* out, std::string* error);

}  // namespace relay

#endif  // RULES_RELAY_RUNTIME_MODEL_IO_H_
