#!/usr/bin/env python3
"""Prints kTwoTensorsHex of lowering/io/safetensors_test.cc: a safetensors file built from the
format description (huggingface/safetensors README) with `json` and `struct` alone.

    python3 lowering/io/testdata/safetensors_golden.py            # prints the C++ constant
    python3 lowering/io/testdata/safetensors_golden.py --check lowering/io/safetensors_test.cc

The format: an 8-byte little-endian unsigned header length N, N bytes of a JSON object
{name: {"dtype", "shape", "data_offsets": [begin, end]}} (offsets into the data that follows),
then the tensors' bytes, little-endian and row-major. Like our writer, the JSON is compact with
sorted keys, the tensors are laid out in name order, and the header is padded with spaces so
the data starts 8-byte aligned. `safetensors_golden_test` (lowering/io/BUILD) runs --check,
which fails unless the test's hex string holds exactly these bytes.
"""

import json
import re
import struct
import sys

# The tensors of the test: name -> (dtype, shape, struct format of the values, values).
TENSORS = {
    "a": ("F32", [2], "<2f", [1.0, -2.5]),
    "b": ("I64", [], "<q", [-7]),
}

GENERATOR = "lowering/io/testdata/safetensors_golden.py"

# Bytes of header text per line of the printed constant: 92 hex digits fit in 100 columns.
_LINE_BYTES = 46


def two_tensors():
    """The file's bytes, split as the test writes them: length, header, each tensor's data."""
    header = {}
    datas = []
    offset = 0
    for name in sorted(TENSORS):
        dtype, shape, fmt, values = TENSORS[name]
        data = struct.pack(fmt, *values)
        header[name] = {
            "dtype": dtype,
            "shape": shape,
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        datas.append(data)
    text = json.dumps(header, separators=(",", ":"), sort_keys=True).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    return [struct.pack("<Q", len(text)), text] + datas


def cxx_constant(parts):
    lines = [parts[0].hex()]
    header = parts[1]
    lines += [header[i:i + _LINE_BYTES].hex() for i in range(0, len(header), _LINE_BYTES)]
    lines += [p.hex() for p in parts[2:]]
    return "const char kTwoTensorsHex[] =\n" + "\n".join(f'    "{l}"' for l in lines) + ";"


def bytes_in_test(path):
    """The bytes of kTwoTensorsHex in the test source (its string literals joined), or None."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r"kTwoTensorsHex\[\]\s*=((?:\s*\"[0-9A-Fa-f]*\")+)\s*;", f.read())
    if m is None:
        return None
    return bytes.fromhex("".join(re.findall(r"\"([0-9A-Fa-f]*)\"", m.group(1))))


def main(argv):
    want = b"".join(two_tensors())
    if len(argv) == 3 and argv[1] == "--check":
        got = bytes_in_test(argv[2])
        if got is None:
            print(f"{argv[2]}: no kTwoTensorsHex[] = \"...\"; literal")
            return 1
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                         min(len(got), len(want)))
            print(f"{argv[2]}: kTwoTensorsHex differs from what {GENERATOR} prints, first at byte "
                  f"{first} from 0 ({len(got)} bytes, the generator's {len(want)}); it prints:")
            print(cxx_constant(two_tensors()))
            return 1
        print(f"{argv[2]}: kTwoTensorsHex equals what {GENERATOR} prints ({len(want)} bytes)")
        return 0
    if len(argv) != 1:
        print(f"usage: {GENERATOR} [--check TEST_SOURCE]", file=sys.stderr)
        return 2
    print(cxx_constant(two_tensors()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
