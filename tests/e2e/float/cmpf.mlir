// arith.cmpf with all sixteen predicates at f32 and f64. Ordered predicates
// are false when either operand is NaN, unordered ones true; -0 == +0.
// NaN comes in through --input=f32=nan here (see cmpf_nan.mlir for NaN made
// at run time and from a hex constant).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=1 --input=f32=2 | FileCheck %s --check-prefix=F32_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=2 --input=f32=2 | FileCheck %s --check-prefix=F32_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=2 --input=f32=1 | FileCheck %s --check-prefix=F32_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=nan --input=f32=1 | FileCheck %s --check-prefix=F32_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=1 --input=f32=nan | FileCheck %s --check-prefix=F32_4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=nan --input=f32=nan | FileCheck %s --check-prefix=F32_5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=-0 --input=f32=0 | FileCheck %s --check-prefix=F32_6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f32 --input=f32=-inf --input=f32=inf | FileCheck %s --check-prefix=F32_7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=1 --input=f64=2 | FileCheck %s --check-prefix=F64_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=2 --input=f64=2 | FileCheck %s --check-prefix=F64_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=2 --input=f64=1 | FileCheck %s --check-prefix=F64_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=nan --input=f64=1 | FileCheck %s --check-prefix=F64_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=1 --input=f64=nan | FileCheck %s --check-prefix=F64_4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=nan --input=f64=nan | FileCheck %s --check-prefix=F64_5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=-0 --input=f64=0 | FileCheck %s --check-prefix=F64_6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpf_f64 --input=f64=-inf --input=f64=inf | FileCheck %s --check-prefix=F64_7 --match-full-lines

// F32_0: EXEC @cmpf_f32
// F32_0-NEXT: result[0]: i32=0
// F32_0-NEXT: result[1]: i32=0
// F32_0-NEXT: result[2]: i32=0
// F32_0-NEXT: result[3]: i32=0
// F32_0-NEXT: result[4]: i32=1
// F32_0-NEXT: result[5]: i32=1
// F32_0-NEXT: result[6]: i32=1
// F32_0-NEXT: result[7]: i32=1
// F32_0-NEXT: result[8]: i32=0
// F32_0-NEXT: result[9]: i32=0
// F32_0-NEXT: result[10]: i32=0
// F32_0-NEXT: result[11]: i32=1
// F32_0-NEXT: result[12]: i32=1
// F32_0-NEXT: result[13]: i32=1
// F32_0-NEXT: result[14]: i32=0
// F32_0-NEXT: result[15]: i32=1

// F32_1: EXEC @cmpf_f32
// F32_1-NEXT: result[0]: i32=0
// F32_1-NEXT: result[1]: i32=1
// F32_1-NEXT: result[2]: i32=0
// F32_1-NEXT: result[3]: i32=1
// F32_1-NEXT: result[4]: i32=0
// F32_1-NEXT: result[5]: i32=1
// F32_1-NEXT: result[6]: i32=0
// F32_1-NEXT: result[7]: i32=1
// F32_1-NEXT: result[8]: i32=1
// F32_1-NEXT: result[9]: i32=0
// F32_1-NEXT: result[10]: i32=1
// F32_1-NEXT: result[11]: i32=0
// F32_1-NEXT: result[12]: i32=1
// F32_1-NEXT: result[13]: i32=0
// F32_1-NEXT: result[14]: i32=0
// F32_1-NEXT: result[15]: i32=1

// F32_2: EXEC @cmpf_f32
// F32_2-NEXT: result[0]: i32=0
// F32_2-NEXT: result[1]: i32=0
// F32_2-NEXT: result[2]: i32=1
// F32_2-NEXT: result[3]: i32=1
// F32_2-NEXT: result[4]: i32=0
// F32_2-NEXT: result[5]: i32=0
// F32_2-NEXT: result[6]: i32=1
// F32_2-NEXT: result[7]: i32=1
// F32_2-NEXT: result[8]: i32=0
// F32_2-NEXT: result[9]: i32=1
// F32_2-NEXT: result[10]: i32=1
// F32_2-NEXT: result[11]: i32=0
// F32_2-NEXT: result[12]: i32=0
// F32_2-NEXT: result[13]: i32=1
// F32_2-NEXT: result[14]: i32=0
// F32_2-NEXT: result[15]: i32=1

