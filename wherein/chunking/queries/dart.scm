; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; The Dart grammar writes a function, method, getter or constructor as a signature node
; and a `function_body` beside it, not one node holding both: the signature is the
; declaration here, and its body is chunked with it (the chunker joins nodes that share a
; line). Declarations nested in a body are left out, as they would be named without the
; function that holds them.
(class_definition name: (identifier) @name) @definition
(mixin_declaration (identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(extension_type_declaration name: (identifier) @name) @definition
(extension_declaration name: (identifier) @name) @definition
; `extension on String { ... }` has no name of its own: it is named by the type it extends.
(extension_declaration !name class: (type_identifier) @name) @definition
; `typedef Handler = void Function(int);`, and the older `typedef void Handler(int);`,
; whose return type may also be a type_identifier, so the name is the one before the
; parameters.
(type_alias . (type_identifier) @name "=") @definition
(type_alias (type_identifier) @name . (type_parameters)? . (formal_parameter_list)) @definition

([(function_signature name: (identifier) @name)
  (getter_signature name: (identifier) @name)
  (setter_signature name: (identifier) @name)] @definition
  (#parent-type? @definition program method_signature declaration))
; Constructors: `Circle(...)` is `Circle.Circle`, as Java's are; `Circle.unit()`,
; `factory Circle.fromJson(...)` and `const Circle.zero()` are `Circle.unit` and so on:
; the name is the identifier just before the parameters.
(constructor_signature (identifier) @name . (formal_parameter_list)) @definition
(constant_constructor_signature (identifier) @name . (formal_parameter_list)) @definition
(factory_constructor_signature (identifier) @name . (formal_parameter_list)) @definition
(redirecting_factory_constructor_signature
  (identifier) @name . (formal_parameter_list)) @definition

; Top-level variables, and a class's `static final` and `static const` fields (an
; instance field is an `initialized_identifier` instead).
(program (static_final_declaration_list (static_final_declaration (identifier) @name) @definition))
(program (initialized_identifier_list (initialized_identifier (identifier) @name) @definition))
(declaration
  (static_final_declaration_list (static_final_declaration (identifier) @name) @definition))

; A function, getter or setter written as a declaration has no body (an abstract method,
; an `external` one): a @prototype, so a query naming it wants the implementation first.
(declaration [(function_signature) (getter_signature) (setter_signature)] @prototype)
