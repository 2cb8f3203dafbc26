; Declarations that name a chunk: a form whose head is a defining macro (`defn`, `def`,
; `defprotocol`, ...) is named by the symbol after it. @definition is the whole form, @name
; its name; metadata (`^:dynamic`, `^{:doc ...}`) sits inside the name's symbol.
((list_lit
  .
  (sym_lit name: (sym_name) @_define)
  .
  (sym_lit name: (sym_name) @name)) @definition
  (#match? @_define "^(ns|def|defn-?|defmacro|defonce|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|defstruct)$"))
