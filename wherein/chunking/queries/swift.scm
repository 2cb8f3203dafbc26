; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; class_declaration covers class, struct, enum, actor and extension (named by a user_type).
(class_declaration
  name: [(type_identifier) @name (user_type (type_identifier) @name)]) @definition
(protocol_declaration name: (type_identifier) @name) @definition
(typealias_declaration name: (type_identifier) @name) @definition
; The grammar also labels a return type `name:`, hence the node type on each name.
(function_declaration name: (simple_identifier) @name) @definition
(protocol_function_declaration name: (simple_identifier) @name) @definition
(init_declaration "init" @name) @definition
; Top-level constants and variables.
(source_file
  (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition)

; A protocol's requirements have no body: @prototype, so a query naming one wants the
; implementation first.
(protocol_function_declaration) @prototype
(protocol_body (init_declaration) @prototype)
