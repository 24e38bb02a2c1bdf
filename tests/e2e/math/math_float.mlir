// math ops at f32 and f64: sqrt rsqrt exp exp2 log log2 sin cos tanh absf
// floor ceil round (ties away from zero), fma (fused: 0.1f * 10 - 1 is
// 2^-26, not 0) and powf. Results the op defines exactly (sqrt, abs,
// rounding, fma, exact powers) are checked as text; libm results by a
// prefix of their digits and, through --expected_output, within
// kiln-run-module's tolerance (1e-5 relative for f32, 1e-12 for f64).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=4 | FileCheck %s --check-prefix=F32_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=4 --expected_output=f32=2.0 --expected_output=f32=0.5 --expected_output=f32=54.598148345947266 --expected_output=f32=16.0 --expected_output=f32=1.3862943649291992 --expected_output=f32=2.0 --expected_output=f32=-0.756802499294281 --expected_output=f32=-0.6536436080932617 --expected_output=f32=0.9993293285369873 --expected_output=f32=4.0 --expected_output=f32=4.0 --expected_output=f32=4.0 --expected_output=f32=4.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=2.5 | FileCheck %s --check-prefix=F32_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=2.5 --expected_output=f32=1.5811388492584229 --expected_output=f32=0.6324555277824402 --expected_output=f32=12.182494163513184 --expected_output=f32=5.656854152679443 --expected_output=f32=0.9162907600402832 --expected_output=f32=1.3219281435012817 --expected_output=f32=0.5984721183776855 --expected_output=f32=-0.8011435866355896 --expected_output=f32=0.9866142868995667 --expected_output=f32=2.5 --expected_output=f32=2.0 --expected_output=f32=3.0 --expected_output=f32=3.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=-2.5 | FileCheck %s --check-prefix=F32_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=-2.5 --expected_output=f32=nan --expected_output=f32=nan --expected_output=f32=0.08208499848842621 --expected_output=f32=0.1767766922712326 --expected_output=f32=nan --expected_output=f32=nan --expected_output=f32=-0.5984721183776855 --expected_output=f32=-0.8011435866355896 --expected_output=f32=-0.9866142868995667 --expected_output=f32=2.5 --expected_output=f32=-3.0 --expected_output=f32=-2.0 --expected_output=f32=-3.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=0 | FileCheck %s --check-prefix=F32_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=0 --expected_output=f32=0.0 --expected_output=f32=inf --expected_output=f32=1.0 --expected_output=f32=1.0 --expected_output=f32=-inf --expected_output=f32=-inf --expected_output=f32=0.0 --expected_output=f32=1.0 --expected_output=f32=0.0 --expected_output=f32=0.0 --expected_output=f32=0.0 --expected_output=f32=0.0 --expected_output=f32=0.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=-0.5 | FileCheck %s --check-prefix=F32_4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=-0.5 --expected_output=f32=nan --expected_output=f32=nan --expected_output=f32=0.6065306663513184 --expected_output=f32=0.7071067690849304 --expected_output=f32=nan --expected_output=f32=nan --expected_output=f32=-0.4794255495071411 --expected_output=f32=0.8775825500488281 --expected_output=f32=-0.46211716532707214 --expected_output=f32=0.5 --expected_output=f32=-1.0 --expected_output=f32=-0.0 --expected_output=f32=-1.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=0.1 | FileCheck %s --check-prefix=F32_5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f32 --input=f32=0.1 --expected_output=f32=0.3162277638912201 --expected_output=f32=3.1622776985168457 --expected_output=f32=1.1051709651947021 --expected_output=f32=1.0717734098434448 --expected_output=f32=-2.3025851249694824 --expected_output=f32=-3.321928024291992 --expected_output=f32=0.0998334214091301 --expected_output=f32=0.9950041770935059 --expected_output=f32=0.0996679961681366 --expected_output=f32=0.10000000149011612 --expected_output=f32=0.0 --expected_output=f32=1.0 --expected_output=f32=0.0
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f32 --input=f32=2 --input=f32=3 --input=f32=4 | FileCheck %s --check-prefix=F32_B0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f32 --input=f32=2 --input=f32=0.5 --input=f32=1 | FileCheck %s --check-prefix=F32_B1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f32 --input=f32=-8 --input=f32=0.5 --input=f32=0 | FileCheck %s --check-prefix=F32_B2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f32 --input=f32=0.1 --input=f32=10 --input=f32=-1 | FileCheck %s --check-prefix=F32_B3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f32 --input=f32=-2 --input=f32=3 --input=f32=0.5 | FileCheck %s --check-prefix=F32_B4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=4 | FileCheck %s --check-prefix=F64_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=4 --expected_output=f64=2.0 --expected_output=f64=0.5 --expected_output=f64=54.598150033144236 --expected_output=f64=16.0 --expected_output=f64=1.3862943611198906 --expected_output=f64=2.0 --expected_output=f64=-0.7568024953079282 --expected_output=f64=-0.6536436208636119 --expected_output=f64=0.999329299739067 --expected_output=f64=4.0 --expected_output=f64=4.0 --expected_output=f64=4.0 --expected_output=f64=4.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=2.5 | FileCheck %s --check-prefix=F64_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=2.5 --expected_output=f64=1.5811388300841898 --expected_output=f64=0.6324555320336759 --expected_output=f64=12.182493960703473 --expected_output=f64=5.656854249492381 --expected_output=f64=0.9162907318741551 --expected_output=f64=1.3219280948873624 --expected_output=f64=0.5984721441039565 --expected_output=f64=-0.8011436155469337 --expected_output=f64=0.9866142981514303 --expected_output=f64=2.5 --expected_output=f64=2.0 --expected_output=f64=3.0 --expected_output=f64=3.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=-2.5 | FileCheck %s --check-prefix=F64_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=-2.5 --expected_output=f64=nan --expected_output=f64=nan --expected_output=f64=0.0820849986238988 --expected_output=f64=0.1767766952966369 --expected_output=f64=nan --expected_output=f64=nan --expected_output=f64=-0.5984721441039565 --expected_output=f64=-0.8011436155469337 --expected_output=f64=-0.9866142981514303 --expected_output=f64=2.5 --expected_output=f64=-3.0 --expected_output=f64=-2.0 --expected_output=f64=-3.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=0 | FileCheck %s --check-prefix=F64_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=0 --expected_output=f64=0.0 --expected_output=f64=inf --expected_output=f64=1.0 --expected_output=f64=1.0 --expected_output=f64=-inf --expected_output=f64=-inf --expected_output=f64=0.0 --expected_output=f64=1.0 --expected_output=f64=0.0 --expected_output=f64=0.0 --expected_output=f64=0.0 --expected_output=f64=0.0 --expected_output=f64=0.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=-0.5 | FileCheck %s --check-prefix=F64_4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=-0.5 --expected_output=f64=nan --expected_output=f64=nan --expected_output=f64=0.6065306597126334 --expected_output=f64=0.7071067811865476 --expected_output=f64=nan --expected_output=f64=nan --expected_output=f64=-0.479425538604203 --expected_output=f64=0.8775825618903728 --expected_output=f64=-0.46211715726000974 --expected_output=f64=0.5 --expected_output=f64=-1.0 --expected_output=f64=-0.0 --expected_output=f64=-1.0
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=0.1 | FileCheck %s --check-prefix=F64_5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unary_f64 --input=f64=0.1 --expected_output=f64=0.31622776601683794 --expected_output=f64=3.162277660168379 --expected_output=f64=1.1051709180756477 --expected_output=f64=1.0717734625362931 --expected_output=f64=-2.3025850929940455 --expected_output=f64=-3.321928094887362 --expected_output=f64=0.09983341664682815 --expected_output=f64=0.9950041652780258 --expected_output=f64=0.09966799462495582 --expected_output=f64=0.1 --expected_output=f64=0.0 --expected_output=f64=1.0 --expected_output=f64=0.0
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f64 --input=f64=2 --input=f64=3 --input=f64=4 | FileCheck %s --check-prefix=F64_B0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f64 --input=f64=2 --input=f64=0.5 --input=f64=1 | FileCheck %s --check-prefix=F64_B1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f64 --input=f64=-8 --input=f64=0.5 --input=f64=0 | FileCheck %s --check-prefix=F64_B2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f64 --input=f64=0.1 --input=f64=10 --input=f64=-1 | FileCheck %s --check-prefix=F64_B3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binary_f64 --input=f64=-2 --input=f64=3 --input=f64=0.5 | FileCheck %s --check-prefix=F64_B4 --match-full-lines

