#include "lowering/ir/text/metadata.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lowering/ir/dtype.h"
#include "lowering/support/status_macros.h"
#include "nlohmann/json.hpp"

namespace relay::ir {
namespace {

using json = nlohmann::json;

constexpr uint64_t kNDArrayMagic = 0xDD5E40F096B4A13Full;
constexpr char kHeader[] = "#[metadata]";
constexpr char kConstantKind[] = "relay.Constant";
// The TVM release whose printer this layout follows (the loader upgrades older graphs only).
constexpr char kTvmVersion[] = "0.12.0";

// DLPack's type codes, as TVM writes them.
constexpr uint8_t kDLInt = 0;
constexpr uint8_t kDLUInt = 1;
constexpr uint8_t kDLFloat = 2;
constexpr uint8_t kDLBool = 6;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// 1-based line and column of byte `offset` in `text`.
std::pair<int, int> LineCol(const std::string& text, size_t offset) {
  int line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// TVM's (code, bits, lanes) for one of our dtypes, and back.
struct DLType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

DLType ToDLType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return {kDLFloat, 32, 1};
    case DType::kFloat16:
      return {kDLFloat, 16, 1};
    case DType::kInt32:
      return {kDLInt, 32, 1};
    case DType::kInt64:
      return {kDLInt, 64, 1};
    case DType::kBool:
      return {kDLUInt, 1, 1};  // TVM's "bool"
  }
  return {kDLFloat, 32, 1};
}

std::optional<DType> FromDLType(DLType t) {
  if (t.lanes != 1) return std::nullopt;
  if (t.code == kDLFloat && t.bits == 32) return DType::kFloat32;
  if (t.code == kDLFloat && t.bits == 16) return DType::kFloat16;
  if (t.code == kDLInt && t.bits == 32) return DType::kInt32;
  if (t.code == kDLInt && t.bits == 64) return DType::kInt64;
  if ((t.code == kDLUInt && t.bits == 1) || (t.code == kDLBool && t.bits == 8)) return DType::kBool;
  return std::nullopt;
}

std::string DLTypeName(DLType t) {
  const int bits = t.bits;
  std::string name;
  switch (t.code) {
    case kDLInt:
      name = absl::StrCat("int", bits);
      break;
    case kDLUInt:
      name = absl::StrCat("uint", bits);
      break;
    case kDLFloat:
      name = absl::StrCat("float", bits);
      break;
    case kDLBool:
      name = absl::StrCat("bool", bits);
      break;
    default:
      name = absl::StrCat("of type code ", static_cast<int>(t.code), " and ", bits, " bits");
  }
  if (t.lanes != 1) absl::StrAppend(&name, "x", static_cast<int>(t.lanes));
  return name;
}

// Reads fixed-size little-endian fields off the front of a byte string.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  bool Read(T* value) {
    if (bytes_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  const char* here() const { return bytes_.data() + pos_; }
  void Skip(size_t n) { pos_ += n; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

template <typename T>
void Append(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

// nlohmann's DOM parser, keeping where a parse error happened (its exception is never thrown).
class PositionedDomParser : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  explicit PositionedDomParser(json& result) : json_sax_dom_parser(result, false) {}
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) {
    position_ = position;
    message_ = error.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
    const size_t column = message_.find("column ");
    const size_t colon = column == std::string::npos ? column : message_.find(": ", column);
    if (colon != std::string::npos) message_ = message_.substr(colon + 2);
    return false;
  }
  size_t position() const { return position_; }
  const std::string& message() const { return message_; }

 private:
  size_t position_ = 0;
  std::string message_;
};

// Walks TVM's node graph; every complaint is about the section as a whole, at its header.
class GraphReader {
 public:
  GraphReader(const json& doc, std::string where) : doc_(doc), where_(std::move(where)) {}

  absl::StatusOr<std::vector<Tensor>> Constants() {
    if (!doc_.is_object()) return Error("the section is not a JSON object");
    const json* nodes = Field(doc_, "nodes");
    const json* root = Field(doc_, "root");
    if (nodes == nullptr || !nodes->is_array()) return Error("no \"nodes\" array");
    if (root == nullptr || !root->is_number_unsigned()) return Error("no \"root\" node index");
    nodes_ = nodes;
    const json* map = Node(root->get<uint64_t>());
    if (map == nullptr) return Error("\"root\" is not a node index");
    if (TypeKey(*map) != "Map") return Error("the root node is not a Map");
    const json* keys = Field(*map, "keys");
    const json* values = Field(*map, "data");
    std::vector<Tensor> constants;
    if (keys == nullptr) return constants;  // An empty map.
    if (!keys->is_array() || values == nullptr || !values->is_array() ||
        keys->size() != values->size()) {
      return Error("the root Map's \"keys\" and \"data\" do not pair up");
    }
    for (size_t k = 0; k < keys->size(); ++k) {
      if (!(*keys)[k].is_string() || (*keys)[k].get<std::string>() != kConstantKind) continue;
      const json* array = IndexedNode((*values)[k]);
      if (array == nullptr || TypeKey(*array) != "Array") {
        return Error("the root Map's relay.Constant entry is not an Array node");
      }
      const json* elements = Field(*array, "data");
      if (elements == nullptr) return constants;  // An empty array.
      if (!elements->is_array()) return Error("the relay.Constant Array has no \"data\" list");
      for (size_t i = 0; i < elements->size(); ++i) {
        RETURN_IF_ERROR(ReadConstant(i, (*elements)[i], &constants));
      }
    }
    return constants;
  }

 private:
  // Decodes element `i` of the relay.Constant array into `out`.
  absl::Status ReadConstant(size_t i, const json& index, std::vector<Tensor>* out) {
    const json* node = IndexedNode(index);
    if (node == nullptr || TypeKey(*node) != kConstantKind) {
      return Error(absl::StrCat("relay.Constant ", i, " is not a relay.Constant node"));
    }
    const json* attrs = Field(*node, "attrs");
    const json* data = attrs == nullptr ? nullptr : Field(*attrs, "data");
    uint64_t array_index = 0;
    if (data == nullptr || !data->is_string() ||
        !absl::SimpleAtoi(data->get<std::string>(), &array_index)) {
      return Error(absl::StrCat("relay.Constant ", i, " has no \"data\" attribute"));
    }
    const json* arrays = Field(doc_, "b64ndarrays");
    if (arrays == nullptr || !arrays->is_array() || array_index >= arrays->size() ||
        !(*arrays)[array_index].is_string()) {
      return Error(absl::StrCat("relay.Constant ", i, " names b64ndarrays[", array_index,
                                "], which does not exist"));
    }
    std::string bytes;
    if (!absl::Base64Unescape((*arrays)[array_index].get<std::string>(), &bytes)) {
      return Error(absl::StrCat("b64ndarrays[", array_index, "] is not base64"));
    }
    absl::StatusOr<Tensor> tensor = DecodeNDArray(bytes);
    if (!tensor.ok()) {
      return absl::Status(tensor.status().code(),
                          absl::StrCat(where_, "metadata: relay.Constant ", i, " (b64ndarrays[",
                                       array_index, "]): ", tensor.status().message()));
    }
    out->push_back(*std::move(tensor));
    return absl::OkStatus();
  }

  static const json* Field(const json& object, const char* name) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(name);
    return it == object.end() ? nullptr : &*it;
  }
  const json* Node(uint64_t index) const {
    if (index >= nodes_->size() || !(*nodes_)[index].is_object()) return nullptr;
    return &(*nodes_)[index];
  }
  const json* IndexedNode(const json& index) const {
    return index.is_number_unsigned() ? Node(index.get<uint64_t>()) : nullptr;
  }
  static std::string TypeKey(const json& node) {
    const json* key = Field(node, "type_key");
    return key != nullptr && key->is_string() ? key->get<std::string>() : std::string();
  }
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(where_, "metadata: ", what));
  }

  const json& doc_;
  std::string where_;  // "<source>:<line>:<col>: error: "
  const json* nodes_ = nullptr;
};

}  // namespace

