"""Test helpers of tests/cuda."""

load("//rules:defs.bzl", "RelayKernelsInfo")

def _kernel_sources_impl(ctx):
    srcs = ctx.attr.library[RelayKernelsInfo].srcs
    return [DefaultInfo(files = srcs, runfiles = ctx.runfiles(transitive_files = srcs))]

kernel_sources = rule(
    implementation = _kernel_sources_impl,
    attrs = {
        "library": attr.label(
            doc = "A relay_kernel_library.",
            providers = [RelayKernelsInfo],
            mandatory = True,
        ),
    },
    doc = "The kernel files (k_<id>.relay) of a kernel library, as data for a test. Nothing " +
          "is compiled: only the library's sources are used.",
)
