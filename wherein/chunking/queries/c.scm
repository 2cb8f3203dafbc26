; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @prototype a declaration of a name defined elsewhere (a header's prototype, a macro that
; only renames another name): the chunk declares it without a body.
; Where a declaration sits is tested by `#parent-type?` (wherein's own predicate): one
; pattern with the test compiles in a fraction of the time of one pattern per parent. A
; `declaration_list` is the body of `extern "C" {`, which a header's `#ifdef __cplusplus`
; guard opens around all it declares.

; Functions, returning values or pointers: one pattern, the declarator's shapes an
; alternation, as with every node type named more than once below.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition

; Types with a body. A `struct x` without one is a use, not a declaration. Inside a typedef
; only the typedef's name is captured (below), so the tag is not listed again as `node_t.node`.
([(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
  (union_specifier name: (type_identifier) @name body: (field_declaration_list))
  (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition
  (#parent-type? @definition translation_unit preproc_if preproc_ifdef preproc_else
    preproc_elif declaration_list declaration field_declaration))
(type_definition
  declarator: [
    (type_identifier) @name
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition

; Macros with a value (an include guard has none and names nothing); one whose value is a
; single name only renames it (`#define xmlFree xmlFree__alias`).
(preproc_def name: (identifier) @name value: (preproc_arg)) @definition
((preproc_def value: (preproc_arg) @_value) @prototype
  (#match? @_value "^[A-Za-z_][A-Za-z0-9_]*\\s*$"))
(preproc_function_def name: (identifier) @name) @definition

; File-scope prototypes (a header's API) and variables; locals are left out. A declaration
; without an initializer is a @prototype: a function's, or an `extern` variable's.
((declaration
    declarator: [
      (init_declarator declarator: (identifier) @name)
      (init_declarator declarator: (array_declarator declarator: (identifier) @name))
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    ]) @definition
  (#parent-type? @definition translation_unit preproc_if preproc_ifdef preproc_else
    preproc_elif declaration_list))
((declaration
    declarator: [
      (identifier) @name
      (array_declarator declarator: (identifier) @name)
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator
        declarator: (pointer_declarator
          declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition @prototype
  (#parent-type? @definition translation_unit preproc_if preproc_ifdef preproc_else
    preproc_elif declaration_list))
