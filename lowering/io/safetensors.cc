#include "lowering/io/safetensors.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/io/file.h"
#include "lowering/support/status_macros.h"
#include "nlohmann/json.hpp"

namespace relay::io {
namespace {

using ir::DType;
using Json = nlohmann::json;

// The reference implementation refuses headers above 100 MB; so do we, before allocating.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr char kMetadataKey[] = "__metadata__";

const char* SafetensorsDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "F32";
    case DType::kFloat16:
      return "F16";
    case DType::kInt32:
      return "I32";
    case DType::kInt64:
      return "I64";
    case DType::kBool:
      return "BOOL";
  }
  return "?";
}

// Every dtype name the format defines, so an unsupported one is told apart from garbage.
bool IsKnownSafetensorsDType(const std::string& name) {
  static const char* const kAll[] = {"BOOL",    "U8",   "I8",      "I16",     "U16",
                                     "F16",     "BF16", "I32",     "U32",     "F32",
                                     "F64",     "I64",  "U64",     "F8_E5M2", "F8_E4M3FN",
                                     "F8_E4M3", "F4",   "F6_E2M3", "F6_E3M2", "E8M0"};
  for (const char* known : kAll) {
    if (name == known) return true;
  }
  return false;
}

std::optional<DType> ParseSafetensorsDType(const std::string& name) {
  if (name == "F32") return DType::kFloat32;
  if (name == "F16") return DType::kFloat16;
  if (name == "I32") return DType::kInt32;
  if (name == "I64") return DType::kInt64;
  if (name == "BOOL") return DType::kBool;
  return std::nullopt;
}

// JSON strings must be UTF-8; nlohmann would otherwise fail while dumping.
bool IsValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (int k = 1; k <= extra; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong encodings, surrogates and values past U+10FFFF are not UTF-8.
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

// Counts the elements of `shape` in `*count`; false on overflow past `limit`.
bool CheckedNumElements(const std::vector<uint64_t>& shape, uint64_t limit, uint64_t* count) {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d != 0 && n > limit / d) {
      // Still overflow unless a later dimension is 0, which makes the tensor empty.
      bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
      if (!has_zero) return false;
      *count = 0;
      return true;
    }
    n *= d;
  }
  *count = n;
  return true;
}

}  // namespace

absl::StatusOr<std::string> SerializeSafetensors(const std::map<std::string, ir::Tensor>& tensors) {
  Json header = Json::object();
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty()) return absl::InvalidArgumentError("safetensors: a tensor has an empty name");
    if (name == kMetadataKey) {
      return absl::InvalidArgumentError(
          absl::StrCat("safetensors: tensor name \"", kMetadataKey, "\" is reserved"));
    }
    if (!IsValidUtf8(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("safetensors: tensor name \"", name, "\" is not valid UTF-8"));
    }
    const uint64_t size = static_cast<uint64_t>(tensor.NumBytes());
    Json entry = Json::object();
    entry["dtype"] = SafetensorsDType(tensor.dtype());
    Json shape = Json::array();
    for (int64_t d : tensor.shape()) shape.push_back(static_cast<uint64_t>(d));
    entry["shape"] = shape;
    entry["data_offsets"] = Json::array({offset, offset + size});
    header[name] = entry;
    offset += size;
  }
  std::string header_text = header.dump();
  // Pad so the data section starts 8-byte aligned (8 bytes of length + header).
  while (header_text.size() % 8 != 0) header_text.push_back(' ');

  std::string out;
  out.reserve(8 + header_text.size() + offset);
  const uint64_t n = header_text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  out += header_text;
  for (const auto& [name, tensor] : tensors) {
    out.append(reinterpret_cast<const char*>(tensor.raw()), static_cast<size_t>(tensor.NumBytes()));
  }
  return out;
}

