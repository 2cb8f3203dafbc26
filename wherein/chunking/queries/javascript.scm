; Declarations that name a chunk. @definition is the whole declaration, @name its name.
(class_declaration name: (identifier) @name) @definition
(function_declaration name: (identifier) @name) @definition
(generator_function_declaration name: (identifier) @name) @definition
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition

; `const f = () => ...`, `const C = class {...}` anywhere: functions by another spelling.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @definition

; Module-level constants and variables (`export const LIMIT = 10`).
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition))
(program (export_statement
  declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition)))

; `Foo.prototype.bar = function () {}`, `module.exports.run = () => {}`.
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition

; Methods written as object properties: `{ run: function () {} }`.
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition

; A module bound to a name (`const express = require("express")`): no declaration of its own.
(variable_declarator
  value: (call_expression function: (identifier) @_import (#eq? @_import "require"))) @import
