; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @receiver the type a method belongs to (so `func (s *Server) Start()` is `Server.Start`).
(type_spec name: (type_identifier) @name) @definition
(type_alias name: (type_identifier) @name) @definition
(function_declaration name: (identifier) @name) @definition
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition

; Package-level constants and variables; locals are left out.
(source_file (const_declaration (const_spec name: (identifier) @name) @definition))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition)))

; An interface's methods are named (`Handler.ServeHTTP`), as @prototype: a query naming
; one wants a type's implementation first.
(method_elem name: (field_identifier) @name) @definition @prototype
