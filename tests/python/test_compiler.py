"""kiln.compile: MLIR to .kmod bytes in this process, its errors, and the
package without its compiler extension (the runtime-only build)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import kiln
from support import program_source

_ADD = """
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.addf %a, %b : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


class CompileTest(unittest.TestCase):
    def test_source_text_to_module(self):
        self.assertTrue(kiln.has_compiler())
        kmod = kiln.compile(_ADD, targets=["llvm-cpu"])
        self.assertIsInstance(kmod, bytes)
        module = kiln.load_module(kmod)
        np.testing.assert_array_equal(module.add([1, 2], [3, 4]), [4, 6])

    def test_path_to_module(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "basics.mlir")
            with open(path, "w") as f:
                f.write(program_source("basics"))
            module = kiln.load_module(kiln.compile(path, targets="llvm-cpu"))
            self.assertIn("sum_and_product", module.exports)
            self.assertEqual(module.scalars(1, 2, 3.0, 4.0), (3, 12.0))

    def test_module_name(self):
        module = kiln.load_module(kiln.compile(_ADD, targets=["cpu"], module_name="adder"))
        self.assertEqual(module.name, "adder")

    def test_error_has_location(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.compile("func.func @f() {\n  %0 = arith.addf %x, %x : f32\n}\n",
                         targets=["llvm-cpu"])
        message = str(raised.exception)
        self.assertRegex(message, r"<source>:2:\d+: error: ")
        self.assertEqual(raised.exception.code, "INVALID_ARGUMENT")

    def test_error_names_the_file(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "broken.mlir")
            with open(path, "w") as f:
                f.write("func.func @f( {\n")
            with self.assertRaises(kiln.Error) as raised:
                kiln.compile(path)
            self.assertRegex(str(raised.exception), re.escape(path) + r":\d+:\d+: error: ")

    def test_unknown_target(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.compile(_ADD, targets=["tpu"])
        self.assertIn("tpu", str(raised.exception))


class WithoutCompilerTest(unittest.TestCase):
    def test_compile_says_there_is_no_compiler(self):
        # A build without kiln._compiler: the import fails, the package loads.
        script = (
            "import sys\n"
            "sys.modules['kiln._compiler'] = None\n"
            "import kiln\n"
            "assert not kiln.has_compiler()\n"
            "try:\n"
            "    kiln.compile('func.func @f() { return }')\n"
            "except kiln.Error as error:\n"
            "    print(error)\n")
        output = subprocess.run([sys.executable, "-c", script], check=True,
                                capture_output=True, text=True).stdout
        self.assertIn("this build of kiln has no compiler", output)


if __name__ == "__main__":
    unittest.main()
