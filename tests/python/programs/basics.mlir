// The functions tests/python calls through the kiln package: static and
// dynamic tensors, scalars of every calling-convention type, several
// results and none.

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @mul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = arith.mulf %a, %b : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// (a + b, c * d) in i64 and f64.
func.func @scalars(%a: i32, %b: i64, %c: f32, %d: f64) -> (i64, f64) {
  %0 = arith.extsi %a : i32 to i64
  %1 = arith.addi %0, %b : i64
  %2 = arith.extf %c : f32 to f64
  %3 = arith.mulf %2, %d : f64
  return %1, %3 : i64, f64
}

func.func @sum_and_product(%a: tensor<?xi32>, %b: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %0 = arith.addi %a, %b : tensor<?xi32>
  %1 = arith.muli %a, %b : tensor<?xi32>
  return %0, %1 : tensor<?xi32>, tensor<?xi32>
}

func.func @add_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %0 = arith.addi %a, %b : tensor<?xi8>
  return %0 : tensor<?xi8>
}

func.func @nothing() {
  return
}