// F32_3: EXEC @cmpf_f32
// F32_3-NEXT: result[0]: i32=0
// F32_3-NEXT: result[1]: i32=0
// F32_3-NEXT: result[2]: i32=0
// F32_3-NEXT: result[3]: i32=0
// F32_3-NEXT: result[4]: i32=0
// F32_3-NEXT: result[5]: i32=0
// F32_3-NEXT: result[6]: i32=0
// F32_3-NEXT: result[7]: i32=0
// F32_3-NEXT: result[8]: i32=1
// F32_3-NEXT: result[9]: i32=1
// F32_3-NEXT: result[10]: i32=1
// F32_3-NEXT: result[11]: i32=1
// F32_3-NEXT: result[12]: i32=1
// F32_3-NEXT: result[13]: i32=1
// F32_3-NEXT: result[14]: i32=1
// F32_3-NEXT: result[15]: i32=1

// F32_4: EXEC @cmpf_f32
// F32_4-NEXT: result[0]: i32=0
// F32_4-NEXT: result[1]: i32=0
// F32_4-NEXT: result[2]: i32=0
// F32_4-NEXT: result[3]: i32=0
// F32_4-NEXT: result[4]: i32=0
// F32_4-NEXT: result[5]: i32=0
// F32_4-NEXT: result[6]: i32=0
// F32_4-NEXT: result[7]: i32=0
// F32_4-NEXT: result[8]: i32=1
// F32_4-NEXT: result[9]: i32=1
// F32_4-NEXT: result[10]: i32=1
// F32_4-NEXT: result[11]: i32=1
// F32_4-NEXT: result[12]: i32=1
// F32_4-NEXT: result[13]: i32=1
// F32_4-NEXT: result[14]: i32=1
// F32_4-NEXT: result[15]: i32=1

// F32_5: EXEC @cmpf_f32
// F32_5-NEXT: result[0]: i32=0
// F32_5-NEXT: result[1]: i32=0
// F32_5-NEXT: result[2]: i32=0
// F32_5-NEXT: result[3]: i32=0
// F32_5-NEXT: result[4]: i32=0
// F32_5-NEXT: result[5]: i32=0
// F32_5-NEXT: result[6]: i32=0
// F32_5-NEXT: result[7]: i32=0
// F32_5-NEXT: result[8]: i32=1
// F32_5-NEXT: result[9]: i32=1
// F32_5-NEXT: result[10]: i32=1
// F32_5-NEXT: result[11]: i32=1
// F32_5-NEXT: result[12]: i32=1
// F32_5-NEXT: result[13]: i32=1
// F32_5-NEXT: result[14]: i32=1
// F32_5-NEXT: result[15]: i32=1

// F32_6: EXEC @cmpf_f32
// F32_6-NEXT: result[0]: i32=0
// F32_6-NEXT: result[1]: i32=1
// F32_6-NEXT: result[2]: i32=0
// F32_6-NEXT: result[3]: i32=1
// F32_6-NEXT: result[4]: i32=0
// F32_6-NEXT: result[5]: i32=1
// F32_6-NEXT: result[6]: i32=0
// F32_6-NEXT: result[7]: i32=1
// F32_6-NEXT: result[8]: i32=1
// F32_6-NEXT: result[9]: i32=0
// F32_6-NEXT: result[10]: i32=1
// F32_6-NEXT: result[11]: i32=0
// F32_6-NEXT: result[12]: i32=1
// F32_6-NEXT: result[13]: i32=0
// F32_6-NEXT: result[14]: i32=0
// F32_6-NEXT: result[15]: i32=1

// F32_7: EXEC @cmpf_f32
// F32_7-NEXT: result[0]: i32=0
// F32_7-NEXT: result[1]: i32=0
// F32_7-NEXT: result[2]: i32=0
// F32_7-NEXT: result[3]: i32=0
// F32_7-NEXT: result[4]: i32=1
// F32_7-NEXT: result[5]: i32=1
// F32_7-NEXT: result[6]: i32=1
// F32_7-NEXT: result[7]: i32=1
// F32_7-NEXT: result[8]: i32=0
// F32_7-NEXT: result[9]: i32=0
// F32_7-NEXT: result[10]: i32=0
// F32_7-NEXT: result[11]: i32=1
// F32_7-NEXT: result[12]: i32=1
// F32_7-NEXT: result[13]: i32=1
// F32_7-NEXT: result[14]: i32=0
// F32_7-NEXT: result[15]: i32=1

