"""What the kiln Python suites share: where the test programs are, safetensors files."""

import json
import os
import struct

import numpy as np


def module_path(name):
    """The .kmod `name` that the build compiled from programs/ (KILN_PYTHON_TEST_MODULES)."""
    directory = os.environ.get("KILN_PYTHON_TEST_MODULES")
    if not directory:
        raise RuntimeError("KILN_PYTHON_TEST_MODULES is not set (run the suites through ctest)")
    return os.path.join(directory, name + ".kmod")


def program_source(name):
    """The text of programs/<name>.mlir."""
    with open(os.path.join(os.path.dirname(__file__), "programs", name + ".mlir")) as f:
        return f.read()


_SAFETENSORS_DTYPES = {np.dtype("float32"): "F32", np.dtype("float16"): "F16",
                       np.dtype("int64"): "I64", np.dtype("int32"): "I32"}


def write_safetensors(path, tensors):
    """Writes {key: numpy array} as a safetensors file (header length, JSON header, data)."""
    header, data = {}, b""
    for key, array in tensors.items():
        array = np.ascontiguousarray(array)
        raw = array.tobytes()
        header[key] = {"dtype": _SAFETENSORS_DTYPES[array.dtype], "shape": list(array.shape),
                       "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)
