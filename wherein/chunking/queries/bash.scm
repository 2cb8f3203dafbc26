; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(function_definition name: (word) @name) @definition
; Top-level settings: `NAME=value`, `readonly NAME=...`, `export NAME=...`; locals are left out.
(program (variable_assignment name: (variable_name) @name) @definition)
(program (declaration_command (variable_assignment name: (variable_name) @name) @definition))
