#include "lowering/assemble/generated_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace relay::assemble {

std::string CString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c == '?') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\%03o", c);
    }
  }
  out.push_back('"');
  return out;
}

std::string Upper(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string RelayType(const ir::Shape& shape, ir::DType dtype) {
  return ir::TypeToString(ir::Type::Tensor(shape, dtype));
}

const char* ElemTypeEnumerator(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kFloat32:
      return "::relay::ElemType::kFloat32";
    case ir::DType::kFloat16:
      return "::relay::ElemType::kFloat16";
    case ir::DType::kInt32:
      return "::relay::ElemType::kInt32";
    case ir::DType::kInt64:
      return "::relay::ElemType::kInt64";
    case ir::DType::kBool:
      return "::relay::ElemType::kBool";
  }
  return "?";
}

std::string Count(size_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string BufferList(const std::vector<int>& ids) {
  std::vector<std::string> parts;
  for (int id : ids) parts.push_back(absl::StrCat("%", id));
  return absl::StrJoin(parts, ", ");
}

}  // namespace relay::assemble
