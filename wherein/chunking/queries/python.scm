; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_definition name: (identifier) @name) @definition
(function_definition name: (identifier) @name) @definition
; Module-level constants and type aliases (`MAX_RETRIES = 3`, `type Ids = list[int]`).
; Dunder assignments (`__all__`, `__version__`) are bookkeeping, not names to look up.
((module (assignment left: (identifier) @name) @definition)
 (#not-match? @name "^__"))
(type_alias_statement left: (type (identifier) @name)) @definition
