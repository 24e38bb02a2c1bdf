func.func @h(%x: f32) -> f32 {
  %h = arith.truncf %x : f32 to f16
  %y = arith.extf %h : f16 to f32
  return %y : f32
}
