"""The target build setting: --//toolchains:target=x86-64-avx2 (or cuda-sm90, docs/cuda.md)."""

load(":providers.bzl", "RelayApplyTuningInfo", "RelayTargetInfo")
load(":targets.bzl", "TARGETS")

# The table of lowering/target/target.cc (`relayc targets`). The CUDA targets compile kernels
# with the CUDA Toolkit's nvcc (relayc finds it in $CUDA_PATH or /usr/local/cuda), into objects
# that need //runtime/cuda and a GPU at run time.
KNOWN_TARGETS = list(TARGETS.keys())

CUDA_TARGETS = [name for name, kind in TARGETS.items() if kind == "cuda"]

def target_setting(target):
    """The config_setting in //toolchains that matches `target`: cuda-sm90 -> cuda_sm90."""
    return target.replace("-", "_")

def _relay_target_impl(ctx):
    value = ctx.build_setting_value
    if value not in KNOWN_TARGETS:
        fail("--%s=%s is not a known target; use one of: %s" % (
            ctx.label,
            value,
            ", ".join(KNOWN_TARGETS),
        ))
    return [RelayTargetInfo(name = value)]

relay_target = rule(
    implementation = _relay_target_impl,
    build_setting = config.string(flag = True),
    doc = "A string build setting naming the compilation target of every kernel.",
)

def _relay_apply_tuning_impl(ctx):
    return [RelayApplyTuningInfo(apply = ctx.build_setting_value)]

relay_apply_tuning = rule(
    implementation = _relay_apply_tuning_impl,
    build_setting = config.bool(flag = True),
    doc = "A bool build setting: whether kernel libraries apply their tuning databases.",
)
