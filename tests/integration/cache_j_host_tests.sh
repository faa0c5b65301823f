#!/bin/bash
# cache j. Test results are cached like actions, but a test whose verdict depends on the machine
# (HOST_DEPENDENT in build_defs/tags.bzl: no-remote-cache) is never taken from the remote cache:
# machine A (CI, uploading) runs two tests, one of each kind; machine B (another output base,
# no disk cache, --config=remote-ro) takes the portable test's result from the cache and runs the
# host-dependent one itself.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_workspace "$ITEST_TMP/a"
mkdir -p "$WS/t"
cat >"$WS/t/check.sh" <<'SH'
#!/bin/bash
echo "ran on $(hostname)"
SH
chmod 755 "$WS/t/check.sh"
cat >"$WS/t/BUILD" <<'BUILD'
load("@rules_relay//build_defs:tags.bzl", "HOST_DEPENDENT")

sh_test(
    name = "portable_test",
    srcs = ["check.sh"],
)

sh_test(
    name = "host_test",
    srcs = ["check.sh"],
    tags = HOST_DEPENDENT,
)
BUILD

cache_bazel_ci test //t:all
expect_success "machine A runs both tests and uploads"
# Bazel 4 runs two TestRunner spawns per test: the test, then its test.xml.
expect_eq "machine A ran both tests" "$(count_spawns TestRunner executed)" 4

cache_machine "$ITEST_TMP/b"
must_bazel test --config=remote-ro //t:all
expect_success "machine B's tests pass"
expect_eq "machine B took one test's result from the cache" "$(count_spawns TestRunner hits)" 2
expect_eq "machine B ran one test itself" "$(count_spawns TestRunner executed)" 2
# The tests whose spawns executed, by their outputs (testlogs/t/NAME/...).
ran="$(awk -F'\t' '
  $2 == "mnemonic" { m[$1] = $3 }
  $2 == "hit" { h[$1] = $3 }
  $2 == "output" && $3 ~ /testlogs\/t\// { split($3, p, "/"); t[$1] = p[5] }
  END { for (i in t) if (m[i] == "TestRunner" && h[i] != "1") print t[i] }' "$ITEST_SPAWNS" |
  sort -u | tr '\n' ' ')"
expect_eq "the one it ran is the host-dependent test" "$ran" "host_test "

itest_end
