#include "lowering/io/npy.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/io/file.h"
#include "lowering/support/check.h"
#include "lowering/support/status_macros.h"

namespace relay::io {
namespace {

using ir::DType;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy aligns the data section to 64 bytes (since 1.14; earlier versions used 16).
constexpr size_t kAlignment = 64;

// One value of the header: the header is a Python dict literal whose values are strings,
// booleans or tuples of ints, and nothing else that a valid file needs.
struct HeaderValue {
  enum class Kind { kString, kBool, kTuple } kind;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> tuple;
};

// A recursive-descent reader for the header dict: `{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }`. Python's grammar for these literals, restricted to what the format uses.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  absl::StatusOr<std::vector<std::pair<std::string, HeaderValue>>> ParseDict() {
    std::vector<std::pair<std::string, HeaderValue>> entries;
    SkipSpace();
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      ASSIGN_OR_RETURN(std::string key, ParseString());
      SkipSpace();
      if (!Consume(':')) return Error(absl::StrCat("expected ':' after key '", key, "'"));
      SkipSpace();
      ASSIGN_OR_RETURN(HeaderValue value, ParseValue());
      for (const auto& entry : entries) {
        if (entry.first == key) return Error(absl::StrCat("duplicate key '", key, "'"));
      }
      entries.emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (Consume('}')) break;
      if (!Consume(',')) return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the dict");
    return entries;
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": bad .npy header dict: ", what, " at offset ", pos_));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool ConsumeWord(const char* word) {
    size_t n = std::strlen(word);
    if (text_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  absl::StatusOr<std::string> ParseString() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos) return Error("unterminated string");
    std::string s = text_.substr(pos_, end - pos_);
    if (s.find('\\') != std::string::npos) return Error("escapes in strings are not supported");
    pos_ = end + 1;
    return s;
  }

  absl::StatusOr<HeaderValue> ParseValue() {
    HeaderValue value;
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      value.kind = HeaderValue::Kind::kString;
      ASSIGN_OR_RETURN(value.str, ParseString());
      return value;
    }
    if (ConsumeWord("True")) {
      value.kind = HeaderValue::Kind::kBool;
      value.boolean = true;
      return value;
    }
    if (ConsumeWord("False")) {
      value.kind = HeaderValue::Kind::kBool;
      return value;
    }
    if (Consume('(')) {
      value.kind = HeaderValue::Kind::kTuple;
      while (true) {
        SkipSpace();
        if (Consume(')')) break;
        ASSIGN_OR_RETURN(int64_t v, ParseInt());
        value.tuple.push_back(v);
        SkipSpace();
        if (Consume(')')) break;
        if (!Consume(',')) return Error("expected ',' or ')' in a tuple");
      }
      return value;
    }
    // A structured dtype's descr is a list; report it as what it is.
    if (pos_ < text_.size() && text_[pos_] == '[') {
      return Error("structured dtypes (a list descr) are not supported");
    }
    return Error("expected a string, True, False or a tuple");
  }

  absl::StatusOr<int64_t> ParseInt() {
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return Error("dimension out of range");
      }
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Error("expected a non-negative integer");
    Consume('L');  // Python 2 longs, in files written by old NumPy.
    return v;
  }

  const std::string& text_;
  const std::string& name_;
  size_t pos_ = 0;
};

// Maps a descr to a dtype. `from_u1` is set for '|u1', whose bytes must then be 0 or 1.
absl::StatusOr<DType> DescrToDType(const std::string& descr, const std::string& name,
                                   bool* from_u1) {
  *from_u1 = false;
  if (descr == "<f4") return DType::kFloat32;
  if (descr == "<f2") return DType::kFloat16;
  if (descr == "<i4") return DType::kInt32;
  if (descr == "<i8") return DType::kInt64;
  if (descr == "|b1") return DType::kBool;
  if (descr == "|u1") {
    *from_u1 = true;
    return DType::kBool;
  }
  if (!descr.empty() && descr[0] == '>') {
    return absl::UnimplementedError(absl::StrCat(
        name, ": big-endian data ('", descr,
        "') is not supported; save it little-endian (arr.astype(arr.dtype.newbyteorder('<')))"));
  }
  return absl::UnimplementedError(
      absl::StrCat(name, ": unsupported dtype '", descr,
                   "' (supported: '<f4' float32, '<f2' float16, '<i4' int32, '<i8' int64, "
                   "'|b1' or '|u1' bool)"));
}

void AppendLittleEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t ReadLittleEndian(const std::string& bytes, size_t offset, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

bool HostIsLittleEndian() {
  uint16_t probe = 1;
  unsigned char first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

}  // namespace

const char* NpyDescr(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat16:
      return "<f2";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kBool:
      return "|b1";
  }
  return "?";
}

