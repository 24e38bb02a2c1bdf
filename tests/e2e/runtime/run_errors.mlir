// kiln-run-module's errors: each is one `error: ...` line on stderr, nothing
// on stdout, and a non-zero exit (`not` fails on a crash as well). Each error
// check ends in {{.*}} so that the -NOT check sees only the following lines.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: not %kiln-run-module --module=%t.kmod --function=add --input=1 --input=2 --input=3 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not %kiln-run-module --module=%t.kmod --function=add --input=1 2>&1 | FileCheck %s --check-prefix=TOO_FEW
// RUN: not %kiln-run-module --module=%t.kmod --function=add --input=f32=1.5 --input=2 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not %kiln-run-module --module=%t.kmod --function=add --input=abc --input=2 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not %kiln-run-module --module=%t.kmod --function=add --input=i32=4294967296 --input=2 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not %kiln-run-module --module=%t.kmod --function=nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %kiln-run-module --module=%t.does-not-exist.kmod --function=add 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: head -c 100 %t.kmod > %t.bad
// RUN: not %kiln-run-module --module=%t.bad --function=add 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: not %kiln-run-module --module=%s --function=add 2>&1 | FileCheck %s --check-prefix=NOT_A_MODULE

// COUNT: {{^}}error: {{.*}}2 input{{.*}}3{{.*}}
// COUNT-NOT: {{.}}
// TOO_FEW: {{^}}error: {{.*}}2 input{{.*}}1{{.*}}
// TOO_FEW-NOT: {{.}}
// TYPE: {{^}}error: {{.*}}f32{{.*}}i32{{.*}}
// TYPE-NOT: {{.}}
// SYNTAX: {{^}}error: {{.*}}abc{{.*}}
// SYNTAX-NOT: {{.}}
// RANGE: {{^}}error: {{.*}}4294967296{{.*}}range{{.*}}
// RANGE-NOT: {{.}}
// UNKNOWN: {{^}}error: {{.*}}nope{{.*}}
// UNKNOWN-NOT: {{.}}
// MISSING: {{^}}error: {{.*}}does-not-exist.kmod{{.*}}
// MISSING-NOT: {{.}}
// CORRUPT: {{^}}error: {{.+}}{{.*}}
// CORRUPT-NOT: {{.}}
// NOT_A_MODULE: {{^}}error: {{.+}}{{.*}}
// NOT_A_MODULE-NOT: {{.}}
func.func @add(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b : i32
  return %s : i32
}