// F32_0: EXEC @unary_f32
// F32_0-NEXT: result[0]: f32=2
// F32_0-NEXT: result[1]: f32=0.5
// F32_0-NEXT: result[2]: f32={{54\.5981[0-9]*(e-[0-9]+)?}}
// F32_0-NEXT: result[3]: f32=16
// F32_0-NEXT: result[4]: f32={{1\.38629[0-9]*(e-[0-9]+)?}}
// F32_0-NEXT: result[5]: f32=2
// F32_0-NEXT: result[6]: f32={{-0\.756802[0-9]*(e-[0-9]+)?}}
// F32_0-NEXT: result[7]: f32={{-0\.653643[0-9]*(e-[0-9]+)?}}
// F32_0-NEXT: result[8]: f32={{0\.99932[0-9]*(e-[0-9]+)?}}
// F32_0-NEXT: result[9]: f32=4
// F32_0-NEXT: result[10]: f32=4
// F32_0-NEXT: result[11]: f32=4
// F32_0-NEXT: result[12]: f32=4

// F32_1: EXEC @unary_f32
// F32_1-NEXT: result[0]: f32=1.5811388
// F32_1-NEXT: result[1]: f32={{0\.632455[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[2]: f32={{12\.1824[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[3]: f32={{5\.65685[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[4]: f32={{0\.91629[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[5]: f32={{1\.32192[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[6]: f32={{0\.59847[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[7]: f32={{-0\.801143[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[8]: f32={{0\.98661[0-9]*(e-[0-9]+)?}}
// F32_1-NEXT: result[9]: f32=2.5
// F32_1-NEXT: result[10]: f32=2
// F32_1-NEXT: result[11]: f32=3
// F32_1-NEXT: result[12]: f32=3

