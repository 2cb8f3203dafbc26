; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; A `package Foo::Bar;` statement is the class the file defines (its subs follow it, not
; inside it, so it qualifies none of them); `package Foo { ... }` holds its subs.
(package_statement name: (package) @name) @definition
(subroutine_declaration_statement name: (bareword) @name) @definition
(method_declaration_statement name: (bareword) @name) @definition
; Attributes of Moose, Moo and Mojo::Base classes: `has 'name' => ...`, `has name => ...`.
(ambiguous_function_call_expression
  function: (function) @_has (#eq? @_has "has")
  arguments: [(string_literal (string_content) @name) (autoquoted_bareword) @name]) @definition
; `use constant NAME => value;`
(use_statement
  module: (package) @_constant (#eq? @_constant "constant")
  (list_expression . (autoquoted_bareword) @name)) @definition
