; Declarations that name a chunk, in implementations (`.ml`) and interfaces (`.mli`, whose
; grammar shares these nodes). @definition is the whole declaration, @name its name.
; A module's own values; a `let ... in` inside an expression names nothing.
((value_definition (let_binding pattern: (value_name) @name) @definition) @_value
  (#parent-type? @_value compilation_unit structure))
(value_specification (value_name) @name) @definition
(external (value_name) @name) @definition
(type_binding name: (type_constructor) @name) @definition
(exception_definition (constructor_declaration (constructor_name) @name)) @definition
(module_binding (module_name) @name) @definition
(module_type_definition (module_type_name) @name) @definition
(class_binding (class_name) @name) @definition
(class_type_binding (class_type_name) @name) @definition
(method_definition (method_name) @name) @definition
(method_specification (method_name) @name) @definition
