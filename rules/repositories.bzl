"""WORKSPACE setup for users of rules_relay.

    local_repository(name = "rules_relay", path = "third_party/rules_relay")  # or http_archive

    load("@rules_relay//rules:repositories.bzl", "rules_relay_dependencies", "rules_relay_toolchains")

    rules_relay_dependencies()

    rules_relay_toolchains()

and in .bazelrc: `build --cxxopt=-std=c++17 --host_cxxopt=-std=c++17` (relayc is C++17).
Everything comes from the machine (Debian packages, see third_party/README.md): nothing is
downloaded.
"""

load("//third_party:cuda_tools_configure.bzl", "cuda_tools_configure")
load("//third_party:llvm_configure.bzl", "llvm_configure")

def _local_copy_impl(rctx):
    # Symlinks the folder of `marker` (a file inside rules_relay) as this repository, so a shim
    # that lives in rules_relay can be a repository of the user's workspace.
    src = rctx.path(rctx.attr.marker).dirname
    for child in src.readdir():
        rctx.symlink(child, child.basename)

_local_copy = repository_rule(
    implementation = _local_copy_impl,
    attrs = {"marker": attr.label(mandatory = True, allow_single_file = True)},
    local = True,
    doc = "A repository made of a folder of rules_relay (found through a file in it).",
)

def _maybe(rule, name, **kwargs):
    if name not in native.existing_rules():
        rule(name = name, **kwargs)

def rules_relay_dependencies():
    """Declares the repositories rules_relay needs, unless the workspace already has them.

    rules_cc and rules_java: offline shims re-exporting Bazel's native rules (Bazel asks for
    them even for C++-only builds); remote_coverage_tools: referenced by every test action;
    llvm_14: Debian's LLVM 14, with its exact version for compile action keys; cuda_tools: the
    digests of the CUDA Toolkit's nvcc and ptxas, for cuda-* compile action keys.
    """
    _maybe(_local_copy, "rules_cc", marker = Label("//third_party/rules_cc:WORKSPACE"))
    _maybe(_local_copy, "rules_java", marker = Label("//third_party/rules_java:WORKSPACE"))
    _maybe(
        _local_copy,
        "remote_coverage_tools",
        marker = Label("//third_party/remote_coverage_tools:WORKSPACE"),
    )
    _maybe(
        llvm_configure,
        "llvm_14",
        build_file = Label("//third_party:llvm.BUILD.tpl"),
        prefix = "/usr/lib/llvm-14",
    )
    _maybe(cuda_tools_configure, "cuda_tools")

def rules_relay_toolchains():
    """Registers the relayc toolchain (relayc built from rules_relay's sources)."""
    native.register_toolchains(str(Label("//toolchains:relayc_toolchain")))
