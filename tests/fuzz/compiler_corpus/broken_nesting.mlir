func.func @f(%c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    %s = scf.if %c -> (i32) {
      %t = scf.if %c -> (i32) {
        %u = scf.if %c -> (i32) {
          %v = scf.if %c -> (i32) {
            %w = scf.if %c -> (i32) {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{
