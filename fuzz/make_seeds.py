#!/usr/bin/env python3
"""Writes the .npy and safetensors seeds of corpus/npy and corpus/safetensors.

The other corpora are copies of real inputs (Relay files of the repository, ONNX's node-test
models, partitioned models' graph.json files). These two formats have no checked-in examples, so
this script makes small valid files covering each dtype, 0-d and empty arrays, every .npy format
version and safetensors metadata: the fuzzer starts from what the readers accept and mutates from
there. Deterministic (no randomness, no clock): rerunning it rewrites the same bytes.

    python3 fuzz/make_seeds.py
"""

import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(descr, shape, payload, version=(1, 0), fortran=False):
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(", ")
    shape_text += ",)" if len(shape) == 1 else ")"
    header = f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape_text}, }}"
    length_bytes = 2 if version[0] == 1 else 4
    unpadded = 6 + 2 + length_bytes + len(header) + 1
    header += " " * ((-unpadded) % 64) + "\n"
    length = struct.pack("<H" if length_bytes == 2 else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + length + header.encode("latin1") + payload


def safetensors(tensors, metadata=None):
    header = {}
    data = b""
    for name, (dtype, shape, payload) in sorted(tensors.items()):
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((-len(text)) % 8)
    return struct.pack("<Q", len(text)) + text + data


def f32(*values):
    return struct.pack(f"<{len(values)}f", *values)


def write(folder, name, content):
    path = os.path.join(HERE, "corpus", folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(content)


def main():
    write("npy", "seed_f32_2x3.npy", npy("<f4", [2, 3], f32(1, 2, 3, 4, 5, 6)))
    write("npy", "seed_f16_4.npy", npy("<f2", [4], struct.pack("<4e", 0.5, -1, 65504, 0)))
    write("npy", "seed_i32_2x2.npy", npy("<i4", [2, 2], struct.pack("<4i", 1, -2, 3, -4)))
    write("npy", "seed_i64_3.npy", npy("<i8", [3], struct.pack("<3q", 1, 2**40, -7)))
    write("npy", "seed_bool_5.npy", npy("|b1", [5], bytes([1, 0, 1, 1, 0])))
    write("npy", "seed_u1_as_bool.npy", npy("|u1", [2], bytes([0, 1])))
    write("npy", "seed_scalar.npy", npy("<f4", [], f32(3.5)))
    write("npy", "seed_empty.npy", npy("<f4", [0, 4], b""))
    write("npy", "seed_version2.npy", npy("<f4", [1, 1, 2], f32(1, 2), version=(2, 0)))
    write("npy", "seed_version3.npy", npy("<i4", [1], struct.pack("<i", 9), version=(3, 0)))
    write("npy", "seed_fortran_rejected.npy", npy("<f4", [2], f32(1, 2), fortran=True))

    write("safetensors", "seed_two_f32.safetensors", safetensors({
        "conv.weight": ("F32", [2, 1, 1, 2], f32(1, 2, 3, 4)),
        "conv.bias": ("F32", [2], f32(0.5, -0.5)),
    }))
    write("safetensors", "seed_dtypes.safetensors", safetensors({
        "a": ("F16", [2], struct.pack("<2e", 1.0, -2.0)),
        "b": ("I32", [1], struct.pack("<i", 7)),
        "c": ("I64", [2], struct.pack("<2q", -1, 2**33)),
        "d": ("BOOL", [3], bytes([0, 1, 1])),
    }))
    write("safetensors", "seed_metadata.safetensors", safetensors(
        {"w": ("F32", [1], f32(2))}, metadata={"format": "pt", "relay": "seed"}))
    write("safetensors", "seed_scalar_and_empty.safetensors", safetensors({
        "scalar": ("F32", [], f32(1)),
        "empty": ("F32", [0, 3], b""),
    }))
    write("safetensors", "seed_no_tensors.safetensors", safetensors({}))


if __name__ == "__main__":
    main()
