; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_definition name: (identifier) @name) @definition
(object_definition name: (identifier) @name) @definition
(trait_definition name: (identifier) @name) @definition
(enum_definition name: (identifier) @name) @definition
(type_definition name: (type_identifier) @name) @definition
(given_definition name: (identifier) @name) @definition
(function_definition name: (identifier) @name) @definition
(function_declaration name: (identifier) @name) @definition
; Members and top-level values; values local to a block are left out.
(template_body (val_definition pattern: (identifier) @name) @definition)
(template_body (var_definition pattern: (identifier) @name) @definition)
(template_body (val_declaration name: (identifier) @name) @definition)
(compilation_unit (val_definition pattern: (identifier) @name) @definition)
(compilation_unit (var_definition pattern: (identifier) @name) @definition)
