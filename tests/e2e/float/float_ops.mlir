// Float arithmetic at f32 and f64: addf subf mulf divf remf (fmod: the sign
// of the dividend) maximumf minimumf (NaN-propagating, -0 < +0) negf, with
// results rounded to the type (0.1 + 0.2 is 0.3 in f32 but
// 0.30000000000000004 in f64), division by zero giving infinities, overflow
// to inf. NaN results print as nan or -nan (the sign of a NaN is not specified).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=0.1 --input=f32=0.2 | FileCheck %s --check-prefix=F32_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=1.5 --input=f32=-2.25 | FileCheck %s --check-prefix=F32_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=1 --input=f32=0 | FileCheck %s --check-prefix=F32_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=-1 --input=f32=0 | FileCheck %s --check-prefix=F32_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=-5.5 --input=f32=2 | FileCheck %s --check-prefix=F32_4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=3 --input=f32=7 | FileCheck %s --check-prefix=F32_5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=-0 --input=f32=0 | FileCheck %s --check-prefix=F32_6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=nan --input=f32=1 | FileCheck %s --check-prefix=F32_7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=1e30 --input=f32=1e30 | FileCheck %s --check-prefix=F32_8 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32 --input=f32=inf --input=f32=-inf | FileCheck %s --check-prefix=F32_9 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f32_folded | FileCheck %s --check-prefix=F32_F --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=0.1 --input=f64=0.2 | FileCheck %s --check-prefix=F64_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=1.5 --input=f64=-2.25 | FileCheck %s --check-prefix=F64_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=1 --input=f64=0 | FileCheck %s --check-prefix=F64_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=-1 --input=f64=0 | FileCheck %s --check-prefix=F64_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=-5.5 --input=f64=2 | FileCheck %s --check-prefix=F64_4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=3 --input=f64=7 | FileCheck %s --check-prefix=F64_5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=-0 --input=f64=0 | FileCheck %s --check-prefix=F64_6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=nan --input=f64=1 | FileCheck %s --check-prefix=F64_7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=1e300 --input=f64=1e300 | FileCheck %s --check-prefix=F64_8 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64 --input=f64=inf --input=f64=-inf | FileCheck %s --check-prefix=F64_9 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fops_f64_folded | FileCheck %s --check-prefix=F64_F --match-full-lines

// F32_0: EXEC @fops_f32
// F32_0-NEXT: result[0]: f32=0.3
// F32_0-NEXT: result[1]: f32=-0.1
// F32_0-NEXT: result[2]: f32=0.020000001
// F32_0-NEXT: result[3]: f32=0.5
// F32_0-NEXT: result[4]: f32=0.1
// F32_0-NEXT: result[5]: f32=0.2
// F32_0-NEXT: result[6]: f32=0.1
// F32_0-NEXT: result[7]: f32=-0.1

// F32_1: EXEC @fops_f32
// F32_1-NEXT: result[0]: f32=-0.75
// F32_1-NEXT: result[1]: f32=3.75
// F32_1-NEXT: result[2]: f32=-3.375
// F32_1-NEXT: result[3]: f32=-0.6666667
// F32_1-NEXT: result[4]: f32=1.5
// F32_1-NEXT: result[5]: f32=1.5
// F32_1-NEXT: result[6]: f32=-2.25
// F32_1-NEXT: result[7]: f32=-1.5

// F32_2: EXEC @fops_f32
// F32_2-NEXT: result[0]: f32=1
// F32_2-NEXT: result[1]: f32=1
// F32_2-NEXT: result[2]: f32=0
// F32_2-NEXT: result[3]: f32=inf
// F32_2-NEXT: result[4]: f32={{-?nan}}
// F32_2-NEXT: result[5]: f32=1
// F32_2-NEXT: result[6]: f32=0
// F32_2-NEXT: result[7]: f32=-1

// F32_3: EXEC @fops_f32
// F32_3-NEXT: result[0]: f32=-1
// F32_3-NEXT: result[1]: f32=-1
// F32_3-NEXT: result[2]: f32=-0
// F32_3-NEXT: result[3]: f32=-inf
// F32_3-NEXT: result[4]: f32={{-?nan}}
// F32_3-NEXT: result[5]: f32=0
// F32_3-NEXT: result[6]: f32=-1
// F32_3-NEXT: result[7]: f32=1

