// Comments and layout: // comments at the ends of lines and between ops,
// an op spread over several lines, tabs, blank lines, no indentation, value
// names with digits, underscores, dollar signs, dots and hyphens.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=layout --input=4 | FileCheck %s --check-prefix=LAYOUT --match-full-lines

// LAYOUT: EXEC @layout
// LAYOUT-NEXT: result[0]: i32=21
func.func @layout(%arg0: i32) -> i32 { // the body starts here
  // a comment line inside the body
%c1 = arith.constant 1 : i32 // trailing comment

	%x.y = arith.addi %arg0, %c1 : i32	// after a tab
  %sum_2 = arith.addi
      %x.y,  // operand on its own line
      %arg0
      : i32
  %a$b = arith.constant 12 : i32
  %a-b = arith.addi %sum_2, %a$b : i32
  return %a-b : i32 // 4 + 1 + 4 + 12 = 21
} // end of @layout
// a comment on the last line, without a newline at the end of the file