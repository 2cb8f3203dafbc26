; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @namespace a declaration that only qualifies the names inside it (the chunker does not
; list it as a name: each file of a project opens with the same one).
(namespace_declaration name: [(identifier) (qualified_name)] @name) @definition @namespace
(file_scoped_namespace_declaration
  name: [(identifier) (qualified_name)] @name) @definition @namespace
(class_declaration name: (identifier) @name) @definition
(struct_declaration name: (identifier) @name) @definition
(interface_declaration name: (identifier) @name) @definition
(record_declaration name: (identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(delegate_declaration name: (identifier) @name) @definition
(method_declaration name: (identifier) @name) @definition
(constructor_declaration name: (identifier) @name) @definition
(property_declaration name: (identifier) @name) @definition
(local_function_statement name: (identifier) @name) @definition

; Constants: `const` fields.
((field_declaration
   (modifier) @_modifier
   (variable_declaration (variable_declarator name: (identifier) @name))) @definition
 (#eq? @_modifier "const"))

; A method without a body (an interface's, an abstract, partial or extern one) is a
; @prototype: a query naming it wants the implementation first.
(method_declaration !body) @prototype