absl::StatusOr<std::map<std::string, ir::Tensor>> ParseSafetensors(const std::string& bytes,
                                                                   const std::string& source_name) {
  auto error = [&](const std::string& message) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": safetensors: ", message));
  };
  if (bytes.size() < 8) {
    return error(absl::StrCat("file is ", bytes.size(),
                              " bytes, shorter than the 8-byte header "
                              "length"));
  }
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) {
    header_size |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  if (header_size > kMaxHeaderBytes) {
    return error(absl::StrCat("header length ", header_size, " exceeds the limit of ",
                              kMaxHeaderBytes, " bytes"));
  }
  if (header_size > bytes.size() - 8) {
    return error(absl::StrCat("header length ", header_size, " runs past the end of the file (",
                              bytes.size() - 8, " bytes after the length)"));
  }
  const std::string header_text = bytes.substr(8, header_size);
  if (header_text.empty() || header_text[0] != '{') {
    return error("header is not a JSON object (it must start with '{')");
  }

  // nlohmann keeps the last of duplicate keys silently; a strict reader refuses them.
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate_key;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        open_objects.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open_objects.empty() && parsed.is_string() &&
            !open_objects.back().insert(parsed.get<std::string>()).second &&
            duplicate_key.empty()) {
          duplicate_key = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return true;
  };
  const Json header = Json::parse(header_text, callback, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    return error("header is not valid JSON");
  }
  if (!duplicate_key.empty()) {
    return error(absl::StrCat("header has the key \"", duplicate_key, "\" twice"));
  }

  const uint64_t data_size = bytes.size() - 8 - header_size;
  const char* data = bytes.data() + 8 + header_size;

  struct Range {
    uint64_t begin;
    uint64_t end;
    std::string name;
  };
  std::vector<Range> ranges;
  std::map<std::string, ir::Tensor> tensors;
  for (const auto& [name, entry] : header.items()) {
    if (name == kMetadataKey) {
      if (!entry.is_object()) return error("\"__metadata__\" is not an object");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) {
          return error(absl::StrCat("\"__metadata__\" entry \"", key, "\" is not a string"));
        }
      }
      continue;
    }
    // The writer refuses an empty name (a weight must be a named parameter): so does the reader,
    // or a file it accepts could not be written back (found by fuzz/safetensors_fuzzer).
    if (name.empty()) return error("a tensor has an empty name");
    const std::string where = absl::StrCat("tensor \"", name, "\"");
    if (!entry.is_object()) return error(absl::StrCat(where, " is not an object"));
    for (const auto& [key, value] : entry.items()) {
      if (key != "dtype" && key != "shape" && key != "data_offsets") {
        return error(absl::StrCat(where, " has an unknown field \"", key, "\""));
      }
    }
    if (!entry.contains("dtype") || !entry["dtype"].is_string()) {
      return error(absl::StrCat(where, " has no string \"dtype\""));
    }
    const std::string dtype_name = entry["dtype"].get<std::string>();
    std::optional<DType> dtype = ParseSafetensorsDType(dtype_name);
    if (!dtype.has_value()) {
      if (IsKnownSafetensorsDType(dtype_name)) {
        return absl::UnimplementedError(
            absl::StrCat(source_name, ": safetensors: ", where, " has dtype ", dtype_name,
                         ", which is not supported (F32, F16, I32, I64, BOOL are)"));
      }
      return error(absl::StrCat(where, " has an unknown dtype \"", dtype_name, "\""));
    }
    if (!entry.contains("shape") || !entry["shape"].is_array()) {
      return error(absl::StrCat(where, " has no \"shape\" array"));
    }
    std::vector<uint64_t> shape;
    for (const Json& d : entry["shape"]) {
      if (!d.is_number_unsigned()) {
        return error(absl::StrCat(where, " has a shape entry that is not a non-negative integer"));
      }
      shape.push_back(d.get<uint64_t>());
    }
    if (!entry.contains("data_offsets") || !entry["data_offsets"].is_array() ||
        entry["data_offsets"].size() != 2 || !entry["data_offsets"][0].is_number_unsigned() ||
        !entry["data_offsets"][1].is_number_unsigned()) {
      return error(absl::StrCat(where,
                                " needs \"data_offsets\": [begin, end] (two non-negative "
                                "integers)"));
    }
    const uint64_t begin = entry["data_offsets"][0].get<uint64_t>();
    const uint64_t end = entry["data_offsets"][1].get<uint64_t>();
    if (begin > end || end > data_size) {
      return error(absl::StrCat(where, " has data_offsets [", begin, ", ", end,
                                "] outside the data section of ", data_size, " bytes"));
    }
    const uint64_t elem_bytes = static_cast<uint64_t>(ir::DTypeBytes(*dtype));
    uint64_t count = 0;
    if (!CheckedNumElements(shape, data_size / elem_bytes + 1, &count) ||
        count * elem_bytes != end - begin) {
      return error(absl::StrCat(where, " spans ", end - begin, " bytes, which does not match its ",
                                dtype_name, " shape [", absl::StrJoin(shape, ", "), "]"));
    }
    ir::Shape ir_shape(shape.begin(), shape.end());
    ir::Tensor tensor(ir_shape, *dtype);
    if (end > begin) std::memcpy(tensor.raw(), data + begin, end - begin);
    if (*dtype == DType::kBool) {
      for (int64_t i = 0; i < tensor.NumBytes(); ++i) {
        if (tensor.raw()[i] > 1) {
          return error(
              absl::StrCat(where, " has a bool byte that is neither 0 nor 1 at element ", i));
        }
      }
    }
    ranges.push_back({begin, end, name});
    tensors.emplace(name, std::move(tensor));
  }

  // Byte ranges, in order, must tile the data section exactly. Empty tensors occupy no bytes
  // and may share an offset with anything.
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Range* previous = nullptr;
  for (const Range& r : ranges) {
    if (r.begin == r.end) continue;
    if (r.begin < covered) {
      return error(absl::StrCat("tensors \"", previous->name, "\" and \"", r.name,
                                "\" overlap in the data section"));
    }
    if (r.begin > covered) {
      return error(absl::StrCat("bytes [", covered, ", ", r.begin,
                                ") of the data section belong to no tensor"));
    }
    covered = r.end;
    previous = &r;
  }
  if (covered != data_size) {
    return error(absl::StrCat("bytes [", covered, ", ", data_size,
                              ") of the data section belong to no tensor"));
  }
  return tensors;
}

absl::Status WriteSafetensors(const std::string& path,
                              const std::map<std::string, ir::Tensor>& tensors) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeSafetensors(tensors));
  return WriteFileAtomically(path, bytes);
}

absl::StatusOr<std::map<std::string, ir::Tensor>> ReadSafetensors(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  return ParseSafetensors(bytes, path);
}

}  // namespace relay::io
