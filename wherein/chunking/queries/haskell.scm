; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @namespace a declaration that only qualifies the names inside it (the chunker does not
; list it as a name): the header `module Data.Queue where` opens the file, as a C++
; namespace does.
(header module: (module) @name) @definition @namespace
(data_type name: (name) @name) @definition
(newtype name: (name) @name) @definition
; (sic: the grammar spells the node `type_synomym`)
(type_synomym name: (name) @name) @definition
(type_family name: (name) @name) @definition
(data_family name: (name) @name) @definition
(class name: (name) @name) @definition
; An instance is named by its type, as a Rust impl is, so its methods read `Stack.insert`.
(instance patterns: (type_patterns . (name) @name)) @definition
(function name: (variable) @name) @definition
; Signatures sit above their equations and carry the name of an operator too; top-level
; values (`maxDepth = 100`) are binds.
(declarations [
  (signature name: [(variable) @name (prefix_id (operator) @name)])
  (bind name: (variable) @name)
] @definition)
(class_declarations (signature name: (variable) @name) @definition)
(instance_declarations (bind name: (variable) @name) @definition)
