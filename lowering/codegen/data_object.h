// Data objects: an ELF relocatable object file that defines one read-only global holding given
// bytes. relayc assemble writes a model's weights this way (NAME_params.o), so linking a model
// needs no assembler and no file read at run time.
#ifndef RULES_RELAY_LOWERING_CODEGEN_DATA_OBJECT_H_
#define RULES_RELAY_LOWERING_CODEGEN_DATA_OBJECT_H_

#include <string>

#include "absl/status/statusor.h"

namespace relay::codegen {

// An x86-64 Linux ELF object (ET_REL) defining the global symbol `symbol` (C linkage: the name
// as given) as a constant array of `bytes.size()` bytes with exactly `bytes` as contents, in
// section .rodata, aligned to `alignment` bytes. Declare it from C or C++ as
// `extern "C" const uint8_t symbol[];`. Empty `bytes` defines a zero-size symbol.
//
// Generated with LLVM (a module with one constant global, emitted by a TargetMachine for the
// portable x86-64 CPU): no external assembler. Deterministic: the same arguments give the same
// bytes on every run and machine (no paths, timestamps or producer strings in the object).
//
// Errors: InvalidArgument when `symbol` is not a C identifier or `alignment` is not a power of
// two in [1, 4096]; Internal if LLVM fails to emit.
absl::StatusOr<std::string> EmitDataObject(const std::string& symbol, const std::string& bytes,
                                           int alignment);

}  // namespace relay::codegen

#endif  // RULES_RELAY_LOWERING_CODEGEN_DATA_OBJECT_H_
