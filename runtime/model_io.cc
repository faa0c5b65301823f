#include "runtime/model_io.h"

#include <cstdio>

namespace relay {
namespace {

// numpy's dtype descriptor for an element type (little-endian).
const char* NpyDescr(ElemType t) {
  switch (t) {
    case ElemType::kFloat32:
      return "<f4";
    case ElemType::kFloat16:
      return "<f2";
    case ElemType::kInt32:
      return "<i4";
    case ElemType::kInt64:
      return "<i8";
    case ElemType::kBool:
      return "|b1";
  }
  return "?";
}

}  // namespace

bool WriteNpy(const std::string& path, const TensorView& v) {
  std::string shape = "(";
  for (int i = 0; i < v.ndim; ++i) {
    shape += std::to_string(v.dim(i));
    shape += (v.ndim == 1 || i + 1 < v.ndim) ? "," : "";
    if (i + 1 < v.ndim) shape += " ";
  }
  shape += ")";
  std::string header = std::string("{'descr': '") + NpyDescr(v.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const unsigned char prefix[10] = {0x93,
                                    'N',
                                    'U',
                                    'M',
                                    'P',
                                    'Y',
                                    1,
                                    0,
                                    static_cast<unsigned char>(header.size() & 0xff),
                                    static_cast<unsigned char>(header.size() >> 8)};
  bool ok = std::fwrite(prefix, 1, 10, f) == 10 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(v.data, 1, static_cast<size_t>(v.num_bytes()), f) ==
                static_cast<size_t>(v.num_bytes());
  return std::fclose(f) == 0 && ok;
}

void FillDeterministic(const TensorView& v, uint64_t seed, int64_t int_range) {
  uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;  // 31 random bits
  };
  const int64_t n = v.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = next();
    switch (v.dtype) {
      case ElemType::kFloat32:
        v.data_as<float>()[i] = static_cast<float>(static_cast<double>(r) / 1073741824.0 - 1.0);
        break;
      case ElemType::kInt32:
        v.data_as<int32_t>()[i] = static_cast<int32_t>(r % static_cast<uint64_t>(int_range));
        break;
      case ElemType::kInt64:
        v.data_as<int64_t>()[i] = static_cast<int64_t>(r % static_cast<uint64_t>(int_range));
        break;
      case ElemType::kBool:
        v.data_as<uint8_t>()[i] = static_cast<uint8_t>(r & 1);
        break;
      case ElemType::kFloat16:
        v.data_as<uint16_t>()[i] = 0;  // +0.0: no float16 model in the zoo
        break;
    }
  }
}

}  // namespace relay
