; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_definition name: (identifier) @name) @definition
(function_definition name: (identifier) @name) @definition
