; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; Zig declares types as constants (`const Point = struct {...}`), so container-level
; `const`/`var` declarations name structs, enums, unions and error sets as well as values.
; Locals are `Statement`s, not `Decl`s, and are left out.
; One pattern with an alternation: Zig's grammar makes each pattern under `Decl` dear to
; compile (two patterns took twice the time of this one).
; A constant that only imports a file or names another declaration (`const std =
; @import("std");`, `const Allocator = std.mem.Allocator;`, `pub const ArrayList =
; @import("array_list.zig").ArrayList;`) is no declaration of its own: every file binds
; the modules it uses, and each was a definition of their names. (A predicate, not a second
; pattern: it costs no compile time.)
((Decl [
  (FnProto function: (IDENTIFIER) @name)
  (VarDecl variable_type_function: (IDENTIFIER) @name)
]) @definition
 (#not-match? @definition "^(const|var)\\s+[A-Za-z_][A-Za-z0-9_]*\\s*=\\s*(@import\\s*\\(\\s*\"[^\"]*\"\\s*\\)|[A-Za-z_][A-Za-z0-9_]*)(\\s*\\.\\s*[A-Za-z_][A-Za-z0-9_]*)*\\s*;$"))
; A test is named `test."what it tests"` (or `test.name` for a test of one declaration), so
; ranking can tell it from the code beside it (a test inside a module named `test`, as
; Rust's `mod tests`): Zig writes its tests in the source file they test. A test with no
; name is left to its neighbours.
(TestDecl "test" @receiver [(STRINGLITERALSINGLE) (IDENTIFIER)] @name) @definition
