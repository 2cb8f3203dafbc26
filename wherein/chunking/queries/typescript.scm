; Declarations that name a chunk. @definition is the whole declaration, @name its name.
; The TypeScript and TSX grammars share these node types; tsx.scm is a copy of this file.
(class_declaration name: (type_identifier) @name) @definition
(abstract_class_declaration name: (type_identifier) @name) @definition
(interface_declaration name: (type_identifier) @name) @definition
(type_alias_declaration name: (type_identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
; `namespace NS {}` and `module M {}`; an ambient `declare module "pkg"` is named by its string.
; Each is a @namespace: it qualifies the names inside it, and the chunker does not list it
; as a name of its own.
(internal_module name: [(identifier) (nested_identifier)] @name) @definition @namespace
(module name: [(identifier) (nested_identifier)] @name) @definition @namespace
(module name: (string (string_fragment) @name)) @definition @namespace

(function_declaration name: (identifier) @name) @definition
(generator_function_declaration name: (identifier) @name) @definition
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition
; Signatures without a body (an overload, `declare function`, an interface's or an abstract
; method) are @prototype: a query naming one wants the implementation first.
(function_signature name: (identifier) @name) @definition @prototype
([(method_signature name: [(property_identifier) (private_property_identifier)] @name)
  (abstract_method_signature
    name: [(property_identifier) (private_property_identifier)] @name)] @definition @prototype)
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
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
