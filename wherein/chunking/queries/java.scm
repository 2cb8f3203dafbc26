; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_declaration name: (identifier) @name) @definition
(interface_declaration name: (identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(record_declaration name: (identifier) @name) @definition
(annotation_type_declaration name: (identifier) @name) @definition
(method_declaration name: (identifier) @name) @definition
(constructor_declaration name: (identifier) @name) @definition
(compact_constructor_declaration name: (identifier) @name) @definition

; Constants: `static final` fields.
((field_declaration
   (modifiers) @_modifiers
   declarator: (variable_declarator name: (identifier) @name)) @definition
 (#match? @_modifiers "static")
 (#match? @_modifiers "final"))

; A method without a body (an interface's, an abstract or native one) is a @prototype: a
; query naming it wants the implementation first.
(method_declaration !body) @prototype
