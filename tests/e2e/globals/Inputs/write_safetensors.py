#!/usr/bin/python3
"""Writes a safetensors file for the parameter tests, by hand (json + struct).

    write_safetensors.py OUT KEY=DTYPE:SHAPE:VALUES ...

SHAPE is `2x3` (or `-` for a 0-d tensor), VALUES a comma-separated list, one
per element or a single value repeated over the shape; DTYPE is safetensors'
(F32, F16, BF16, F64, I8, U8, I16, I32, I64, BOOL). The layout is the
format's: an 8-byte little-endian header length, the JSON header (each key's
dtype, shape and data_offsets in the data section) padded with spaces to 8
bytes, then the tensors' bytes back to back, little-endian, BOOL one byte per
element.
"""
import json
import math
import struct
import sys

FORMATS = {"F32": "f", "F16": "e", "F64": "d", "I8": "b", "U8": "B", "I16": "h",
           "I32": "i", "I64": "q", "BOOL": "?"}


def encode(dtype, values):
    if dtype == "BF16":
        # The upper half of the f32 (these tests use values bf16 holds exactly).
        return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:]
                        for v in map(float, values))
    code = FORMATS[dtype]
    if dtype.startswith("F"):
        parsed = [float(v) for v in values]
    elif dtype == "BOOL":
        parsed = [int(v) != 0 for v in values]
    else:
        parsed = [int(v) for v in values]
    return struct.pack("<%d%s" % (len(parsed), code), *parsed)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for spec in argv[2:]:
        key, _, rest = spec.partition("=")
        dtype, shape_text, values_text = rest.split(":", 2)
        shape = [] if shape_text == "-" else [int(d) for d in shape_text.split("x")]
        count = math.prod(shape)
        values = values_text.split(",") if values_text else []
        if len(values) == 1 and count != 1:
            values = values * count
        if len(values) != count:
            sys.exit("%s: %d values for shape %s" % (key, len(values), shape))
        payload = encode(dtype, values)
        header[key] = {"dtype": dtype, "shape": shape,
                       "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(argv[1], "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main(sys.argv)
