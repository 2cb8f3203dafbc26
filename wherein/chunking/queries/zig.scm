; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; Zig declares types as constants (`const Point = struct {...}`), so container-level
; `const`/`var` declarations name structs, enums, unions and error sets as well as values.
; Locals are `Statement`s, not `Decl`s, and are left out.
; One pattern with an alternation: Zig's grammar makes each pattern under `Decl` dear to
; compile (two patterns took twice the time of this one).
(Decl [
  (FnProto function: (IDENTIFIER) @name)
  (VarDecl variable_type_function: (IDENTIFIER) @name)
]) @definition