absl::StatusOr<ir::Tensor> ParseNpy(const std::string& bytes, const std::string& name) {
  // Tensor storage is host-order; every machine we target is little-endian, as is the data.
  RELAY_CHECK(HostIsLittleEndian(), "the .npy reader assumes a little-endian host");
  if (bytes.size() < kMagicSize || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a .npy file (bad magic: expected \\x93NUMPY)"));
  }
  if (bytes.size() < kMagicSize + 2) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": truncated .npy header (no version)"));
  }
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3) {
    return absl::UnimplementedError(absl::StrCat(name, ": unsupported .npy format version ", major,
                                                 ".", minor, " (supported: 1.0, 2.0, 3.0)"));
  }
  // Version 1.0 has a 2-byte header length; 2.0 and 3.0 a 4-byte one (3.0 only allows UTF-8 in
  // the header, which changes nothing for the keys we accept).
  int len_bytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicSize + 2 + len_bytes;
  if (bytes.size() < prefix) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": truncated .npy header (no header length)"));
  }
  uint64_t header_len = ReadLittleEndian(bytes, kMagicSize + 2, len_bytes);
  if (bytes.size() - prefix < header_len) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": truncated .npy header (header length ",
                                                   header_len, ", but only ", bytes.size() - prefix,
                                                   " bytes follow)"));
  }
  std::string header = bytes.substr(prefix, header_len);
  HeaderParser parser(header, name);
  ASSIGN_OR_RETURN(auto entries, parser.ParseDict());

  const HeaderValue* descr = nullptr;
  const HeaderValue* fortran_order = nullptr;
  const HeaderValue* shape = nullptr;
  for (const auto& [key, value] : entries) {
    if (key == "descr") {
      descr = &value;
    } else if (key == "fortran_order") {
      fortran_order = &value;
    } else if (key == "shape") {
      shape = &value;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": bad .npy header dict: unexpected key '", key,
                       "' (expected exactly 'descr', 'fortran_order' and 'shape')"));
    }
  }
  auto missing = [&](const char* key) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": bad .npy header dict: missing key '", key, "'"));
  };
  auto wrong_kind = [&](const char* key, const char* expected) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": bad .npy header dict: '", key, "' must be ", expected));
  };
  if (descr == nullptr) return missing("descr");
  if (fortran_order == nullptr) return missing("fortran_order");
  if (shape == nullptr) return missing("shape");
  if (descr->kind != HeaderValue::Kind::kString) return wrong_kind("descr", "a string");
  if (fortran_order->kind != HeaderValue::Kind::kBool) {
    return wrong_kind("fortran_order", "True or False");
  }
  if (shape->kind != HeaderValue::Kind::kTuple) return wrong_kind("shape", "a tuple of ints");

  bool from_u1 = false;
  ASSIGN_OR_RETURN(DType dtype, DescrToDType(descr->str, name, &from_u1));
  if (fortran_order->boolean) {
    return absl::UnimplementedError(
        absl::StrCat(name,
                     ": fortran_order arrays are not supported; save a C-order array "
                     "(np.ascontiguousarray)"));
  }

  // Checked arithmetic: a hostile shape must not overflow into a small allocation.
  uint64_t elements = 1;
  for (int64_t d : shape->tuple) {
    if (d != 0 && elements > std::numeric_limits<uint64_t>::max() / 64 / static_cast<uint64_t>(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": shape (", absl::StrJoin(shape->tuple, ", "), ") is too large"));
    }
    elements *= static_cast<uint64_t>(d);
  }
  uint64_t expected = elements * static_cast<uint64_t>(ir::DTypeBytes(dtype));
  uint64_t found = bytes.size() - prefix - header_len;
  if (found != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": data size mismatch: shape (", absl::StrJoin(shape->tuple, ", "),
                     ") of ", descr->str, " needs ", expected, " bytes, the file has ", found));
  }

  ir::Tensor tensor(ir::Shape(shape->tuple.begin(), shape->tuple.end()), dtype);
  const char* data = bytes.data() + prefix + header_len;
  if (from_u1) {
    for (uint64_t i = 0; i < elements; ++i) {
      unsigned char b = static_cast<unsigned char>(data[i]);
      if (b > 1) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": '|u1' data read as bool must be 0 or 1, found ",
                         static_cast<int>(b), " at element ", i));
      }
    }
  }
  if (expected > 0) std::memcpy(tensor.raw(), data, expected);
  if (dtype == DType::kBool) {
    // NumPy writes bools as 0/1, but any non-zero byte is true: normalise so equal tensors
    // have equal bytes.
    for (uint64_t i = 0; i < elements; ++i) tensor.raw()[i] = tensor.raw()[i] != 0 ? 1 : 0;
  }
  return tensor;
}

absl::StatusOr<ir::Tensor> ReadNpy(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  return ParseNpy(bytes, path);
}

std::string SerializeNpy(const ir::Tensor& tensor) {
  RELAY_CHECK(HostIsLittleEndian(), "the .npy writer assumes a little-endian host");
  std::string shape;
  if (tensor.ndim() == 1) {
    shape = absl::StrCat("(", tensor.shape()[0], ",)");  // Python's one-element tuple.
  } else {
    shape = absl::StrCat("(", absl::StrJoin(tensor.shape(), ", "), ")");
  }
  std::string header = absl::StrCat("{'descr': '", NpyDescr(tensor.dtype()),
                                    "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces and end with '\n' so the data starts at a multiple of kAlignment.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  size_t padded = (total + kAlignment - 1) / kAlignment * kAlignment;
  header.append(padded - total, ' ');
  header.push_back('\n');
  RELAY_CHECK(header.size() <= 0xffff, "a .npy 1.0 header must fit in 64 KiB");

  std::string out(kMagic, kMagicSize);
  out.push_back('\x01');
  out.push_back('\x00');
  AppendLittleEndian(&out, header.size(), 2);
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.raw()), static_cast<size_t>(tensor.NumBytes()));
  return out;
}

absl::Status WriteNpy(const std::string& path, const ir::Tensor& tensor) {
  return WriteFileAtomically(path, SerializeNpy(tensor));
}

}  // namespace relay::io
