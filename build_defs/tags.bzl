"""Tags of tests whose verdict depends on the machine that runs them.

A test that runs generated machine code (kernels compiled for a CPU target, the JIT), measures
the host (its CPUs, their features, its peak), or reads files Bazel does not track (ONNX's test
suite under /usr/share) passes or fails by the machine as much as by its inputs, none of which
are in its action key. A remote cache would replay a pass from one machine on another where the
test never ran (an AVX-512 pass on a CPU without AVX-512, a pass before a libLLVM upgrade), so
these tests are never taken from or written to the remote cache: each machine runs them itself.
(Bazel may still keep their results in its local action cache: that is the same machine.)
"""

HOST_DEPENDENT = ["no-remote-cache"]