// F64_0: EXEC @cmpf_f64
// F64_0-NEXT: result[0]: i32=0
// F64_0-NEXT: result[1]: i32=0
// F64_0-NEXT: result[2]: i32=0
// F64_0-NEXT: result[3]: i32=0
// F64_0-NEXT: result[4]: i32=1
// F64_0-NEXT: result[5]: i32=1
// F64_0-NEXT: result[6]: i32=1
// F64_0-NEXT: result[7]: i32=1
// F64_0-NEXT: result[8]: i32=0
// F64_0-NEXT: result[9]: i32=0
// F64_0-NEXT: result[10]: i32=0
// F64_0-NEXT: result[11]: i32=1
// F64_0-NEXT: result[12]: i32=1
// F64_0-NEXT: result[13]: i32=1
// F64_0-NEXT: result[14]: i32=0
// F64_0-NEXT: result[15]: i32=1

// F64_1: EXEC @cmpf_f64
// F64_1-NEXT: result[0]: i32=0
// F64_1-NEXT: result[1]: i32=1
// F64_1-NEXT: result[2]: i32=0
// F64_1-NEXT: result[3]: i32=1
// F64_1-NEXT: result[4]: i32=0
// F64_1-NEXT: result[5]: i32=1
// F64_1-NEXT: result[6]: i32=0
// F64_1-NEXT: result[7]: i32=1
// F64_1-NEXT: result[8]: i32=1
// F64_1-NEXT: result[9]: i32=0
// F64_1-NEXT: result[10]: i32=1
// F64_1-NEXT: result[11]: i32=0
// F64_1-NEXT: result[12]: i32=1
// F64_1-NEXT: result[13]: i32=0
// F64_1-NEXT: result[14]: i32=0
// F64_1-NEXT: result[15]: i32=1

// F64_2: EXEC @cmpf_f64
// F64_2-NEXT: result[0]: i32=0
// F64_2-NEXT: result[1]: i32=0
// F64_2-NEXT: result[2]: i32=1
// F64_2-NEXT: result[3]: i32=1
// F64_2-NEXT: result[4]: i32=0
// F64_2-NEXT: result[5]: i32=0
// F64_2-NEXT: result[6]: i32=1
// F64_2-NEXT: result[7]: i32=1
// F64_2-NEXT: result[8]: i32=0
// F64_2-NEXT: result[9]: i32=1
// F64_2-NEXT: result[10]: i32=1
// F64_2-NEXT: result[11]: i32=0
// F64_2-NEXT: result[12]: i32=0
// F64_2-NEXT: result[13]: i32=1
// F64_2-NEXT: result[14]: i32=0
// F64_2-NEXT: result[15]: i32=1

// F64_3: EXEC @cmpf_f64
// F64_3-NEXT: result[0]: i32=0
// F64_3-NEXT: result[1]: i32=0
// F64_3-NEXT: result[2]: i32=0
// F64_3-NEXT: result[3]: i32=0
// F64_3-NEXT: result[4]: i32=0
// F64_3-NEXT: result[5]: i32=0
// F64_3-NEXT: result[6]: i32=0
// F64_3-NEXT: result[7]: i32=0
// F64_3-NEXT: result[8]: i32=1
// F64_3-NEXT: result[9]: i32=1
// F64_3-NEXT: result[10]: i32=1
// F64_3-NEXT: result[11]: i32=1
// F64_3-NEXT: result[12]: i32=1
// F64_3-NEXT: result[13]: i32=1
// F64_3-NEXT: result[14]: i32=1
// F64_3-NEXT: result[15]: i32=1

// F64_4: EXEC @cmpf_f64
// F64_4-NEXT: result[0]: i32=0
// F64_4-NEXT: result[1]: i32=0
// F64_4-NEXT: result[2]: i32=0
// F64_4-NEXT: result[3]: i32=0
// F64_4-NEXT: result[4]: i32=0
// F64_4-NEXT: result[5]: i32=0
// F64_4-NEXT: result[6]: i32=0
// F64_4-NEXT: result[7]: i32=0
// F64_4-NEXT: result[8]: i32=1
// F64_4-NEXT: result[9]: i32=1
// F64_4-NEXT: result[10]: i32=1
// F64_4-NEXT: result[11]: i32=1
// F64_4-NEXT: result[12]: i32=1
// F64_4-NEXT: result[13]: i32=1
// F64_4-NEXT: result[14]: i32=1
// F64_4-NEXT: result[15]: i32=1

// F64_5: EXEC @cmpf_f64
// F64_5-NEXT: result[0]: i32=0
// F64_5-NEXT: result[1]: i32=0
// F64_5-NEXT: result[2]: i32=0
// F64_5-NEXT: result[3]: i32=0
// F64_5-NEXT: result[4]: i32=0
// F64_5-NEXT: result[5]: i32=0
// F64_5-NEXT: result[6]: i32=0
// F64_5-NEXT: result[7]: i32=0
// F64_5-NEXT: result[8]: i32=1
// F64_5-NEXT: result[9]: i32=1
// F64_5-NEXT: result[10]: i32=1
// F64_5-NEXT: result[11]: i32=1
// F64_5-NEXT: result[12]: i32=1
// F64_5-NEXT: result[13]: i32=1
// F64_5-NEXT: result[14]: i32=1
// F64_5-NEXT: result[15]: i32=1