// F32_2: EXEC @unary_f32
// F32_2-NEXT: result[0]: f32={{-?nan}}
// F32_2-NEXT: result[1]: f32={{-?nan}}
// F32_2-NEXT: result[2]: f32={{0\.08208[0-9]*(e-[0-9]+)?}}
// F32_2-NEXT: result[3]: f32={{0\.176776[0-9]*(e-[0-9]+)?}}
// F32_2-NEXT: result[4]: f32={{-?nan}}
// F32_2-NEXT: result[5]: f32={{-?nan}}
// F32_2-NEXT: result[6]: f32={{-0\.59847[0-9]*(e-[0-9]+)?}}
// F32_2-NEXT: result[7]: f32={{-0\.801143[0-9]*(e-[0-9]+)?}}
// F32_2-NEXT: result[8]: f32={{-0\.98661[0-9]*(e-[0-9]+)?}}
// F32_2-NEXT: result[9]: f32=2.5
// F32_2-NEXT: result[10]: f32=-3
// F32_2-NEXT: result[11]: f32=-2
// F32_2-NEXT: result[12]: f32=-3

// F32_3: EXEC @unary_f32
// F32_3-NEXT: result[0]: f32=0
// F32_3-NEXT: result[1]: f32=inf
// F32_3-NEXT: result[2]: f32=1
// F32_3-NEXT: result[3]: f32=1
// F32_3-NEXT: result[4]: f32=-inf
// F32_3-NEXT: result[5]: f32=-inf
// F32_3-NEXT: result[6]: f32=0
// F32_3-NEXT: result[7]: f32=1
// F32_3-NEXT: result[8]: f32=0
// F32_3-NEXT: result[9]: f32=0
// F32_3-NEXT: result[10]: f32=0
// F32_3-NEXT: result[11]: f32=0
// F32_3-NEXT: result[12]: f32=0

