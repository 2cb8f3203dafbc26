; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_declaration name: (identifier) @name) @definition
(interface_declaration name: (identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(record_declaration name: (identifier) @name) @definition
(annotation_type_declaration name: (identifier) @name) @definition
(method_declaration name: (identifier) @name) @definition
(constructor_declaration name: (identifier) @name) @definition
(compact_constructor_declaration name: (identifier) @name) @definition

; Fields, constants or not (`private Handler handler;`, a lambda held in a field): a
; question naming one wants its declaration. Locals are another node type.
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition
; An enum's constants (`Kind.FAST`) and an `@interface`'s elements (`Marker.value`).
(enum_constant name: (identifier) @name) @definition
(annotation_type_element_declaration name: (identifier) @name) @definition

; A method without a body (an interface's, an abstract or native one) is a @prototype: a
; query naming it wants the implementation first.
(method_declaration !body) @prototype
