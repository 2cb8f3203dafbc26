; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; A query cannot say "any parent but X", so patterns that depend on where a declaration
; sits are repeated once per parent.

; Functions, returning values or pointers.
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition

; Types with a body. A `struct x` without one is a use, not a declaration. Inside a typedef
; only the typedef's name is captured (below), so the tag is not listed again as `node_t.node`.
(translation_unit
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(preproc_if
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(preproc_ifdef
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(preproc_else
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(preproc_elif
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(declaration
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(field_declaration
  [(struct_specifier name: (type_identifier) @name body: (field_declaration_list))
   (union_specifier name: (type_identifier) @name body: (field_declaration_list))
   (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition)
(type_definition declarator: (type_identifier) @name) @definition
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition

; Macros with a value (an include guard has none and names nothing).
(preproc_def name: (identifier) @name value: (preproc_arg)) @definition
(preproc_function_def name: (identifier) @name) @definition

; File-scope prototypes (a header's API) and variables; locals are left out.
(translation_unit
  (declaration
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
    ]) @definition)
(preproc_if
  (declaration
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
    ]) @definition)
(preproc_ifdef
  (declaration
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
    ]) @definition)
(preproc_else
  (declaration
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
    ]) @definition)
(preproc_elif
  (declaration
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
    ]) @definition)
