//! The herd7 x86 dialect (`docs/reference.md#x86`): lowering to the shared AST, its diagnostics, and the
//! 487 conformance tests (all must parse and lower without diagnostics).

mod syntax_support;

use expect_test::expect;
use litmus_engine::ast::StmtKind;
use litmus_engine::syntax;
use syntax_support::check;

#[test]
fn store_buffering() {
    check(
        r#"X86 SB
"Fre PodWR Fre PodWR"
{ x=0; y=0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX=0 /\ 1:EAX=0)
"#,
        expect![[r#"
            test SB (X86) "Fre PodWR Fre PodWR"
            shared x = 0
            shared y = 0
            thread P0
              x <- 1
              EAX := *y
            thread P1
              y <- 1
              EAX := *x
            exists ((P0:EAX == 0) && (P1:EAX == 0))
        "#]],
    );
}

#[test]
fn odd_layouts_metadata_blocks_and_trailers() {
    check(
        r#"X86 iwp2.3.a/amd4 (iwpTwoThreea) "Loads may be reordered"
Cycle=Rfi PodRW Wse
Relax=
{x = 0; y = 3; P0:EAX = 1; 1:ebx = -2; 1:ECX = 0};

        P0      |       P1      ;
  mov [x], 1  	|  mov [y], 1  	;
  mfence        |               ;
  mov eax, [x] 	|  xchg ebx, [z] ;
  MOV EBX,$7    |  XCHG [x],EBX  ;
  MOV ECX,EBX   |               ;
                |               ;
locations [x; 0:EAX; w]
final (P0:EAX = 0 /\ P1:EBX <> 0 /\ not x != 1 \/ ~[y]==2 => true \/ false);
with
tso: ~exists;
cc: exists;
<<
show 3
>>
(* a comment (with parentheses) *)
"#,
        expect![[r#"
            test iwp2.3.a/amd4 (X86) "Loads may be reordered"
            shared x = 0
            shared y = 3
            shared z = 0
            shared w = 0
            thread P0 EAX=1
              x <- 1
              fence
              EAX := *x
              EBX := 7
              ECX := EBX
            thread P1 EBX=-2
              y <- 1
              EBX := xchg(z, EBX)
              EBX := xchg(x, EBX)
            exists (((((P0:EAX == 0) && (P1:EBX != 0)) && !(*x != 1)) || !(*y == 2)) => (1 || 0))
        "#]],
    );
}

#[test]
fn empty_init_and_forall_without_parentheses() {
    check(
        "X86 T\n{\n}\n P0 | P1 ;\n MOV [x],$2 | MOV EAX,[x] ;\nforall 1:EAX=0 \\/ 1:EAX=2\n",
        expect![[r#"
            test T (X86)
            shared x = 0
            thread P0
              x <- 2
            thread P1
              EAX := *x
            forall ((P1:EAX == 0) || (P1:EAX == 2))
        "#]],
    );
    check(
        "X86 T\n{x=1}\n P0 ;\n MFENCE ;\n~exists (x=0)\n",
        expect![[r#"
        test T (X86)
        shared x = 1
        thread P0
          fence
        ~exists (*x == 0)
    "#]],
    );
}

#[test]
fn unsupported_instructions_are_reported_at_their_cell() {
    check(
        "X86 U\n{ }\n P0         | P1 ;\n ADD [x],1  | MOV [x],[y] ;\n MFENCE EAX | XCHG EAX,$1 ;\n MOV [x],1  | MOV EAX,EBX | MOV [y],1 ;\nexists (x=1)\n",
        expect![[r#"
            error 4:15-4:26: unsupported MOV operands in `MOV [x],[y]`; supported: a store `MOV [x],$1` / `MOV [x],EAX`, a load `MOV EAX,[x]`, a register move `MOV EAX,$1` / `MOV EAX,EBX` (AT&T order in X86_64)
              |  ADD [x],1  | MOV [x],[y] ;
              |               ^^^^^^^^^^^
            error 5:2-5:12: MFENCE takes no operands
              |  MFENCE EAX | XCHG EAX,$1 ;
              |  ^^^^^^^^^^
            error 5:15-5:26: unsupported XCHG operands in `XCHG EAX,$1`; supported: a register and a location, `XCHG [x],EAX`
              |  MFENCE EAX | XCHG EAX,$1 ;
              |               ^^^^^^^^^^^
            error 6:29-6:38: this cell is in column 3 but the table has 2 thread columns
              |  MOV [x],1  | MOV EAX,EBX | MOV [y],1 ;
              |                             ^^^^^^^^^
        "#]],
    );
}

#[test]
fn thread_columns_and_condition_threads() {
    check(
        "X86 C\n{ 5:EAX=1; }\n P0 | P2 ;\n MOV EAX,$1 | ;\nexists (P1:EAX=1 /\\ 2:EAX=0 /\\ 0:EBX=0)\n",
        expect![[r#"
            error 2:3-2:4: unknown thread `5`
              | { 5:EAX=1; }
              |   ^
            error 3:7-3:9: thread columns are named P0, P1, ... in order: expected `P1`, found `P2`
              |  P0 | P2 ;
              |       ^^
            warning 5:12-5:15: thread `P1` never uses register `EAX`; its final value is always 0
              | exists (P1:EAX=1 /\ 2:EAX=0 /\ 0:EBX=0)
              |            ^^^
            error 5:21-5:22: unknown thread `2`; the threads are P0, P1
              | exists (P1:EAX=1 /\ 2:EAX=0 /\ 0:EBX=0)
              |                     ^
            warning 5:34-5:37: thread `P0` never uses register `EBX`; its final value is always 0
              | exists (P1:EAX=1 /\ 2:EAX=0 /\ 0:EBX=0)
              |                                  ^^^
        "#]],
    );
}

#[test]
fn x86_syntax_errors() {
    check(
        "X86 E\n{ x=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x]\n MFENCE | ;\nexists (1:EAX=1)\n",
        expect![[r#"
            error 4:26-4:26: expected `;`: every row of the code table ends with `;`
              |  MOV [x],$1 | MOV EAX,[x]
              |                          ^
        "#]],
    );
    check(
        "X86 E\n{ x=0;\n P0 ;\n MOV [x],$1 ;\n",
        expect![[r#"
            error 4:9-4:12: unexpected `,`
              |  MOV [x],$1 ;
              |         ^^^
        "#]],
    );
}

#[test]
fn a_syntax_error_in_a_cell_is_not_also_a_semantic_error() {
    check(
        "X86 E\n{ x=0; }\n P0 | P1 ;\n MOV [x] $1 | MOV EAX,[x] ;\nexists (1:EAX=1)\n",
        expect![[r#"
            error 4:6-4:9: unexpected `[`
              |  MOV [x] $1 | MOV EAX,[x] ;
              |      ^^^
        "#]],
    );
}

#[test]
fn statement_spans_are_instruction_cells() {
    let text = "X86 S\n{ }\n P0          | P1          ;\n MOV [x],$1  | MOV EAX,[x] ;\n MFENCE      | XCHG [y],EBX ;\nexists (x=1)\n";
    let parsed = syntax::parse(text);
    let test = parsed.test.expect("valid");
    let cells: Vec<Vec<&str>> = test
        .threads
        .iter()
        .map(|t| t.body.iter().map(|s| &text[s.span.range()]).collect())
        .collect();
    assert_eq!(
        cells,
        vec![
            vec!["MOV [x],$1", "MFENCE"],
            vec!["MOV EAX,[x]", "XCHG [y],EBX"]
        ]
    );
    assert_eq!(&text[test.threads[1].span.range()], "P1");
    assert!(matches!(test.threads[1].body[1].kind, StmtKind::Rmw { .. }));
}

/// All 487 x86 conformance tests parse and lower without a single diagnostic.
#[test]
fn conformance_suite_parses_without_diagnostics() {
    let dir = std::path::Path::new("/work/shared/conformance/x86");
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("skipping: {} is absent", dir.display());
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let parsed = syntax::parse(&text);
        let ok = parsed.test.as_ref().is_some_and(|t| {
            !t.threads.is_empty()
                && t.condition.is_some()
                && t.threads.iter().all(|th| !th.body.is_empty())
        });
        if !parsed.diagnostics.is_empty() || !ok {
            let first = parsed.diagnostics.first().map(|d| {
                let lc = litmus_engine::LineIndex::new(&text).line_col(d.span.start);
                format!("{}:{}: {}", lc.line, lc.col, d.message)
            });
            failures.push(format!("{}: {:?}", path.display(), first));
        }
    }
    assert!(
        files.len() >= 480,
        "expected the 487 tests, found {}",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
