; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @qualified_name a name whose scope, if it has one, is the class a method defined outside
; it belongs to (`void Widget::draw()` is `Widget.draw`), @namespace a declaration that
; only qualifies the names inside it (the chunker does not list it as a name), @prototype a
; declaration of a name defined elsewhere (a method declared in its class, a prototype, a
; macro that only renames another name): the chunk declares it without a body. Where a declaration must sit is
; tested by `#parent-type?` (wherein's own predicate), not by a pattern per parent: C++'s
; large grammar makes every pattern dear to compile.

; Functions and methods, returning values, pointers or references: one pattern whose
; declarator's three shapes are an alternation (a pattern each compiled 45 ms slower). A
; qualified name (`Widget::draw`, `ns::Box<T>::get`) is taken apart by the chunker
; (@qualified_name): its shapes spelled out here took a third of the query's compile time.
(function_definition
  declarator: [
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)
                   (qualified_identifier) (template_function)] @qualified_name)
    (pointer_declarator declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)
                   (qualified_identifier) (template_function)] @qualified_name))
    (reference_declarator (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)
                   (qualified_identifier) (template_function)] @qualified_name))
  ]) @definition

; Classes and other types with a body (a `struct x` without one is a use). Unlike c.scm,
; their parent is not tested: `typedef struct tag {...} name;`, which that test leaves to the
; typedef's name, is rare in C++.
[(class_specifier name: (type_identifier) @name body: (field_declaration_list))
 (struct_specifier name: (type_identifier) @name body: (field_declaration_list))
 (union_specifier name: (type_identifier) @name body: (field_declaration_list))
 (enum_specifier name: (type_identifier) @name body: (enumerator_list))] @definition
(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition @namespace
(alias_declaration name: (type_identifier) @name) @definition
(type_definition declarator: (type_identifier) @name) @definition
(concept_definition name: (identifier) @name) @definition

; Macros with a value (an include guard has none and names nothing); one whose value is a
; single name only renames it.
(preproc_def name: (identifier) @name value: (preproc_arg)) @definition
((preproc_def value: (preproc_arg) @_value) @prototype
  (#match? @_value "^[A-Za-z_][A-Za-z0-9_]*\\s*$"))
(preproc_function_def name: (identifier) @name) @definition

; Method declarations in a class body (a header's API).
(field_declaration_list
  (field_declaration
    declarator: (function_declarator
      declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
  @definition @prototype)
(field_declaration_list
  (declaration
    declarator: (function_declarator
      declarator: [(identifier) (destructor_name) (operator_name)] @name))
  @definition @prototype)

; Namespace- and file-scope prototypes, constants and variables; locals are left out. One
; pattern with the parent test compiles in 65% of the time of one pattern per parent. The
; name inside the declarator (`*name[4] = {0}`) is found by the chunker (@declarator). One
; without an initializer is a @prototype: a function's, or an `extern` variable's.
((declaration declarator: (init_declarator) @declarator) @definition
  (#parent-type? @definition translation_unit declaration_list preproc_if preproc_ifdef
                template_declaration))
((declaration
    declarator: [(identifier) (array_declarator) (function_declarator) (pointer_declarator)
                 (reference_declarator)] @declarator) @definition @prototype
  (#parent-type? @definition translation_unit declaration_list preproc_if preproc_ifdef
                template_declaration))
