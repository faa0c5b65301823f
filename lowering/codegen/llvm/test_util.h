// Helpers for code generation tests: compile a PrimFunc and load it into a JIT, and buffers
// with the alignment kernels require.
#ifndef RULES_RELAY_LOWERING_CODEGEN_LLVM_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_CODEGEN_LLVM_TEST_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/target/target.h"
#include "lowering/tir/stmt.h"

namespace relay::codegen::testing {

// A compiled kernel loaded into its own JIT.
struct LoadedKernel {
  std::unique_ptr<Jit> jit;
  KernelFunction fn = nullptr;
  int32_t Call(std::vector<void*> args) const { return fn(args.data()); }
};

// CompileToObject + Jit::AddObject + LookupKernel(func.name).
absl::StatusOr<LoadedKernel> CompileAndLoad(const tir::PrimFunc& func, const Target& target);

// Whether this machine can run code compiled for `target` (its CPU features).
bool HostSupports(const Target& target);

// `n` elements of T, 64-byte aligned (as the calling convention requires), zero-filled.
template <typename T>
class AlignedArray {
 public:
  explicit AlignedArray(int64_t n) : n_(n) {
    const size_t bytes = (static_cast<size_t>(n) * sizeof(T) + 63) / 64 * 64 + 64;
    data_ = static_cast<T*>(std::aligned_alloc(64, bytes));
    std::memset(static_cast<void*>(data_), 0, bytes);
  }
  AlignedArray(const std::vector<T>& values) : AlignedArray(static_cast<int64_t>(values.size())) {
    for (size_t i = 0; i < values.size(); ++i) data_[i] = values[i];
  }
  ~AlignedArray() { std::free(data_); }
  AlignedArray(const AlignedArray&) = delete;
  AlignedArray& operator=(const AlignedArray&) = delete;

  T* data() { return data_; }
  T& operator[](int64_t i) { return data_[i]; }
  int64_t size() const { return n_; }
  std::vector<T> ToVector() const { return std::vector<T>(data_, data_ + n_); }

 private:
  int64_t n_;
  T* data_;
};

}  // namespace relay::codegen::testing

#endif  // RULES_RELAY_LOWERING_CODEGEN_LLVM_TEST_UTIL_H_
