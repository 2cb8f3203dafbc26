; Objective-C: its classes, categories, protocols, methods and properties, and C's
; functions, typedefs and macros (the grammar extends C's). One pattern of bare node
; types, each captured @named: the chunker finds the name in the node (`chunker._own_name`).
; Spelled out here, the names' shapes made this the slowest query to compile of all
; (0.3 s, paid by each indexing worker that meets the language); bare, about a tenth.
; A method is named by its selector's first keyword (`greet` for
; `- (void)greet:(id)a times:(int)n`) under its class (`Widget.greet`), also in a category.
[
  (class_interface)
  (class_implementation)
  (protocol_declaration)
  (method_declaration)
  (method_definition)
  (property_declaration)
  (function_definition)
  (type_definition)
  (preproc_def)
  (preproc_function_def)
] @definition @named

; File-scope prototypes and variables (`extern NSString *const WidgetKey;`), and types with a
; body, as C names them; a local, or a `struct x` that only uses the tag, names nothing.
([(declaration) (struct_specifier) (union_specifier) (enum_specifier)] @definition @named
  (#parent-type? @definition translation_unit preproc_if preproc_ifdef preproc_else
    preproc_elif declaration_list))

; Declared here and defined elsewhere, @prototype (the chunk declares it without a body): a
; method of an @interface or a @protocol, a file-scope prototype or `extern` variable (its
; declarator holds no `=`: the declarator's shapes spelled out, as c.scm has them, made the
; query five times as dear to compile), a macro that only renames another name.
(method_declaration) @prototype
((declaration declarator: (_) @_declarator) @prototype
  (#not-match? @_declarator "=")
  (#parent-type? @prototype translation_unit preproc_if preproc_ifdef preproc_else
    preproc_elif declaration_list))
((preproc_def value: (preproc_arg) @_value) @prototype
  (#match? @_value "^[A-Za-z_][A-Za-z0-9_]*\\s*$"))

; `typedef NS_OPTIONS(NSUInteger, Flags) {...}`, which the grammar reads as an error around
; the macro (`NS_ENUM` parses as a typedef, above).
((macro_type_specifier) @definition @named (#parent-type? @definition ERROR))