// F32_4: EXEC @unary_f32
// F32_4-NEXT: result[0]: f32={{-?nan}}
// F32_4-NEXT: result[1]: f32={{-?nan}}
// F32_4-NEXT: result[2]: f32={{0\.606530[0-9]*(e-[0-9]+)?}}
// F32_4-NEXT: result[3]: f32={{0\.70710[0-9]*(e-[0-9]+)?}}
// F32_4-NEXT: result[4]: f32={{-?nan}}
// F32_4-NEXT: result[5]: f32={{-?nan}}
// F32_4-NEXT: result[6]: f32={{-0\.479425[0-9]*(e-[0-9]+)?}}
// F32_4-NEXT: result[7]: f32={{0\.877582[0-9]*(e-[0-9]+)?}}
// F32_4-NEXT: result[8]: f32={{-0\.462117[0-9]*(e-[0-9]+)?}}
// F32_4-NEXT: result[9]: f32=0.5
// F32_4-NEXT: result[10]: f32=-1
// F32_4-NEXT: result[11]: f32=-0
// F32_4-NEXT: result[12]: f32=-1

// F32_5: EXEC @unary_f32
// F32_5-NEXT: result[0]: f32=0.31622776
// F32_5-NEXT: result[1]: f32={{3\.16227[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[2]: f32={{1\.10517[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[3]: f32={{1\.071773[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[4]: f32={{-2\.30258[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[5]: f32={{-3\.32192[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[6]: f32={{0\.099833[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[7]: f32={{0\.99500[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[8]: f32={{0\.09966[0-9]*(e-[0-9]+)?}}
// F32_5-NEXT: result[9]: f32=0.1
// F32_5-NEXT: result[10]: f32=0
// F32_5-NEXT: result[11]: f32=1
// F32_5-NEXT: result[12]: f32=0

// F32_B0: EXEC @binary_f32
// F32_B0-NEXT: result[0]: f32=10
// F32_B0-NEXT: result[1]: f32=8

// F32_B1: EXEC @binary_f32
// F32_B1-NEXT: result[0]: f32=2
// F32_B1-NEXT: result[1]: f32={{1\.41421[0-9]*(e-[0-9]+)?}}

// F32_B2: EXEC @binary_f32
// F32_B2-NEXT: result[0]: f32=-4
// F32_B2-NEXT: result[1]: f32={{-?nan}}

// F32_B3: EXEC @binary_f32
// F32_B3-NEXT: result[0]: f32=1.4901161e-08
// F32_B3-NEXT: result[1]: f32={{(1\.0000|9\.9999)[0-9]*(e-[0-9]+)?}}

// F32_B4: EXEC @binary_f32
// F32_B4-NEXT: result[0]: f32=-5.5
// F32_B4-NEXT: result[1]: f32=-8

// F64_0: EXEC @unary_f64
// F64_0-NEXT: result[0]: f64=2
// F64_0-NEXT: result[1]: f64=0.5
// F64_0-NEXT: result[2]: f64={{54\.59815003314[0-9]*(e-[0-9]+)?}}
// F64_0-NEXT: result[3]: f64=16
// F64_0-NEXT: result[4]: f64={{1\.386294361119[0-9]*(e-[0-9]+)?}}
// F64_0-NEXT: result[5]: f64=2
// F64_0-NEXT: result[6]: f64={{-0\.7568024953079[0-9]*(e-[0-9]+)?}}
// F64_0-NEXT: result[7]: f64={{-0\.6536436208636[0-9]*(e-[0-9]+)?}}
// F64_0-NEXT: result[8]: f64={{0\.9993292997390[0-9]*(e-[0-9]+)?}}
// F64_0-NEXT: result[9]: f64=4
// F64_0-NEXT: result[10]: f64=4
// F64_0-NEXT: result[11]: f64=4
// F64_0-NEXT: result[12]: f64=4

