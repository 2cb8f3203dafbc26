; Declarations that name a chunk. @definition is the whole declaration, @name its name; an
; exported name (`proc add*`) is an exported_symbol around it, an operator (`proc `+``)
; an accent_quoted one.
(proc_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(func_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(method_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(iterator_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(template_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(macro_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(converter_declaration name: [
  (identifier) @name (accent_quoted) @name
  (exported_symbol [(identifier) (accent_quoted)] @name)]) @definition
(type_declaration
  (type_symbol_declaration
    name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition
; Constants anywhere, and the module's own variables.
(const_section
  (variable_declaration
    (symbol_declaration_list
      (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])))
  @definition)
(source_file
  (let_section
    (variable_declaration
      (symbol_declaration_list
        (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])))
    @definition))
(source_file
  (var_section
    (variable_declaration
      (symbol_declaration_list
        (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])))
    @definition))