// F32_4: EXEC @fops_f32
// F32_4-NEXT: result[0]: f32=-3.5
// F32_4-NEXT: result[1]: f32=-7.5
// F32_4-NEXT: result[2]: f32=-11
// F32_4-NEXT: result[3]: f32=-2.75
// F32_4-NEXT: result[4]: f32=-1.5
// F32_4-NEXT: result[5]: f32=2
// F32_4-NEXT: result[6]: f32=-5.5
// F32_4-NEXT: result[7]: f32=5.5

// F32_5: EXEC @fops_f32
// F32_5-NEXT: result[0]: f32=10
// F32_5-NEXT: result[1]: f32=-4
// F32_5-NEXT: result[2]: f32=21
// F32_5-NEXT: result[3]: f32=0.42857143
// F32_5-NEXT: result[4]: f32=3
// F32_5-NEXT: result[5]: f32=7
// F32_5-NEXT: result[6]: f32=3
// F32_5-NEXT: result[7]: f32=-3

// F32_6: EXEC @fops_f32
// F32_6-NEXT: result[0]: f32=0
// F32_6-NEXT: result[1]: f32=-0
// F32_6-NEXT: result[2]: f32=-0
// F32_6-NEXT: result[3]: f32={{-?nan}}
// F32_6-NEXT: result[4]: f32={{-?nan}}
// F32_6-NEXT: result[5]: f32=0
// F32_6-NEXT: result[6]: f32=-0
// F32_6-NEXT: result[7]: f32=0

// F32_7: EXEC @fops_f32
// F32_7-NEXT: result[0]: f32={{-?nan}}
// F32_7-NEXT: result[1]: f32={{-?nan}}
// F32_7-NEXT: result[2]: f32={{-?nan}}
// F32_7-NEXT: result[3]: f32={{-?nan}}
// F32_7-NEXT: result[4]: f32={{-?nan}}
// F32_7-NEXT: result[5]: f32={{-?nan}}
// F32_7-NEXT: result[6]: f32={{-?nan}}
// F32_7-NEXT: result[7]: f32={{-?nan}}

// F32_8: EXEC @fops_f32
// F32_8-NEXT: result[0]: f32=2e+30
// F32_8-NEXT: result[1]: f32=0
// F32_8-NEXT: result[2]: f32=inf
// F32_8-NEXT: result[3]: f32=1
// F32_8-NEXT: result[4]: f32=0
// F32_8-NEXT: result[5]: f32=1e+30
// F32_8-NEXT: result[6]: f32=1e+30
// F32_8-NEXT: result[7]: f32=-1e+30

// F32_9: EXEC @fops_f32
// F32_9-NEXT: result[0]: f32={{-?nan}}
// F32_9-NEXT: result[1]: f32=inf
// F32_9-NEXT: result[2]: f32=-inf
// F32_9-NEXT: result[3]: f32={{-?nan}}
// F32_9-NEXT: result[4]: f32={{-?nan}}
// F32_9-NEXT: result[5]: f32=inf
// F32_9-NEXT: result[6]: f32=-inf
// F32_9-NEXT: result[7]: f32=-inf

// F32_F: EXEC @fops_f32_folded
// F32_F-NEXT: result[0]: f32=0.3
// F32_F-NEXT: result[1]: f32=-0.1
// F32_F-NEXT: result[2]: f32=0.020000001
// F32_F-NEXT: result[3]: f32=0.5
// F32_F-NEXT: result[4]: f32=0.1
// F32_F-NEXT: result[5]: f32=0.2
// F32_F-NEXT: result[6]: f32=0.1
// F32_F-NEXT: result[7]: f32=-0.1

// F64_0: EXEC @fops_f64
// F64_0-NEXT: result[0]: f64=0.30000000000000004
// F64_0-NEXT: result[1]: f64=-0.1
// F64_0-NEXT: result[2]: f64=0.020000000000000004
// F64_0-NEXT: result[3]: f64=0.5
// F64_0-NEXT: result[4]: f64=0.1
// F64_0-NEXT: result[5]: f64=0.2
// F64_0-NEXT: result[6]: f64=0.1
// F64_0-NEXT: result[7]: f64=-0.1

