; Folds for herd's cat language: long comments, definitions, procedures, and the forms that
; end with `end` (Neovim folds a node only when it spans several lines).

[
  (comment)
  (let_statement)
  (let_expression)
  (procedure_statement)
  (forall_statement)
  (if_statement)
  (match_statement)
  (match_expression)
  (begin_expression)
] @fold
