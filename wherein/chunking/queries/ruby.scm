; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(module name: [(constant) (scope_resolution)] @name) @definition
(class name: [(constant) (scope_resolution)] @name) @definition
(method name: (_) @name) @definition
; `def self.build` belongs to the enclosing class; `def Other.build` names its receiver.
(singleton_method object: [(self) (constant) @receiver] name: (_) @name) @definition
; Constants: `VERSION = "1.0"`, `Point = Struct.new(:x, :y)`.
(assignment left: (constant) @name) @definition
