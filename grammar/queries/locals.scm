; Scopes and definitions: shared locations and mutexes are global; a thread is the scope of
; its registers (any identifier in a thread that is not declared shared or mutex).

(native_test) @local.scope
(thread) @local.scope

(shared_declarator name: (identifier) @local.definition)
(mutex_declaration name: (identifier) @local.definition)

(identifier) @local.reference
