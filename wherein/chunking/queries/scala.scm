; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_definition name: (identifier) @name) @definition
(object_definition name: (identifier) @name) @definition
(trait_definition name: (identifier) @name) @definition
(enum_definition name: (identifier) @name) @definition
(type_definition name: (type_identifier) @name) @definition
(given_definition name: (identifier) @name) @definition
; Operator methods (`def ++`, `def ::`) are named by the operator, as Haskell's are.
(function_definition name: [(identifier) (operator_identifier)] @name) @definition
(function_declaration name: [(identifier) (operator_identifier)] @name) @definition
; Members and top-level values; values local to a block are left out. Where they sit is
; tested by `#parent-type?` (wherein's own predicate), not by a pattern per parent: it
; compiles in two thirds of the time.
([(val_definition pattern: (identifier) @name)
  (var_definition pattern: (identifier) @name)] @definition
  (#parent-type? @definition template_body compilation_unit))
((val_declaration name: (identifier) @name) @definition
  (#parent-type? @definition template_body))

; An abstract `def` (a trait's, with no body) is a @prototype: a query naming it wants the
; implementation first.
(function_declaration) @prototype
