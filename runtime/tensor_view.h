// relay::TensorView: a non-owning view of a dense, row-major tensor, the type through which an
// assembled model (relayc assemble's NAME.h) hands out its input and output buffers.
//
// Header-only C++17, no dependencies: model libraries expose it in their public headers.
#ifndef RULES_RELAY_RUNTIME_TENSOR_VIEW_H_
#define RULES_RELAY_RUNTIME_TENSOR_VIEW_H_

#include <cstddef>
#include <cstdint>

namespace relay {

// Element types of runtime tensors: the same set as the compiler's ir::DType. The numbers are
// part of the generated code's ABI (NAME.cc stores them), so never renumber: only append.
enum class ElemType : int32_t {
  kFloat32 = 0,
  kFloat16 = 1,  // IEEE binary16, stored as uint16_t
  kInt32 = 2,
  kInt64 = 3,
  kBool = 4,  // one byte, 0 or 1
};

// Bytes per element of `type` (0 for a value outside the enum).
constexpr int ElemTypeBytes(ElemType type) {
  switch (type) {
    case ElemType::kFloat32:
    case ElemType::kInt32:
      return 4;
    case ElemType::kFloat16:
      return 2;
    case ElemType::kInt64:
      return 8;
    case ElemType::kBool:
      return 1;
  }
  return 0;
}

// "float32", "float16", "int32", "int64", "bool" (the Relay spelling); "?" outside the enum.
constexpr const char* ElemTypeName(ElemType type) {
  switch (type) {
    case ElemType::kFloat32:
      return "float32";
    case ElemType::kFloat16:
      return "float16";
    case ElemType::kInt32:
      return "int32";
    case ElemType::kInt64:
      return "int64";
    case ElemType::kBool:
      return "bool";
  }
  return "?";
}

// A view of a tensor owned by someone else (for a model's inputs and outputs: the model object,
// valid until it is destroyed). `shape` points to `ndim` extents; it may be null when ndim is 0
// (a scalar, one element). A default-constructed view is empty: null data, ndim 0, and what
// models return for an index or name they do not have.
struct TensorView {
  void* data = nullptr;
  ElemType dtype = ElemType::kFloat32;
  int32_t ndim = 0;
  const int64_t* shape = nullptr;

  // Extent of dimension `i` (no bounds check, like shape[i]).
  int64_t dim(int i) const { return shape[i]; }

  // Product of the extents (1 for a scalar, 0 if any extent is 0).
  int64_t num_elements() const {
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; ++i) n *= shape[i];
    return n;
  }

  // num_elements() times the element size.
  int64_t num_bytes() const { return num_elements() * ElemTypeBytes(dtype); }

  // The data as T* (no type check: the caller matches T to dtype).
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }

  // False for an empty view (an unknown input or output).
  explicit operator bool() const { return data != nullptr; }
};

}  // namespace relay

#endif  // RULES_RELAY_RUNTIME_TENSOR_VIEW_H_
