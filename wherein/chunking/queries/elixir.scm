; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; In Elixir `defmodule`, `def` and friends are ordinary calls, so the keyword is matched on
; the call's target text.

; Modules, protocols and implementations: `defmodule MyApp.Accounts do`.
((call target: (identifier) @_keyword (arguments . (alias) @name)) @definition
 (#any-of? @_keyword "defmodule" "defprotocol" "defimpl"))

; Functions, macros and guards, in each shape the head can take:
; `def name`, `def name(args)`, `def name(args) when guard`, `def name when guard`. One
; pattern, the shapes an alternation: a pattern each made this file a fifth dearer to compile.
((call
   target: (identifier) @_keyword
   (arguments . [
     (identifier) @name
     (call target: (identifier) @name)
     (binary_operator left: [(identifier) @name (call target: (identifier) @name)])
   ]))
  @definition
 (#any-of? @_keyword "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp"))

; Types and callbacks: `@type t :: ...`, `@callback init(term) :: :ok`.
((unary_operator
   operand: (call
     target: (identifier) @_keyword
     (arguments (binary_operator left: [(identifier) @name (call target: (identifier) @name)]))))
  @definition
 (#any-of? @_keyword "type" "typep" "opaque" "callback" "macrocallback"))

; Module attributes used as constants: `@timeout 5_000` (other unary operators on a call,
; `!valid?(x)`, `not is_nil(x)`, `&fun(&1)`, name nothing). Attributes that annotate the next
; definition or configure the compiler are not names of anything. (`#not-match?`, because
; the tree-sitter 0.26 Python bindings let `#not-any-of?` with several values exclude nothing.)
((unary_operator operator: "@" operand: (call target: (identifier) @name (arguments))) @definition
 (#not-match? @name "^(doc|moduledoc|typedoc|spec|impl|behaviour|derive|type|typep|opaque|callback|macrocallback|optional_callbacks|compile|dialyzer|deprecated|since|external_resource|on_load|on_definition|before_compile|after_compile|enforce_keys|tag|moduletag|describetag|vsn|file)$"))