// F64_6: EXEC @cmpf_f64
// F64_6-NEXT: result[0]: i32=0
// F64_6-NEXT: result[1]: i32=1
// F64_6-NEXT: result[2]: i32=0
// F64_6-NEXT: result[3]: i32=1
// F64_6-NEXT: result[4]: i32=0
// F64_6-NEXT: result[5]: i32=1
// F64_6-NEXT: result[6]: i32=0
// F64_6-NEXT: result[7]: i32=1
// F64_6-NEXT: result[8]: i32=1
// F64_6-NEXT: result[9]: i32=0
// F64_6-NEXT: result[10]: i32=1
// F64_6-NEXT: result[11]: i32=0
// F64_6-NEXT: result[12]: i32=1
// F64_6-NEXT: result[13]: i32=0
// F64_6-NEXT: result[14]: i32=0
// F64_6-NEXT: result[15]: i32=1

// F64_7: EXEC @cmpf_f64
// F64_7-NEXT: result[0]: i32=0
// F64_7-NEXT: result[1]: i32=0
// F64_7-NEXT: result[2]: i32=0
// F64_7-NEXT: result[3]: i32=0
// F64_7-NEXT: result[4]: i32=1
// F64_7-NEXT: result[5]: i32=1
// F64_7-NEXT: result[6]: i32=1
// F64_7-NEXT: result[7]: i32=1
// F64_7-NEXT: result[8]: i32=0
// F64_7-NEXT: result[9]: i32=0
// F64_7-NEXT: result[10]: i32=0
// F64_7-NEXT: result[11]: i32=1
// F64_7-NEXT: result[12]: i32=1
// F64_7-NEXT: result[13]: i32=1
// F64_7-NEXT: result[14]: i32=0
// F64_7-NEXT: result[15]: i32=1

func.func @cmpf_f32(%a: f32, %b: f32) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %false = arith.cmpf false, %a, %b : f32
  %oeq = arith.cmpf oeq, %a, %b : f32
  %ogt = arith.cmpf ogt, %a, %b : f32
  %oge = arith.cmpf oge, %a, %b : f32
  %olt = arith.cmpf olt, %a, %b : f32
  %ole = arith.cmpf ole, %a, %b : f32
  %one = arith.cmpf one, %a, %b : f32
  %ord = arith.cmpf ord, %a, %b : f32
  %ueq = arith.cmpf ueq, %a, %b : f32
  %ugt = arith.cmpf ugt, %a, %b : f32
  %uge = arith.cmpf uge, %a, %b : f32
  %ult = arith.cmpf ult, %a, %b : f32
  %ule = arith.cmpf ule, %a, %b : f32
  %une = arith.cmpf une, %a, %b : f32
  %uno = arith.cmpf uno, %a, %b : f32
  %true = arith.cmpf true, %a, %b : f32
  return %false, %oeq, %ogt, %oge, %olt, %ole, %one, %ord, %ueq, %ugt, %uge, %ult, %ule, %une, %uno, %true : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

func.func @cmpf_f64(%a: f64, %b: f64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %false = arith.cmpf false, %a, %b : f64
  %oeq = arith.cmpf oeq, %a, %b : f64
  %ogt = arith.cmpf ogt, %a, %b : f64
  %oge = arith.cmpf oge, %a, %b : f64
  %olt = arith.cmpf olt, %a, %b : f64
  %ole = arith.cmpf ole, %a, %b : f64
  %one = arith.cmpf one, %a, %b : f64
  %ord = arith.cmpf ord, %a, %b : f64
  %ueq = arith.cmpf ueq, %a, %b : f64
  %ugt = arith.cmpf ugt, %a, %b : f64
  %uge = arith.cmpf uge, %a, %b : f64
  %ult = arith.cmpf ult, %a, %b : f64
  %ule = arith.cmpf ule, %a, %b : f64
  %une = arith.cmpf une, %a, %b : f64
  %uno = arith.cmpf uno, %a, %b : f64
  %true = arith.cmpf true, %a, %b : f64
  return %false, %oeq, %ogt, %oge, %olt, %ole, %one, %ord, %ueq, %ugt, %uge, %ult, %ule, %une, %uno, %true : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
