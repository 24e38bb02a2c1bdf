"""kiln: load and run kiln modules (.kmod) from Python, and compile MLIR to them.

    import numpy as np, kiln
    module = kiln.load_module("add.kmod")                  # device="cpu"
    module.add(np.ones(4, np.float32), np.ones(4, np.float32))   # -> numpy array

Functions take NumPy arrays (anything with the buffer protocol, or lists)
and Python numbers, and return NumPy arrays and Python numbers: None for no
result, a tuple for several. ``keep_on_device=True`` returns DeviceArrays
instead, which later calls take without a copy. DeviceArrays speak DLPack
both ways (``torch.from_dlpack(array)``, ``kiln.from_dlpack(tensor)``).
Every error kiln reports is a ``kiln.Error`` (a RuntimeError) with kiln's
message.

The package has two extension modules: ``kiln._runtime`` (the runtime:
base, vm, hal and its drivers) and ``kiln._compiler`` (the compiler on
MLIR). A runtime-only build has no ``_compiler``; ``kiln.compile`` then
raises ``kiln.Error``.
"""

import importlib.util as _importlib_util
import os as _os

from kiln import _runtime
from kiln._runtime import Error

try:
    from kiln import _compiler
except ImportError as _error:
    _compiler = None
    if _importlib_util.find_spec("kiln._compiler") is None:  # A runtime-only build.
        _compiler_missing = "the package has no kiln._compiler"
    else:  # There, but it does not load (its MLIR libraries are missing?).
        _compiler_missing = "kiln._compiler does not load: %s" % _error

DeviceArray = _runtime.DeviceArray
Device = _runtime.Device

__all__ = [
    "Device",
    "DeviceArray",
    "Error",
    "Function",
    "Module",
    "compile",
    "device",
    "from_dlpack",
    "has_compiler",
    "load_module",
]

# One Device per URI (and per the URI the driver reports: "cpu" and
# "cpu://0" are one device), so modules and arrays of one device share it.
_devices = {}


def _device_for(uri):
    if isinstance(uri, Device):
        return uri
    found = _devices.get(uri)
    if found is None:
        created = Device(uri)
        found = _devices.setdefault(created.uri, created)
        _devices[uri] = found
    return found


def device(uri="cpu"):
    """The kiln.Device ``uri`` names: "cpu", "cpu-sync", "cuda", "cuda://1", "vulkan".

    Created on first use and shared afterwards."""
    return _device_for(uri)


def _parameter_files(parameters):
    """[(scope, path)] from None, a path, {scope: path or [paths]} or [(scope, path)]."""
    if parameters is None:
        return []
    if isinstance(parameters, (str, bytes, _os.PathLike)):
        return [("", _os.fspath(parameters))]
    items = parameters.items() if isinstance(parameters, dict) else parameters
    files = []
    for scope, paths in items:
        if isinstance(paths, (str, bytes, _os.PathLike)):
            paths = [paths]
        for path in paths:
            files.append((scope, _os.fspath(path)))
    return files


class Function:
    """An exported function of a loaded module.

    ``f(*args, keep_on_device=False)``: the arguments in order (NumPy arrays,
    DeviceArrays, Python numbers); with ``keep_on_device=True`` tensor results
    are DeviceArrays that stay in the device's memory."""

    def __init__(self, module, native):
        self._module = module
        self._native = native

    @property
    def name(self):
        return self._native.name

    @property
    def signature(self):
        """"(tensor<4xf32>, i32) -> tensor<4xf32>", from the module's reflection."""
        return self._native.signature

    def __call__(self, *args, keep_on_device=False):
        return self._native.call(args, bool(keep_on_device))

    def __repr__(self):
        return "<kiln.Function @%s%s>" % (self.name, self.signature)


class Module:
    """A loaded .kmod on one device: its exports are attributes (and items)."""

    def __init__(self, program):
        self._program = program
        self._functions = {}

    @property
    def name(self):
        return self._program.name

    @property
    def exports(self):
        """The names of the exported functions, in the module's order."""
        return list(self._program.exports)

    @property
    def device(self):
        return self._program.device

    def __getitem__(self, name):
        function = self._functions.get(name)
        if function is None:
            function = Function(self, self._program.lookup(name))
            self._functions[name] = function
        return function

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except Error as error:
            raise AttributeError(str(error)) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.exports))

    def __repr__(self):
        return "<kiln.Module %s on %s: %s>" % (
            self.name, self.device.uri, ", ".join("@" + e for e in self.exports))


