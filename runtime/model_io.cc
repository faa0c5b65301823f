#include "runtime/model_io.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

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

bool ReadNpy(const std::string& path, NpyArray* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open";
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  const std::string bytes = s.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    *error = path + ": not a .npy file";
    return false;
  }
  const bool v1 = bytes[6] == 1;
  const size_t len_bytes = v1 ? 2 : 4;
  size_t header_len = 0;
  for (size_t k = 0; k < len_bytes; ++k) {
    header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  }
  const size_t begin = 8 + len_bytes;
  if (bytes.size() < begin + header_len) {
    *error = path + ": truncated header";
    return false;
  }
  const std::string header = bytes.substr(begin, header_len);
  auto field = [&](const std::string& key) -> std::string {
    const size_t at = header.find("'" + key + "':");
    if (at == std::string::npos) return "";
    size_t v = header.find_first_not_of(' ', at + key.size() + 3);
    if (v == std::string::npos) return "";
    if (header[v] == '\'') return header.substr(v + 1, header.find('\'', v + 1) - v - 1);
    if (header[v] == '(') return header.substr(v + 1, header.find(')', v) - v - 1);
    return header.substr(v, header.find_first_of(",}", v) - v);
  };
  out->descr = field("descr");
  if (field("fortran_order") != "False") {
    *error = path + ": Fortran order is not supported";
    return false;
  }
  out->shape.clear();
  std::istringstream dims(field("shape"));
  std::string d;
  while (std::getline(dims, d, ',')) {
    if (d.find_first_not_of(' ') != std::string::npos) out->shape.push_back(std::atoll(d.c_str()));
  }
  out->data = bytes.substr(begin + header_len);
  return true;
}

}  // namespace relay