// F64_1: EXEC @fops_f64
// F64_1-NEXT: result[0]: f64=-0.75
// F64_1-NEXT: result[1]: f64=3.75
// F64_1-NEXT: result[2]: f64=-3.375
// F64_1-NEXT: result[3]: f64=-0.6666666666666666
// F64_1-NEXT: result[4]: f64=1.5
// F64_1-NEXT: result[5]: f64=1.5
// F64_1-NEXT: result[6]: f64=-2.25
// F64_1-NEXT: result[7]: f64=-1.5

// F64_2: EXEC @fops_f64
// F64_2-NEXT: result[0]: f64=1
// F64_2-NEXT: result[1]: f64=1
// F64_2-NEXT: result[2]: f64=0
// F64_2-NEXT: result[3]: f64=inf
// F64_2-NEXT: result[4]: f64={{-?nan}}
// F64_2-NEXT: result[5]: f64=1
// F64_2-NEXT: result[6]: f64=0
// F64_2-NEXT: result[7]: f64=-1

// F64_3: EXEC @fops_f64
// F64_3-NEXT: result[0]: f64=-1
// F64_3-NEXT: result[1]: f64=-1
// F64_3-NEXT: result[2]: f64=-0
// F64_3-NEXT: result[3]: f64=-inf
// F64_3-NEXT: result[4]: f64={{-?nan}}
// F64_3-NEXT: result[5]: f64=0
// F64_3-NEXT: result[6]: f64=-1
// F64_3-NEXT: result[7]: f64=1

// F64_4: EXEC @fops_f64
// F64_4-NEXT: result[0]: f64=-3.5
// F64_4-NEXT: result[1]: f64=-7.5
// F64_4-NEXT: result[2]: f64=-11
// F64_4-NEXT: result[3]: f64=-2.75
// F64_4-NEXT: result[4]: f64=-1.5
// F64_4-NEXT: result[5]: f64=2
// F64_4-NEXT: result[6]: f64=-5.5
// F64_4-NEXT: result[7]: f64=5.5

// F64_5: EXEC @fops_f64
// F64_5-NEXT: result[0]: f64=10
// F64_5-NEXT: result[1]: f64=-4
// F64_5-NEXT: result[2]: f64=21
// F64_5-NEXT: result[3]: f64=0.42857142857142855
// F64_5-NEXT: result[4]: f64=3
// F64_5-NEXT: result[5]: f64=7
// F64_5-NEXT: result[6]: f64=3
// F64_5-NEXT: result[7]: f64=-3

// F64_6: EXEC @fops_f64
// F64_6-NEXT: result[0]: f64=0
// F64_6-NEXT: result[1]: f64=-0
// F64_6-NEXT: result[2]: f64=-0
// F64_6-NEXT: result[3]: f64={{-?nan}}
// F64_6-NEXT: result[4]: f64={{-?nan}}
// F64_6-NEXT: result[5]: f64=0
// F64_6-NEXT: result[6]: f64=-0
// F64_6-NEXT: result[7]: f64=0

// F64_7: EXEC @fops_f64
// F64_7-NEXT: result[0]: f64={{-?nan}}
// F64_7-NEXT: result[1]: f64={{-?nan}}
// F64_7-NEXT: result[2]: f64={{-?nan}}
// F64_7-NEXT: result[3]: f64={{-?nan}}
// F64_7-NEXT: result[4]: f64={{-?nan}}
// F64_7-NEXT: result[5]: f64={{-?nan}}
// F64_7-NEXT: result[6]: f64={{-?nan}}
// F64_7-NEXT: result[7]: f64={{-?nan}}

// F64_8: EXEC @fops_f64
// F64_8-NEXT: result[0]: f64=2e+300
// F64_8-NEXT: result[1]: f64=0
// F64_8-NEXT: result[2]: f64=inf
// F64_8-NEXT: result[3]: f64=1
// F64_8-NEXT: result[4]: f64=0
// F64_8-NEXT: result[5]: f64=1e+300
// F64_8-NEXT: result[6]: f64=1e+300
// F64_8-NEXT: result[7]: f64=-1e+300