// F64_1: EXEC @unary_f64
// F64_1-NEXT: result[0]: f64=1.5811388300841898
// F64_1-NEXT: result[1]: f64={{0\.6324555320336[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[2]: f64={{12\.182493960703[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[3]: f64={{5\.656854249492[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[4]: f64={{0\.9162907318741[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[5]: f64={{1\.3219280948873[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[6]: f64={{0\.5984721441039[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[7]: f64={{-0\.8011436155469[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[8]: f64={{0\.9866142981514[0-9]*(e-[0-9]+)?}}
// F64_1-NEXT: result[9]: f64=2.5
// F64_1-NEXT: result[10]: f64=2
// F64_1-NEXT: result[11]: f64=3
// F64_1-NEXT: result[12]: f64=3

// F64_2: EXEC @unary_f64
// F64_2-NEXT: result[0]: f64={{-?nan}}
// F64_2-NEXT: result[1]: f64={{-?nan}}
// F64_2-NEXT: result[2]: f64={{0\.08208499862389[0-9]*(e-[0-9]+)?}}
// F64_2-NEXT: result[3]: f64={{0\.17677669529663[0-9]*(e-[0-9]+)?}}
// F64_2-NEXT: result[4]: f64={{-?nan}}
// F64_2-NEXT: result[5]: f64={{-?nan}}
// F64_2-NEXT: result[6]: f64={{-0\.5984721441039[0-9]*(e-[0-9]+)?}}
// F64_2-NEXT: result[7]: f64={{-0\.8011436155469[0-9]*(e-[0-9]+)?}}
// F64_2-NEXT: result[8]: f64={{-0\.9866142981514[0-9]*(e-[0-9]+)?}}
// F64_2-NEXT: result[9]: f64=2.5
// F64_2-NEXT: result[10]: f64=-3
// F64_2-NEXT: result[11]: f64=-2
// F64_2-NEXT: result[12]: f64=-3

// F64_3: EXEC @unary_f64
// F64_3-NEXT: result[0]: f64=0
// F64_3-NEXT: result[1]: f64=inf
// F64_3-NEXT: result[2]: f64=1
// F64_3-NEXT: result[3]: f64=1
// F64_3-NEXT: result[4]: f64=-inf
// F64_3-NEXT: result[5]: f64=-inf
// F64_3-NEXT: result[6]: f64=0
// F64_3-NEXT: result[7]: f64=1
// F64_3-NEXT: result[8]: f64=0
// F64_3-NEXT: result[9]: f64=0
// F64_3-NEXT: result[10]: f64=0
// F64_3-NEXT: result[11]: f64=0
// F64_3-NEXT: result[12]: f64=0

// F64_4: EXEC @unary_f64
// F64_4-NEXT: result[0]: f64={{-?nan}}
// F64_4-NEXT: result[1]: f64={{-?nan}}
// F64_4-NEXT: result[2]: f64={{0\.6065306597126[0-9]*(e-[0-9]+)?}}
// F64_4-NEXT: result[3]: f64={{0\.7071067811865[0-9]*(e-[0-9]+)?}}
// F64_4-NEXT: result[4]: f64={{-?nan}}
// F64_4-NEXT: result[5]: f64={{-?nan}}
// F64_4-NEXT: result[6]: f64={{-0\.479425538604[0-9]*(e-[0-9]+)?}}
// F64_4-NEXT: result[7]: f64={{0\.8775825618903[0-9]*(e-[0-9]+)?}}
// F64_4-NEXT: result[8]: f64={{-0\.4621171572600[0-9]*(e-[0-9]+)?}}
// F64_4-NEXT: result[9]: f64=0.5
// F64_4-NEXT: result[10]: f64=-1
// F64_4-NEXT: result[11]: f64=-0
// F64_4-NEXT: result[12]: f64=-1

