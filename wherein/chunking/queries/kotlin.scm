; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @receiver the type an extension function extends (`fun String.shout()` is `String.shout`).
; The Kotlin grammar names few fields, so names are matched as direct children.
(class_declaration (type_identifier) @name) @definition
(object_declaration (type_identifier) @name) @definition
(companion_object (type_identifier) @name) @definition
(type_alias (type_identifier) @name) @definition
(function_declaration !receiver (simple_identifier) @name) @definition
(function_declaration
  receiver: (receiver_type [(user_type (type_identifier) @receiver)
                            (nullable_type (user_type (type_identifier) @receiver))])
  (simple_identifier) @name) @definition

; Top-level properties, and `const val` constants wherever they are.
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition)
((property_declaration
   (modifiers (property_modifier) @_modifier)
   (variable_declaration (simple_identifier) @name)) @definition
 (#eq? @_modifier "const"))

; A class's properties: a question naming one wants its declaration.
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition)
; A `fun` without a body (an interface's or an abstract one) is a @prototype: a query
; naming it wants the implementation first.
((function_declaration) @prototype (#holds-none? @prototype function_body))
