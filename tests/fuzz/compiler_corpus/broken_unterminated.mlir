func.func @f(%c: i1) {
  cf.assert %c, "no end
