"""The relayc toolchain."""

load(":providers.bzl", "RelayToolchainInfo")

TOOLCHAIN_TYPE = str(Label("//toolchains:toolchain_type"))

def _relay_toolchain_impl(ctx):
    return [platform_common.ToolchainInfo(
        relay = RelayToolchainInfo(
            relayc = ctx.attr.relayc[DefaultInfo].files_to_run,
            llvm_version = ctx.attr.llvm_version,
            llvm_digest = ctx.attr.llvm_digest,
            nvcc = ctx.attr.nvcc,
            nvcc_digest = ctx.attr.nvcc_digest,
            ptxas_digest = ctx.attr.ptxas_digest,
        ),
    )]

relay_toolchain = rule(
    implementation = _relay_toolchain_impl,
    attrs = {
        "relayc": attr.label(
            doc = "The relayc binary.",
            executable = True,
            cfg = "exec",
            mandatory = True,
        ),
        "llvm_version": attr.string(
            doc = "The exact LLVM version relayc links (from @llvm_14//:version.bzl).",
            mandatory = True,
        ),
        "llvm_digest": attr.string(
            doc = "The digest of the libLLVM relayc loads (from @llvm_14//:version.bzl: " +
                  "'build-id:HEX' or 'sha256:HEX'); empty: not checked.",
        ),
        "nvcc": attr.string(
            doc = "Absolute path of the CUDA Toolkit's nvcc, for cuda-* targets (actions run " +
                  "with an empty environment, so $CUDA_PATH does not reach relayc). Empty: " +
                  "relayc's default, /usr/local/cuda/bin/nvcc.",
        ),
        "nvcc_digest": attr.string(
            doc = "'sha256:HEX' of that nvcc (from @cuda_tools//:digests.bzl), or '' (not " +
                  "checked): in every cuda-* compile action's key, checked by relayc.",
        ),
        "ptxas_digest": attr.string(
            doc = "'sha256:HEX' of the ptxas beside that nvcc, or '': as nvcc_digest.",
        ),
    },
    doc = "Declares a relayc toolchain: the compiler binary and the LLVM version it links.",
)

def relay_toolchain_info(ctx):
    """The RelayToolchainInfo of the resolved relayc toolchain."""
    return ctx.toolchains[TOOLCHAIN_TYPE].relay
