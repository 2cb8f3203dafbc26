; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(namespace_definition name: (namespace_name) @name) @definition
(class_declaration name: (name) @name) @definition
(interface_declaration name: (name) @name) @definition
(trait_declaration name: (name) @name) @definition
(enum_declaration name: (name) @name) @definition
(function_definition name: (name) @name) @definition
(method_declaration name: (name) @name) @definition
; Constants: `const LIMIT = 10;` at file or class level.
(const_element (name) @name) @definition