def load_module(module, device="cpu", parameters=None):
    """Loads a kiln module onto ``device`` and runs its initializer.

    ``module``: a .kmod path, or its bytes (what kiln.compile returns).
    ``parameters``: the external parameter files the program reads
    (#flow.parameter.named): {"model": "weights.safetensors"} (scope ->
    file, or a list of shard files), or one path for the empty scope; as
    kiln-run-module's --parameters=[scope=]FILE."""
    dev = _device_for(device)
    files = _parameter_files(parameters)
    if isinstance(module, (bytes, bytearray, memoryview)):
        program = _runtime.Program.load_bytes(dev, bytes(module), files)
    else:
        program = _runtime.Program.load_file(dev, _os.fspath(module), files)
    return Module(program)


def _dlpack_device_of(value):
    try:
        return tuple(value.__dlpack_device__())
    except AttributeError:
        raise Error("from_dlpack needs an object with __dlpack__ and __dlpack_device__, "
                    "got %s" % type(value).__name__) from None


_KDL_CPU, _KDL_CUDA = 1, 2


def from_dlpack(value, device=None):
    """A DeviceArray over ``value``'s memory, without a copy (DLPack).

    ``value``: a tensor of another framework with ``__dlpack__`` (a NumPy
    array, a PyTorch tensor on the CPU or on CUDA). ``device``: the kiln
    device to use it on; by default the one the memory belongs to ("cpu" for
    host memory, "cuda://N" for CUDA device N). The tensor must be
    C-contiguous. The array keeps ``value``'s memory alive; writes through
    either side are seen by the other."""
    if isinstance(value, DeviceArray):
        if device is None or _device_for(device) is value.device:
            return value
        raise Error("from_dlpack: the DeviceArray lives on %s, not %s (from_dlpack never copies)"
                    % (value.device.uri, device))
    device_type, device_id = _dlpack_device_of(value)
    if device is None:
        if device_type == _KDL_CPU:
            device = "cpu"
        elif device_type == _KDL_CUDA:
            device = "cuda://%d" % device_id
        else:
            raise Error("from_dlpack: kiln has no device for DLPack device type %d" % device_type)
    dev = _device_for(device)
    if device_type == _KDL_CUDA:
        # The producer orders its pending writes before CUDA's legacy default
        # stream, which kiln's import waits for (hal/allocator.h).
        capsule = value.__dlpack__(stream=1)
    else:
        capsule = value.__dlpack__()
    return _runtime.import_dlpack(dev, capsule)


def _array_dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule over this array's memory (no copy).

    kiln's calls finish their device work before returning, so the consumer's
    ``stream`` needs no wait. ``copy=True`` and a ``dl_device`` other than
    the array's are refused with BufferError, as the array API says."""
    if copy:
        raise BufferError("kiln.DeviceArray exports its memory without copies (copy=True)")
    if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
        raise BufferError("kiln.DeviceArray lives on DLPack device %r, not %r"
                          % (self.__dlpack_device__(), tuple(dl_device)))
    return self._export_dlpack()


def _array_dlpack_device(self):
    """DLPack's (device_type, device_id): (1, 0) on the cpu, (2, N) on cuda://N."""
    return tuple(self.device.dlpack_device())


def _array_array(self, dtype=None, copy=None):
    """numpy.asarray(array): a NumPy copy of the contents."""
    array = self.numpy()
    return array if dtype is None else array.astype(dtype, copy=False)


DeviceArray.__dlpack__ = _array_dlpack
DeviceArray.__dlpack_device__ = _array_dlpack_device
DeviceArray.__array__ = _array_array


def has_compiler():
    """Whether this build of kiln has the compiler (kiln._compiler)."""
    return _compiler is not None


def compile(source, targets=None, object_search_paths=(), module_name="",
            debug_locations=True, library_calls=True, allow_tf32=False,
            memoize_command_buffers=True):
    """Compiles MLIR (kiln's input dialects) to a .kmod, in this process; returns its bytes.

    ``source``: MLIR text, or the path of a .mlir file. ``targets``: a list of
    kiln's or IREE's target names ("llvm-cpu"/"cpu", "cuda",
    "vulkan-spirv"/"vulkan"); None: the module's own hal.device.targets,
    else every target it declares. The other options are kiln-compile's
    flags of the same names. Errors (parse, verification, lowering) are
    kiln.Error with MLIR's ``file:line:col: error: ...`` text."""
    if _compiler is None:
        raise Error("this build of kiln has no compiler (%s); compile with kiln-compile or a "
                    "full build of kiln and load the .kmod" % _compiler_missing)
    if isinstance(targets, str):
        targets = [targets]
    if isinstance(source, _os.PathLike) or (isinstance(source, str) and "\n" not in source
                                            and _os.path.isfile(source)):
        path = _os.fspath(source)
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    else:
        path, text = "<source>", source
    search_paths = [_os.fspath(p) for p in object_search_paths]
    return _compiler.compile(text, path, list(targets or []), search_paths, module_name,
                             bool(debug_locations), bool(library_calls), bool(allow_tf32),
                             bool(memoize_command_buffers))
