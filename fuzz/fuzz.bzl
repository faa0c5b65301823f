"""relay_fuzz_target: one libFuzzer target and the test that replays its corpus.

Each target is a source file defining LLVMFuzzerTestOneInput. It becomes:
  NAME              a libFuzzer binary (cc_binary, tagged manual). Only `./x fuzz` builds it,
                    with clang and `--config=fuzz` (coverage, AddressSanitizer, UBSan) in an
                    output base of its own; gcc cannot link -fsanitize=fuzzer.
  NAME_replay_test  a cc_test that runs every file of the checked-in corpus (seeds and crash
                    regressions) through the same function with an ordinary main, so `./x test`
                    replays the corpora with gcc and, through the `asan` tag, under ASan.
"""

def relay_fuzz_target(name, srcs, deps, corpus):
    """Declares NAME (the fuzzer) and NAME_replay_test.

    Args:
      name: the fuzzer's name, e.g. "npy_fuzzer".
      srcs: the target's sources (one defines LLVMFuzzerTestOneInput).
      deps: the libraries it exercises.
      corpus: a folder of this package holding the seed corpus and crash regressions.
    """
    deps = deps + ["//fuzz:fuzz_check"]
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps,
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
    )
    native.cc_test(
        name = name + "_replay_test",
        size = "small",
        srcs = srcs,
        args = [native.package_name() + "/" + corpus],
        data = native.glob([corpus + "/**"]),
        tags = ["asan"],
        deps = deps + ["//fuzz:replay_main"],
    )
