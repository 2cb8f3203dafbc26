; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @namespace a declaration that only qualifies the names inside it (the chunker does not
; list it as a name: each file of a project opens with the same one).
(namespace_definition name: (namespace_name) @name) @definition @namespace
(class_declaration name: (name) @name) @definition
(interface_declaration name: (name) @name) @definition
(trait_declaration name: (name) @name) @definition
(enum_declaration name: (name) @name) @definition
(function_definition name: (name) @name) @definition
(method_declaration name: (name) @name) @definition
; Constants: `const LIMIT = 10;` at file or class level.
(const_element (name) @name) @definition

; Properties (`protected $handlers;`): a question naming one wants its declaration, and
; its docblock is named with it.
(property_declaration (property_element name: (variable_name (name) @name))) @definition

; A method without a body (an interface's or an abstract one) is a @prototype: a query
; naming it wants the implementation first.
(method_declaration !body) @prototype
