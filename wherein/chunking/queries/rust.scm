; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @namespace a declaration that only qualifies the names inside it (the chunker does not
; list it as a name): a `mod`, whose items are all it holds (`mod client;` names a file).
(struct_item name: (type_identifier) @name) @definition
(enum_item name: (type_identifier) @name) @definition
(union_item name: (type_identifier) @name) @definition
(trait_item name: (type_identifier) @name) @definition
(type_item name: (type_identifier) @name) @definition
(mod_item name: (identifier) @name) @definition @namespace
(macro_definition name: (identifier) @name) @definition
(const_item name: (identifier) @name) @definition
(static_item name: (identifier) @name) @definition
(function_item name: (identifier) @name) @definition
(function_signature_item name: (identifier) @name) @definition

; An impl block is named by its type (trait impls too), so its methods read `Point.area`.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (primitive_type) @name
  ]) @definition

; A `fn` without a body (a trait's requirement, an `extern` block's import) is a
; @prototype: a query naming it wants the implementation first.
(function_signature_item) @prototype
