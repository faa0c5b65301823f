"""Providers of rules_relay. Private: load them through //rules:defs.bzl."""

RelayToolchainInfo = provider(
    doc = "How to run relayc: the binary and the exact LLVM version it links.",
    fields = {
        "relayc": "FilesToRunProvider of the relayc binary (exec configuration).",
        "llvm_version": "The LLVM version relayc links, e.g. '14.0.6'. Passed to every " +
                        "compile action so it is part of the action key.",
        "llvm_digest": "The digest of the libLLVM relayc loads ('build-id:HEX'), or ''. " +
                       "Passed to every compile action: a rebuilt libLLVM with the same " +
                       "version changes the key, and relayc refuses a stale one.",
        "nvcc_digest": "'sha256:HEX' of the nvcc cuda-* compiles run, or ''. Passed to " +
                       "cuda-* compile actions only.",
        "ptxas_digest": "'sha256:HEX' of the ptxas beside it, or ''. Likewise.",
        "nvcc": "Absolute path of the CUDA Toolkit's nvcc for cuda-* targets, or '' for " +
                "relayc's default (/usr/local/cuda/bin/nvcc). Part of CUDA compile keys.",
    },
)

RelayTargetInfo = provider(
    doc = "The compilation target chosen on the command line (--//toolchains:target).",
    fields = {
        "name": "Target name: 'x86-64', 'x86-64-avx2', 'x86-64-avx512', 'cuda-sm80' or " +
                "'cuda-sm90'.",
    },
)

RelayKernelsInfo = provider(
    doc = "A kernel library: kernel files and their objects compiled for the current target.",
    fields = {
        "srcs": "depset of the kernel files (k_<id>.relay).",
        "dir": "Workspace-relative folder holding the kernel files (one folder per library).",
        "objects": "depset of compiled kernel objects (.o), one per kernel.",
        "metadata": "depset of the kernels' metadata files (.json): symbol, arguments, flops.",
        "target": "The target the objects were compiled for.",
        "models": "Labels (strings) of the relay_model_library targets that share the library, " +
                  "as its `models` attribute lists them; empty when it lists none.",
        "tuning": "The library's tuning database (File), or None.",
    },
)

RelayApplyTuningInfo = provider(
    doc = "Whether kernel libraries apply their tuning databases (//toolchains:apply_tuning).",
    fields = {
        "apply": "bool: True unless --//toolchains:apply_tuning=false.",
    },
)

RelayModelSourceInfo = provider(
    doc = "What a relay_model_library partitions: enough to run `relayc partition` on it " +
          "outside the build (update targets).",
    fields = {
        "label": "The model's label as users write it (the cc_library's), e.g. '//m:net'.",
        "name": "The model's name (class and file names).",
        "model": "The model File (.onnx or .relay).",
        "params": "The weights File of a .relay model, or None.",
        "input_shapes": "dict of input name -> \"d0,d1,...\", as the macro's input_shapes.",
        "dim_bounds": "dict of dim name -> \"lo..hi[:step]\", as the macro's dim_bounds.",
    },
)