size_t FindMetadataSection(const std::string& text) {
  size_t from = 0;
  while (true) {
    const size_t at = text.find(kHeader, from);
    if (at == std::string::npos) return at;
    size_t start = at;
    while (start > 0 && IsBlank(text[start - 1])) --start;
    size_t end = at + sizeof(kHeader) - 1;
    while (end < text.size() && IsBlank(text[end])) ++end;
    if ((start == 0 || text[start - 1] == '\n') && (end == text.size() || text[end] == '\n')) {
      return at;
    }
    from = at + 1;
  }
}

absl::StatusOr<std::vector<Tensor>> ParseMetadataSection(const std::string& text, size_t offset,
                                                         const std::string& source_name) {
  const auto [line, col] = LineCol(text, offset);
  const std::string where = absl::StrCat(source_name, ":", line, ":", col, ": error: ");
  size_t body = text.find('\n', offset);
  body = body == std::string::npos ? text.size() : body + 1;
  json doc;
  PositionedDomParser dom(doc);
  const std::string json_text = text.substr(body);
  if (!json::sax_parse(json_text, &dom)) {
    // nlohmann's position counts the character it stopped after; a bad word is shown from its
    // start.
    size_t at = body + (dom.position() > 0 ? dom.position() - 1 : 0);
    while (at > body && std::isalnum(static_cast<unsigned char>(text[at - 1]))) --at;
    const auto [bad_line, bad_col] = LineCol(text, at);
    return absl::InvalidArgumentError(absl::StrCat(source_name, ":", bad_line, ":", bad_col,
                                                   ": error: metadata: ", dom.message()));
  }
  return GraphReader(doc, where).Constants();
}

