; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @namespace a declaration that only qualifies the names inside it (the chunker does not
; list it as a name): a module that holds only classes and modules (`module Rack` around
; each file of Rack), where one with methods or constants of its own is a module to find.
(module name: [(constant) (scope_resolution)] @name) @definition
((module body: (body_statement)? @_body) @namespace
 (#holds-only? @_body class module comment))
(class name: [(constant) (scope_resolution)] @name) @definition
(method name: (_) @name) @definition
; `def self.build` belongs to the enclosing class; `def Other.build` names its receiver.
(singleton_method object: [(self) (constant) @receiver] name: (_) @name) @definition
; Constants: `VERSION = "1.0"`, `Point = Struct.new(:x, :y)`.
(assignment left: (constant) @name) @definition
