// kiln-run-module --expected_output: matching results exit 0, a mismatch
// (wrong value, or a float outside the tolerance) exits non-zero and names the
// result; f32 values compare within 1e-5 relative.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=pair --input=20 --expected_output=i32=400 --expected_output=f32=0.5 | FileCheck %s --check-prefix=MATCH
// RUN: %kiln-run-module --module=%t.kmod --function=pair --input=20 --expected_output=400 --expected_output=f32=0.500001
// RUN: not %kiln-run-module --module=%t.kmod --function=pair --input=20 --expected_output=i32=401 --expected_output=f32=0.5 | FileCheck %s --check-prefix=MISMATCH
// RUN: not %kiln-run-module --module=%t.kmod --function=pair --input=20 --expected_output=i32=400 --expected_output=f32=0.6 | FileCheck %s --check-prefix=FLOAT
// RUN: not %kiln-run-module --module=%t.kmod --function=pair --input=20 --expected_output=i32=400 2>&1 | FileCheck %s --check-prefix=COUNT

// MATCH: EXEC @pair
// MATCH-NEXT: result[0]: i32=400
// MATCH-NEXT: result[1]: f32=0.5
// MATCH-NOT: FAILED

// MISMATCH: result[0]: i32=400
// MISMATCH: {{.*}}result[0]{{.*}}401{{.*}}400
// FLOAT: {{.*}}result[1]{{.*}}0.6{{.*}}0.5

// COUNT: error: {{.*}}2 result

func.func @pair(%n: i32) -> (i32, f32) {
  %sq = arith.muli %n, %n : i32
  %half = arith.constant 0.5 : f32
  return %sq, %half : i32, f32
}
