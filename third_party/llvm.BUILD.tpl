# Debian's LLVM 14 (llvm-14-dev), seen through llvm_configure (llvm_configure.bzl).
#
# `llvm` links libLLVM-14. Its headers are not declared here when they live under /usr/include
# (Debian: /usr/include/llvm-14): the few libraries whose sources include them add
# LLVM_COPTS (version.bzl), an -isystem flag for that system directory. Declared headers would
# be inputs of every action that depends on LLVM transitively, and a sandbox of ~2,900
# symlinks each (1.5-2 s per compile action, 35 s of a cold build). Elsewhere the headers are
# declared (%{declare_headers}).
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "llvm",
    hdrs = %{hdrs},
    includes = %{includes},
    linkopts = [
        "-L/usr/lib/llvm-14/lib",
        "-Wl,-rpath,/usr/lib/llvm-14/lib",
        "-lLLVM-14",
    ],
)

exports_files(["version.bzl"])