// F64_5: EXEC @unary_f64
// F64_5-NEXT: result[0]: f64=0.31622776601683794
// F64_5-NEXT: result[1]: f64={{3\.162277660168[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[2]: f64={{1\.1051709180756[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[3]: f64={{1\.071773462536[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[4]: f64={{-2\.3025850929940[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[5]: f64={{-3\.3219280948873[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[6]: f64={{0\.09983341664682[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[7]: f64={{0\.9950041652780[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[8]: f64={{0\.09966799462495[0-9]*(e-[0-9]+)?}}
// F64_5-NEXT: result[9]: f64=0.1
// F64_5-NEXT: result[10]: f64=0
// F64_5-NEXT: result[11]: f64=1
// F64_5-NEXT: result[12]: f64=0

// F64_B0: EXEC @binary_f64
// F64_B0-NEXT: result[0]: f64=10
// F64_B0-NEXT: result[1]: f64=8

// F64_B1: EXEC @binary_f64
// F64_B1-NEXT: result[0]: f64=2
// F64_B1-NEXT: result[1]: f64={{1\.414213562373[0-9]*(e-[0-9]+)?}}

// F64_B2: EXEC @binary_f64
// F64_B2-NEXT: result[0]: f64=-4
// F64_B2-NEXT: result[1]: f64={{-?nan}}

// F64_B3: EXEC @binary_f64
// F64_B3-NEXT: result[0]: f64=5.551115123125783e-17
// F64_B3-NEXT: result[1]: f64={{(1\.0000|9\.9999)[0-9]*(e-[0-9]+)?}}

// F64_B4: EXEC @binary_f64
// F64_B4-NEXT: result[0]: f64=-5.5
// F64_B4-NEXT: result[1]: f64=-8

func.func @unary_f32(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %sqrt = math.sqrt %x : f32
  %rsqrt = math.rsqrt %x : f32
  %exp = math.exp %x : f32
  %exp2 = math.exp2 %x : f32
  %log = math.log %x : f32
  %log2 = math.log2 %x : f32
  %sin = math.sin %x : f32
  %cos = math.cos %x : f32
  %tanh = math.tanh %x : f32
  %absf = math.absf %x : f32
  %floor = math.floor %x : f32
  %ceil = math.ceil %x : f32
  %round = math.round %x : f32
  return %sqrt, %rsqrt, %exp, %exp2, %log, %log2, %sin, %cos, %tanh, %absf, %floor, %ceil, %round : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
}

func.func @binary_f32(%a: f32, %b: f32, %c: f32) -> (f32, f32) {
  %fma = math.fma %a, %b, %c : f32
  %pow = math.powf %a, %b : f32
  return %fma, %pow : f32, f32
}

func.func @unary_f64(%x: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
  %sqrt = math.sqrt %x : f64
  %rsqrt = math.rsqrt %x : f64
  %exp = math.exp %x : f64
  %exp2 = math.exp2 %x : f64
  %log = math.log %x : f64
  %log2 = math.log2 %x : f64
  %sin = math.sin %x : f64
  %cos = math.cos %x : f64
  %tanh = math.tanh %x : f64
  %absf = math.absf %x : f64
  %floor = math.floor %x : f64
  %ceil = math.ceil %x : f64
  %round = math.round %x : f64
  return %sqrt, %rsqrt, %exp, %exp2, %log, %log2, %sin, %cos, %tanh, %absf, %floor, %ceil, %round : f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64
}

func.func @binary_f64(%a: f64, %b: f64, %c: f64) -> (f64, f64) {
  %fma = math.fma %a, %b, %c : f64
  %pow = math.powf %a, %b : f64
  return %fma, %pow : f64, f64
}
