"""The target build setting: --//toolchains:target=x86-64-avx2."""

load(":providers.bzl", "RelayTargetInfo")

KNOWN_TARGETS = ["x86-64", "x86-64-avx2", "x86-64-avx512"]

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