// F64_9: EXEC @fops_f64
// F64_9-NEXT: result[0]: f64={{-?nan}}
// F64_9-NEXT: result[1]: f64=inf
// F64_9-NEXT: result[2]: f64=-inf
// F64_9-NEXT: result[3]: f64={{-?nan}}
// F64_9-NEXT: result[4]: f64={{-?nan}}
// F64_9-NEXT: result[5]: f64=inf
// F64_9-NEXT: result[6]: f64=-inf
// F64_9-NEXT: result[7]: f64=-inf

// F64_F: EXEC @fops_f64_folded
// F64_F-NEXT: result[0]: f64=0.30000000000000004
// F64_F-NEXT: result[1]: f64=-0.1
// F64_F-NEXT: result[2]: f64=0.020000000000000004
// F64_F-NEXT: result[3]: f64=0.5
// F64_F-NEXT: result[4]: f64=0.1
// F64_F-NEXT: result[5]: f64=0.2
// F64_F-NEXT: result[6]: f64=0.1
// F64_F-NEXT: result[7]: f64=-0.1

func.func @fops_f32(%a: f32, %b: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
  %addf = arith.addf %a, %b : f32
  %subf = arith.subf %a, %b : f32
  %mulf = arith.mulf %a, %b : f32
  %divf = arith.divf %a, %b : f32
  %remf = arith.remf %a, %b : f32
  %maximumf = arith.maximumf %a, %b : f32
  %minimumf = arith.minimumf %a, %b : f32
  %negf = arith.negf %a : f32
  return %addf, %subf, %mulf, %divf, %remf, %maximumf, %minimumf, %negf : f32, f32, f32, f32, f32, f32, f32, f32
}

// The same on constants (folded): 0.1 and 0.2, rounded to f32 first.
func.func @fops_f32_folded() -> (f32, f32, f32, f32, f32, f32, f32, f32) {
  %a = arith.constant 0.1 : f32
  %b = arith.constant 0.2 : f32
  %addf = arith.addf %a, %b : f32
  %subf = arith.subf %a, %b : f32
  %mulf = arith.mulf %a, %b : f32
  %divf = arith.divf %a, %b : f32
  %remf = arith.remf %a, %b : f32
  %maximumf = arith.maximumf %a, %b : f32
  %minimumf = arith.minimumf %a, %b : f32
  %negf = arith.negf %a : f32
  return %addf, %subf, %mulf, %divf, %remf, %maximumf, %minimumf, %negf : f32, f32, f32, f32, f32, f32, f32, f32
}

func.func @fops_f64(%a: f64, %b: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
  %addf = arith.addf %a, %b : f64
  %subf = arith.subf %a, %b : f64
  %mulf = arith.mulf %a, %b : f64
  %divf = arith.divf %a, %b : f64
  %remf = arith.remf %a, %b : f64
  %maximumf = arith.maximumf %a, %b : f64
  %minimumf = arith.minimumf %a, %b : f64
  %negf = arith.negf %a : f64
  return %addf, %subf, %mulf, %divf, %remf, %maximumf, %minimumf, %negf : f64, f64, f64, f64, f64, f64, f64, f64
}

// The same on constants (folded): 0.1 and 0.2, rounded to f64 first.
func.func @fops_f64_folded() -> (f64, f64, f64, f64, f64, f64, f64, f64) {
  %a = arith.constant 0.1 : f64
  %b = arith.constant 0.2 : f64
  %addf = arith.addf %a, %b : f64
  %subf = arith.subf %a, %b : f64
  %mulf = arith.mulf %a, %b : f64
  %divf = arith.divf %a, %b : f64
  %remf = arith.remf %a, %b : f64
  %maximumf = arith.maximumf %a, %b : f64
  %minimumf = arith.minimumf %a, %b : f64
  %negf = arith.negf %a : f64
  return %addf, %subf, %mulf, %divf, %remf, %maximumf, %minimumf, %negf : f64, f64, f64, f64, f64, f64, f64, f64
}
