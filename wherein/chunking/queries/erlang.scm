; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; The grammar makes each clause of a function its own declaration, each named by it.
(module_attribute name: (atom) @name) @definition
(fun_decl clause: (function_clause name: (atom) @name)) @definition
(record_decl name: (atom) @name) @definition
(type_alias name: (type_name name: (atom) @name)) @definition
(opaque name: (type_name name: (atom) @name)) @definition
; A behaviour's callbacks, which its modules implement: `-callback init(Args) -> ...`.
(callback fun: (atom) @name) @definition
; Macros: `-define(TIMEOUT, 5000).`, `-define(LOG(X), ...)`.
(pp_define lhs: (macro_lhs name: (_) @name)) @definition
