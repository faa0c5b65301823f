// SHA-256, from LLVM's Support library (the one hash every kernel id and cache key uses).
#ifndef RULES_RELAY_LOWERING_SUPPORT_SHA256_H_
#define RULES_RELAY_LOWERING_SUPPORT_SHA256_H_

#include <string>

namespace relay::support {

// Lowercase hex SHA-256 digest of `bytes` (64 characters).
std::string Sha256Hex(const std::string& bytes);

}  // namespace relay::support

#endif  // RULES_RELAY_LOWERING_SUPPORT_SHA256_H_
