; Syntax highlighting for herd's cat language (`.cat` models, `.bell` files). Neovim's rule:
; when two patterns capture the same node, the later one wins, so general patterns come first
; and definitions last.

(comment) @comment

(string) @string

(header
  name: (_) @title)

(include_statement
  file: (string) @string.special.path)

(variant
  name: (string) @string.special)

(tag) @constant

[
  (empty_set)
  (universe)
] @constant.builtin

(wildcard) @variable.builtin

; Names herd defines for every candidate execution (a model may still redefine them).
((identifier) @variable.builtin
  (#any-of? @variable.builtin
    "po" "rf" "co" "fr" "id" "loc" "int" "ext" "rmw" "addr" "data" "ctrl" "amo"
    "M" "R" "W" "F" "B" "IW" "FW"))

[
  "let"
  "rec"
  "and"
  "in"
  "when"
  "begin"
  "end"
  "with"
  "from"
  "try"
  "show"
  "unshow"
  "debug"
  "enum"
  "instructions"
  "default"
  "catdep"
] @keyword

[
  "fun"
  "procedure"
] @keyword.function

"call" @keyword

[
  "if"
  "then"
  "else"
  "match"
] @keyword.conditional

[
  "forall"
  "do"
] @keyword.repeat

"include" @keyword.import

[
  "acyclic"
  "irreflexive"
  "empty"
  "flag"
  "undefined_unless"
  "assert"
  "as"
] @keyword

[
  "subset"
  "not"
  "variant"
] @keyword.operator

(condition
  operator: "in" @keyword.operator)

[
  "|"
  "++"
  ";"
  "\\"
  "&"
  "*"
  "~"
  "^-1"
  "^"
  "-1"
  "+"
  "?"
  "->"
  "="
  "&&"
  "||"
] @operator

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

"," @punctuation.delimiter

; Calls: `f x`, `f(a, b)`; herd's built-in functions.
(application
  function: (identifier) @function.call)

((application
  function: (identifier) @function.builtin)
  (#any-of? @function.builtin
    "domain" "range" "fencerel" "classes-loc" "classes" "linearisations"
    "different-values" "tag2events" "tag2set"))

(call_statement
  name: (identifier) @function.call)

; Definitions.
(binding
  name: (identifier) @variable)

(tuple_pattern
  (identifier) @variable)

(binding
  name: (identifier) @function
  parameters: (parameters))

(binding
  name: (identifier) @function
  parameter: (_))

(binding
  name: (identifier) @function
  value: (fun_expression))

(procedure_statement
  name: (identifier) @function)

(parameters
  (identifier) @variable.parameter)

(binding
  parameter: (identifier) @variable.parameter)

(fun_expression
  parameter: (identifier) @variable.parameter)

(procedure_statement
  parameter: (identifier) @variable.parameter)

(element_clause
  element: (identifier) @variable.parameter)

(element_clause
  rest: (identifier) @variable.parameter)

(forall_statement
  variable: (identifier) @variable)

(with_statement
  variable: (identifier) @variable)

(enum_statement
  name: (identifier) @type)

(events_statement
  name: (identifier) @type)

; Check and display names: `acyclic ... as sc`, `call p(x) as name`, `show r as name`.
(check_statement
  name: (identifier) @label)

(call_statement
  alias: (identifier) @label)

(show_statement
  name: (identifier) @label)
