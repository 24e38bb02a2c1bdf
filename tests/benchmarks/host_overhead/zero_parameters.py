#!/usr/bin/env python3
"""Writes a zero-filled safetensors file for a model's external parameters.

A module compiled from an imported model reads its weights from a
safetensors file (#flow.parameter.named<"scope"::"key">, served by
--parameters=scope=FILE). For host-overhead runs on the null CUDA driver the
values do not matter, only that every parameter exists with its shape and
type: this writes such a file from the model's MLIR, so a module whose real
weights are not at hand still runs.

Usage: zero_parameters.py MODEL.mlir OUT.safetensors
Prints the scope to pass: --parameters=<scope>=OUT.safetensors
"""
import json
import re
import struct
import sys

PARAMETER = re.compile(
    r'#flow\.parameter\.named<(?:"([^"]*)"::)?"([^"]*)">\s*:\s*tensor<([^>]*)>')
# MLIR element type -> (safetensors dtype, bytes).
DTYPES = {
    "f64": ("F64", 8), "f32": ("F32", 4), "f16": ("F16", 2), "bf16": ("BF16", 2),
    "i64": ("I64", 8), "i32": ("I32", 4), "i16": ("I16", 2), "i8": ("I8", 1),
    "ui8": ("U8", 1), "i1": ("BOOL", 1),
}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, output = sys.argv[1], sys.argv[2]
    header, offset, scopes = {}, 0, set()
    for scope, key, tensor in PARAMETER.findall(open(source).read()):
        if key in header:
            continue
        *dims, element = tensor.split("x")
        if element not in DTYPES or any(not d.isdigit() for d in dims):
            sys.exit("parameter %s: unsupported tensor<%s>" % (key, tensor))
        dtype, size = DTYPES[element]
        for dim in dims:
            size *= int(dim)
        header[key] = {"dtype": dtype, "shape": [int(d) for d in dims],
                       "data_offsets": [offset, offset + size]}
        offset += size
        scopes.add(scope)
    if not header:
        sys.exit("%s names no #flow.parameter.named" % source)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # The data starts 8-byte aligned.
    with open(output, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        # Zeros without writing them: the file is sparse where it can be.
        f.truncate(8 + len(text) + offset)
    print("%d parameters, %d bytes; run with %s" % (len(header), offset, " ".join(
        "--parameters=%s%s" % (s + "=" if s else "", output) for s in sorted(scopes))))


if __name__ == "__main__":
    main()
