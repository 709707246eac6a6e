; Scopes, definitions and references in herd's cat language. A function's or procedure's
; parameters are local to it; its name is defined in the enclosing scope (the `scope` property
; `parent`, as Neovim's locals read it). A `let ... in` is the scope of its names.

(source_file) @local.scope

(let_expression) @local.scope

(fun_expression) @local.scope

(procedure_statement) @local.scope

(forall_statement) @local.scope

(element_clause) @local.scope

(binding
  parameters: (_)) @local.scope

(binding
  parameter: (_)) @local.scope

; Definitions.
(binding
  name: (identifier) @local.definition.var)

(binding
  name: (identifier) @local.definition.function
  parameters: (_)
  (#set! definition.function.scope "parent"))

(binding
  name: (identifier) @local.definition.function
  parameter: (_)
  (#set! definition.function.scope "parent"))

(tuple_pattern
  (identifier) @local.definition.var)

(parameters
  (identifier) @local.definition.parameter)

(binding
  parameter: (identifier) @local.definition.parameter)

(fun_expression
  parameter: (identifier) @local.definition.parameter)

(procedure_statement
  name: (identifier) @local.definition.function
  (#set! definition.function.scope "parent"))

(procedure_statement
  parameter: (identifier) @local.definition.parameter)

(forall_statement
  variable: (identifier) @local.definition.var)

(with_statement
  variable: (identifier) @local.definition.var)

(element_clause
  element: (identifier) @local.definition.var)

(element_clause
  rest: (identifier) @local.definition.var)

(enum_statement
  name: (identifier) @local.definition.type)

; References.
(identifier) @local.reference