std::string PrintMetadataSection(const std::vector<Tensor>& constants) {
  // Nodes: 0 the null node, 1 the Map, 2 the Array, 3.. one relay.Constant per tensor.
  std::string out = absl::StrCat(kHeader, "\n{\n  \"root\": 1,\n  \"nodes\": [\n");
  absl::StrAppend(&out, "    {\n      \"type_key\": \"\"\n    },\n");
  absl::StrAppend(&out, "    {\n      \"type_key\": \"Map\",\n      \"keys\": [\n        \"",
                  kConstantKind, "\"\n      ],\n      \"data\": [2]\n    },\n");
  absl::StrAppend(&out, "    {\n      \"type_key\": \"Array\"");
  if (!constants.empty()) {
    absl::StrAppend(&out, ",\n      \"data\": [");
    for (size_t i = 0; i < constants.size(); ++i) {
      absl::StrAppend(&out, i == 0 ? "" : ", ", i + 3);
    }
    absl::StrAppend(&out, "]");
  }
  absl::StrAppend(&out, "\n    }");
  for (size_t i = 0; i < constants.size(); ++i) {
    absl::StrAppend(&out, ",\n    {\n      \"type_key\": \"", kConstantKind,
                    "\",\n      \"attrs\": {\n        \"_checked_type_\": \"0\",\n"
                    "        \"data\": \"",
                    i,
                    "\",\n        \"span\": \"0\",\n        \"virtual_device_\": \"0\"\n"
                    "      }\n    }");
  }
  absl::StrAppend(&out, "\n  ],\n  \"b64ndarrays\": [");
  for (size_t i = 0; i < constants.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "\n" : ",\n", "    \"",
                    absl::Base64Escape(EncodeNDArray(constants[i])), "\"");
  }
  absl::StrAppend(&out, constants.empty() ? "" : "\n  ", "],\n  \"attrs\": {\"tvm_version\": \"",
                  kTvmVersion, "\"}\n}\n");
  return out;
}

absl::StatusOr<Tensor> DecodeNDArray(std::string_view bytes) {
  ByteReader in(bytes);
  uint64_t magic = 0, reserved = 0;
  int32_t device_type = 0, device_id = 0, ndim = 0;
  DLType dl{};
  if (!in.Read(&magic) || magic != kNDArrayMagic) {
    return absl::InvalidArgumentError("not a TVM NDArray (its magic number is wrong)");
  }
  if (!in.Read(&reserved) || !in.Read(&device_type) || !in.Read(&device_id) || !in.Read(&ndim) ||
      !in.Read(&dl.code) || !in.Read(&dl.bits) || !in.Read(&dl.lanes)) {
    return absl::InvalidArgumentError("the NDArray header is truncated");
  }
  if (ndim < 0 || ndim > 32) {
    return absl::InvalidArgumentError(absl::StrCat("the NDArray has rank ", ndim));
  }
  const std::optional<DType> dtype = FromDLType(dl);
  if (!dtype.has_value()) {
    return absl::UnimplementedError(
        absl::StrCat("dtype ", DLTypeName(dl),
                     " is not supported (relayc has float32, float16, int32, int64 and bool)"));
  }
  Shape shape;
  int64_t elements = 1;
  for (int i = 0; i < ndim; ++i) {
    int64_t d = 0;
    if (!in.Read(&d)) return absl::InvalidArgumentError("the NDArray's shape is truncated");
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("dimension ", i, " is ", d));
    shape.push_back(d);
    // Bounded by the bytes actually present, checked below; saturate instead of overflowing.
    elements = (d != 0 && elements > INT64_MAX / d) ? INT64_MAX : elements * d;
  }
  int64_t data_bytes = 0;
  if (!in.Read(&data_bytes)) return absl::InvalidArgumentError("the NDArray's size is missing");
  const int64_t element_bytes = DTypeBytes(*dtype);
  if (elements > INT64_MAX / element_bytes || data_bytes != elements * element_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("the NDArray declares ", data_bytes,
                                                   " data bytes for ", elements, " elements of ",
                                                   DTypeName(*dtype)));
  }
  if (in.remaining() != static_cast<uint64_t>(data_bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the NDArray holds ", in.remaining(), " data bytes, not the ", data_bytes, " it declares"));
  }
  Tensor tensor(shape, *dtype);
  if (data_bytes > 0) std::memcpy(tensor.raw(), in.here(), data_bytes);
  return tensor;
}

std::string EncodeNDArray(const Tensor& tensor) {
  std::string out;
  const DLType dl = ToDLType(tensor.dtype());
  Append<uint64_t>(&out, kNDArrayMagic);
  Append<uint64_t>(&out, 0);
  Append<int32_t>(&out, 1);  // kDLCPU
  Append<int32_t>(&out, 0);
  Append<int32_t>(&out, tensor.ndim());
  Append<uint8_t>(&out, dl.code);
  Append<uint8_t>(&out, dl.bits);
  Append<uint16_t>(&out, dl.lanes);
  for (int64_t d : tensor.shape()) Append<int64_t>(&out, d);
  Append<int64_t>(&out, tensor.NumBytes());
  out.append(reinterpret_cast<const char*>(tensor.raw()), tensor.NumBytes());
  return out;
}

}  // namespace relay::ir
