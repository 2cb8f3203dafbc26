; Declarations that name a chunk. @definition is the whole declaration, @name its name,
; @receiver the table a function is stored in (`function M.new()`, `function M:start()`).
(function_declaration name: (identifier) @name) @definition
(function_declaration
  name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name)) @definition
(function_declaration
  name: (method_index_expression table: (identifier) @receiver method: (identifier) @name)) @definition
; `M.stop = function() end` and `local cb = function() end`.
(assignment_statement
  (variable_list
    name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name))
  (expression_list value: (function_definition))) @definition
(assignment_statement
  (variable_list name: (identifier) @name)
  (expression_list value: (function_definition))) @definition
; File-level locals: the module table and its constants. The first name alone: a line of
; several (`local pairs, insert = pairs, table.insert`) aliases what is declared elsewhere.
(chunk
  (variable_declaration
    (assignment_statement (variable_list . name: (identifier) @name)) @definition))
; A module bound to a name (`local json = require "cjson"`): no declaration of its own.
(assignment_statement
  (expression_list
    value: (function_call name: (identifier) @_import (#eq? @_import "require")))) @import
