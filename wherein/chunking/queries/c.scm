; Declarations that name a chunk. @definition is the whole declaration, @name its name.
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

; Macros with a value (an include guard has none and names nothing).
(preproc_def name: (identifier) @name value: (preproc_arg)) @definition
(preproc_function_def name: (identifier) @name) @definition

; File-scope prototypes (a header's API) and variables; locals are left out.
((declaration
    declarator: [
      (identifier) @name
      (init_declarator declarator: (identifier) @name)
      (init_declarator declarator: (array_declarator declarator: (identifier) @name))
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator
        declarator: (pointer_declarator
          declarator: (function_declarator declarator: (identifier) @name)))
    ]) @definition
  (#parent-type? @definition translation_unit preproc_if preproc_ifdef preproc_else
    preproc_elif declaration_list))
