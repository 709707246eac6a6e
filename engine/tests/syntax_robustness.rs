//! The front end never panics: random bytes, random token soup, and truncations and
//! mutations of valid programs (every dialect: native, X86, X86_64, AArch64, RISC-V, C
//! with the kernel's macros and with C11 atomics, PPC and ARM).
//! It also keeps its contract on all of them: `test` is `None` iff there is an error
//! diagnostic, and every span lies inside the text; a C test's macro expansion (with a
//! `.def` written here) gives errors inside the text too, and so does the `.def` parser on
//! mutated definitions (and the expansion with whatever they define). Incremental reparsing
//! gives the same result as parsing from scratch. The cat parser's are in `cat_robustness.rs`.

mod syntax_support;
mod tier;

use syntax_support::char_floor;

use litmus_engine::syntax;
use proptest::prelude::*;
use tree_sitter::{InputEdit, Point};

const NATIVE: &str = r#"// SB with everything
litmus SB+all "desc"
shared x = 0, y, a[3] = {1, 2, 3};
mutex m;
thread P0 {
  x = 1;
  r0 = y + a[r1 % 3] * -2;
  lock(m); r2 = xchg(x, 2); unlock(m);
  if (r0 == 0 && !r2) { fence; } else if (r0 > 1) { assert(r0 != 5); } else { assume(r0 < 9); }
  while (r0 < 3) { r0 = r0 + 1; }
  r3 = cas(y, 0, 1); fetch_add(a[0], 1); await(x >= 1);
}
thread P1 { y = 1; r1 = x; }
exists (P0:r0 == 0 && P1:r1 == 0 || a[1] == 2)
"#;

const X86: &str = r#"X86 SB+mfences (sbmf) "doc"
Cycle=Fre PodWR
{ x=0; y=0; 0:EAX=1; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MFENCE      | XCHG [x],EBX ;
 MOV EAX,[y] | MOV EAX,[x] ;
locations [x;]
exists (0:EAX=0 /\ 1:EAX=0 \/ ~(x=1) => [y]=1)
with tso: ~exists;
(* done *)
"#;

/// herd's AT&T dialect with locked instructions, labels and jumps (a loop and an if/else).
const X86_64: &str = r#"X86_64 L
{ uint64_t x; int8_t y = 1; 0:rax = 2; }
 P0                  | P1             ;
 lock xaddq %rax,(x) | L0:            ;
 cmpq $1,%rax        | movq (x),%rbx  ;
 jne L1              | cmpq $0,%rbx   ;
 movb $2,(y)         | je L0          ;
 jmp L2              | LOCK; INC (x)  ;
 L1: mfence          | xchgq %rcx,(x) ;
 L2: nopl 0(%rax)    |                ;
locations [x; 1:rbx;]
forall (0:rax=0 \/ [x]=3)
"#;

const AARCH64: &str = r#"AArch64 MP+dmb.sy+addr
"doc"
{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }
 P0          | P1                  ;
 MOV W0,#1   | LDR W0,[X1]         ;
 STR W0,[X1] | EOR W2,W0,W0        ;
 DMB SY      | LDR W4,[X3,W2,SXTW] ;
 MOV W2,#1   | CBNZ W4,L0          ;
 STR W2,[X3] | L0:                 ;
exists (1:X0=1 /\ 1:X4=0)
"#;

const RISCV: &str = r#"RISCV SB+fence.rw.rws
{ 0:x5=1; 0:x6=x; 0:x8=y; 1:x5=1; 1:x6=y; 1:x8=x; }
 P0          | P1                      ;
 sw x5,0(x6) | sw x5,0(x6)             ;
 fence rw,rw | amoswap.w.aq x9,x5,(x6) ;
 lw x7,0(x8) | lw x7,0(x8)             ;
exists (0:x7=0 /\ 1:x7=0)
"#;

const PPC: &str = r#"PPC MP+lwsync+addr
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0           | P1              ;
 li r1,1      | lwz r1,0(r2)    ;
 stw r1,0(r2) | xor r3,r1,r1    ;
 lwsync       | lwzx r5,r3,r4   ;
 stw r1,0(r4) | cmpw r5,r5      ;
              | beq L0          ;
              | L0:             ;
              | isync           ;
              | lwarx r6,r0,r4  ;
              | stwcx. r6,r0,r4 ;
exists (1:r1=1 /\ 1:r5=0)
"#;

const ARM: &str = r#"ARM MP+dmb.st+ctrlisb ()
{ %x0=x; %y0=y; %y1=y; %x1=x; }
 P0           | P1                ;
 MOV R0,#1    | LDR R0,[%y1]      ;
 STR R0,[%x0] | CMP R0,R0         ;
 DMB ST       | BNE LC00          ;
 STR R0,[%y0] | LC00:             ;
              | ISB               ;
              | EOR R2,R0,R0      ;
              | LDR R1,[R2,%x1]   ;
              | LDREX R3,[%x1]    ;
              | STREX R4,R3,[%x1] ;
exists (1:R0=1 /\ 1:R1=0)
"#;

/// herd's C dialect: kernel macros, C11 forms, locals, casts, `if`/`else`, `while`.
const C: &str = r#"C MP+all
"doc"
Cycle=Rfe PodRR
(* Result: Never *)
{ x = 1; int *p = &y; 0:r9 = 2; atomic_t v = ATOMIC_INIT(1); }

P0(int *x, int *y, spinlock_t *s, atomic_t *v)
{
	int r0 = READ_ONCE(*x);
	WRITE_ONCE(*y, r0 + 1);
	spin_lock(s);
	r1 = xchg(x, 2);
	spin_unlock(s);
	if (r0 == 1 && !r1) { smp_mb(); } else if (r1 > 1) smp_store_release(y, 3); else { atomic_inc(v); }
	while (READ_ONCE(*x) == 0) ;
	*x = (int)r0 * -2;
}

P1(int *x, int *y)
{
	intptr_t r0 = (intptr_t)smp_load_acquire(y);
	r1 = atomic_load_explicit(x, memory_order_acquire);
}

locations [x; 1:r0;]
filter (1:r0=1)
exists (1:r0=1 /\ 1:r1=0 \/ ~(x=1))
"#;

/// herd's C dialect with C11 atomics (Dat3M's and herd's `rc11.cat` tests): bracketed
/// locations in the init block, `atomic_int *` parameters, every `atomic_*_explicit` form,
/// fences, a compare-exchange through a location, plain accesses, `forall`.
const C11: &str = r#"C C11+all
(* C11 forms *)
{ [x] = 0; [y] = 0; [e] = 1; int *p = &x; }

P0 (atomic_int* x, atomic_int* y, volatile int* z) {
  atomic_store_explicit(x, 1, memory_order_release);
  atomic_thread_fence(memory_order_seq_cst);
  int r0 = atomic_load_explicit(y, memory_order_acquire);
  int r1 = atomic_fetch_add_explicit(x, 2, memory_order_acq_rel);
  int r2 = atomic_exchange_explicit(y, 3, memory_order_seq_cst);
  *z = r0 + 1;
}

P1 (atomic_int* x, atomic_int* e, volatile int* z) {
  int t = atomic_compare_exchange_strong_explicit(x, e, 2, memory_order_acquire, memory_order_relaxed);
  int u = atomic_compare_exchange_weak_explicit(x, e, 3, memory_order_seq_cst, memory_order_seq_cst);
  int r3 = atomic_load_explicit(x, memory_order_consume);
  if (t) {
    int r4 = *z;
  }
}

locations [z;]
forall (0:r0=0 \/ 1:t=1 /\ x=2)
"#;

/// The macros the C seed uses, in herd's `.def` syntax (written here).
const DEFS: &str = "READ_ONCE(X) __load{once}(X)
WRITE_ONCE(X,V) { __store{once}(X,V); }
smp_store_release(X,V) { __store{release}(*X,V); }
smp_load_acquire(X) __load{acquire}(*X)
smp_mb() { __fence{mb}; }
xchg(X,V) __xchg{mb}(X,V)
spin_lock(X) { __lock(X); }
spin_unlock(X) { __unlock(X); }
atomic_inc(X) { __atomic_op{noreturn}(X,+,1); }
atomic_dec_and_test(X) __atomic_op_return{mb}(X,-,1) == 0
";

/// More of the kernel's primitives, for the `.def` parser's mutations (written here).
const DEFS_MORE: &str = "// kernel forms
cmpxchg_acquire(X,V,W) __cmpxchg{acquire}(X,V,W)
atomic_add_unless(X,V,W) __atomic_add_unless{mb}(X,V,W)
atomic_fetch_andnot(V,X) __atomic_fetch_op{mb}(X,&~,V)
rcu_read_lock() { __fence{rcu-lock}; }
synchronize_srcu(X) { __srcu{sync-srcu}(X); }
srcu_read_lock(X) __srcu{srcu-lock}(X)
spin_trylock(X) __trylock(X)
smp_store_mb(X,V) { __store{once}(X,V); __fence{mb}; }
/* a comment */ READ_ONCE(X) __load{once}(X)
";
const SEEDS: [&str; 9] = [NATIVE, X86, X86_64, AARCH64, RISCV, C, C11, PPC, ARM];

/// One of the seed programs.
fn seed(which: usize) -> &'static str {
    SEEDS[which % SEEDS.len()]
}

const TOKENS: &[&str] = &[
    "C",
    "AArch64",
    "RISCV",
    "PPC",
    "ARM",
    "stwcx.",
    "lwarx",
    "r0",
    "0(r2)",
    "%x0",
    "[%x1]",
    "DMB ST",
    "READ_ONCE",
    "smp_mb",
    "(*x",
    "*x",
    "&x",
    "->",
    "int",
    "intptr_t",
    "P0(int *x)",
    "atomic_load_explicit",
    "atomic_store_explicit(",
    "atomic_fetch_add_explicit(x,",
    "atomic_compare_exchange_strong_explicit",
    "atomic_thread_fence(",
    "memory_order_acquire",
    "memory_order_seq_cst)",
    "memory_order_bogus",
    "atomic_int*",
    "[x]",
    "__load{once}",
    "LDR",
    "X0",
    "[X1]",
    "#1",
    "sw",
    "x5",
    "0(x6)",
    "?",
    "&",
    "^",
    "+=",
    "litmus",
    "X86",
    "X86_64",
    "%rax",
    "(x)",
    "L0:",
    "JNE",
    "jmp",
    "L0",
    "LOCK",
    "CMP",
    "$1",
    "shared",
    "mutex",
    "thread",
    "P0",
    "P1",
    "x",
    "a",
    "r0",
    "EAX",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "=",
    "==",
    "!=",
    "<>",
    "&&",
    "||",
    "/\\",
    "\\/",
    "=>",
    "~",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "<",
    "<=",
    ">",
    ">=",
    "if",
    "else",
    "while",
    "fence",
    "lock",
    "unlock",
    "xchg",
    "cas",
    "fetch_add",
    "assert",
    "assume",
    "await",
    "exists",
    "forall",
    "~exists",
    "final",
    "true",
    "false",
    "0",
    "1",
    "99999999999999999999",
    "$1",
    "MOV",
    "MFENCE",
    "XCHG",
    "|",
    ":",
    "\"s\"",
    "//c\n",
    "/*",
    "*/",
    "(*",
    "*)",
    "<<",
    ">>",
    "locations",
    "with",
    "not",
    "\n",
    " ",
    "é",
    "\u{0}",
];

fn check_contract(text: &str) {
    let parsed = syntax::parse(text);
    assert_eq!(
        parsed.c.is_some(),
        parsed
            .test
            .as_ref()
            .is_some_and(|t| t.dialect == litmus_engine::ast::Dialect::C),
        "a C test's source iff a C test, for {text:?}"
    );
    if let Some(src) = &parsed.c {
        let defs = litmus_engine::c::Defs::parse("seed.def", DEFS).expect("the seed .def parses");
        if let Err(errors) = litmus_engine::c::lower(src, &defs) {
            assert!(!errors.is_empty());
            for d in errors {
                assert!(
                    d.span.start <= d.span.end && d.span.end as usize <= text.len(),
                    "expansion error {d:?} outside {text:?}"
                );
            }
        }
    }
    let has_error = parsed.diagnostics.iter().any(|d| d.is_error());
    assert_eq!(
        parsed.test.is_none(),
        has_error,
        "test None iff error, for {text:?}"
    );
    for d in &parsed.diagnostics {
        assert!(
            d.span.start <= d.span.end && d.span.end as usize <= text.len(),
            "span {:?} outside {text:?}",
            d.span
        );
        assert!(
            text.is_char_boundary(d.span.start as usize)
                && text.is_char_boundary(d.span.end as usize)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: tier::sweep(64, 400) as u32, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check_contract(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup(tokens in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80), which in 0usize..9) {
        let header = ["litmus T\n", "X86 T\n", "X86_64 T\n", "AArch64 T\n", "RISCV T\n", "C T\n", "C T\n{ [x] = 0; }\n", "PPC T\n", "ARM T\n"];
        let mut text = String::from(header[which]);
        for t in tokens {
            text.push_str(t);
            text.push(' ');
        }
        check_contract(&text);
    }

    #[test]
    fn truncations(cut in 0usize..2000, which in 0usize..9) {
        let src = seed(which);
        check_contract(&src[..char_floor(src, cut % (src.len() + 1))]);
    }

    #[test]
    fn mutations(at in 0usize..2000, len in 0usize..12, insert in proptest::sample::select(TOKENS), which in 0usize..9) {
        let src = seed(which);
        let start = char_floor(src, at % src.len());
        let end = char_floor(src, (start + len).min(src.len())).max(start);
        let mut text = src.to_string();
        text.replace_range(start..end, insert);
        check_contract(&text);
    }

    /// An edited old tree reparsed incrementally gives the tree a fresh parse gives.
    #[test]
    fn incremental_matches_fresh(at in 0usize..2000, len in 0usize..8, insert in proptest::sample::select(TOKENS), which in 0usize..9) {
        let src = seed(which);
        let start = char_floor(src, at % src.len());
        let end = char_floor(src, (start + len).min(src.len())).max(start);
        let mut text = src.to_string();
        text.replace_range(start..end, insert);
        let point = |s: &str, i: usize| {
            let row = s[..i].matches('\n').count();
            Point::new(row, i - s[..i].rfind('\n').map_or(0, |j| j + 1))
        };
        let mut old = syntax::parse(src).tree;
        old.edit(&InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: start + insert.len(),
            start_position: point(src, start),
            old_end_position: point(src, end),
            new_end_position: point(&text, start + insert.len()),
        });
        let incremental = syntax::parse_incremental(&text, Some(&old));
        let fresh = syntax::parse(&text);
        prop_assert_eq!(incremental.tree.root_node().to_sexp(), fresh.tree.root_node().to_sexp());
        prop_assert_eq!(incremental.test, fresh.test);
        prop_assert_eq!(incremental.diagnostics, fresh.diagnostics);
        prop_assert_eq!(incremental.c, fresh.c);
    }

    /// The `.def` parser on mutated definitions: a definition set or an error inside the
    /// text, never a panic; and the C seeds expanded with whatever definitions parse:
    /// a program or errors inside the test's text.
    #[test]
    fn def_mutations(at in 0usize..2000, len in 0usize..12, insert in proptest::sample::select(TOKENS), more in any::<bool>()) {
        let defs = if more { DEFS_MORE } else { DEFS };
        let start = char_floor(defs, at % defs.len());
        let end = char_floor(defs, (start + len).min(defs.len())).max(start);
        let mut text = defs.to_string();
        text.replace_range(start..end, insert);
        match litmus_engine::c::Defs::parse("m.def", &text) {
            Err(e) => {
                prop_assert!(e.line >= 1 && e.line <= text.lines().count() + 1, "{e} in {text:?}");
                prop_assert!(e.col >= 1, "{e} in {text:?}");
                prop_assert!(!e.message.is_empty());
            }
            Ok(parsed) => {
                for c in [C, C11] {
                    let src = syntax::parse(c).c.expect("a C seed's source");
                    if let Err(errors) = litmus_engine::c::lower(&src, &parsed) {
                        for d in errors {
                            prop_assert!(
                                d.span.start <= d.span.end && d.span.end as usize <= c.len(),
                                "expansion error {:?} outside the test, with {:?}", d, text
                            );
                        }
                    }
                }
            }
        }
    }

}

#[test]
fn the_seed_programs_are_valid() {
    for src in SEEDS {
        let parsed = syntax::parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert!(parsed.test.is_some());
    }
    let defs = litmus_engine::c::Defs::parse("seed.def", DEFS).expect("the seed .def parses");
    for src in [C, C11] {
        let c = syntax::parse(src).c.expect("the C seeds' source");
        litmus_engine::c::lower(&c, &defs).expect("the C seeds expand");
    }
    litmus_engine::c::Defs::parse("more.def", DEFS_MORE).expect("the second .def parses");
}

/// Pathological shapes: deep nesting in every position the lowering recurses into, in both
/// dialects, and long runs of garbage. They must give diagnostics, not a stack overflow.
#[test]
fn pathological_inputs_do_not_overflow() {
    let n = 20_000;
    let open = "(".repeat(n);
    let close = ")".repeat(n);
    let inputs = [
        format!("litmus D\nthread P0 {{ }}\nexists {open}1{close}\n"),
        format!(
            "litmus D\nshared a[2];\nthread P0 {{ r0 = a[{}0{}]; }}\n",
            "a[".repeat(n),
            "]".repeat(n)
        ),
        format!("litmus D\nthread P0 {{ r0 = {}1; }}\n", "-".repeat(n)),
        format!(
            "litmus D\nthread P0 {{ {}r0 = 1;{} }}\n",
            "while (1) { ".repeat(n),
            " }".repeat(n)
        ),
        format!(
            "litmus D\nthread P0 {{ {}r0 = 1;{} }}\n",
            "if (1) { } else ".repeat(n),
            ""
        ),
        format!("X86 D\n{{ }}\n P0 ;\n MFENCE ;\nexists {open}x=1{close}\n"),
        format!(
            "X86 D\n{{ }}\n P0 ;\n MFENCE ;\nexists {}x=1\n",
            "~".repeat(n)
        ),
        format!("litmus D\nthread P0 {{ {} }}\n", "@ ".repeat(n)),
        format!("litmus D\n{}", "thread P0 { ".repeat(n)),
        format!("C D\n{{}}\nP0(int *x) {{ r0 = {open}1{close}; }}\n"),
        format!("C D\n{{}}\nP0(int *x) {{ r0 = {}1; }}\n", "-".repeat(n)),
        format!("C D\n{{}}\nP0(int *x) {{ r0 = {}1; }}\n", "1 + ".repeat(n)),
        format!(
            "C D\n{{}}\nP0(int *x) {{ {}r0 = 1;{} }}\n",
            "{ ".repeat(n),
            " }".repeat(n)
        ),
        format!(
            "C D\n{{}}\nP0(int *x) {{ {}r0 = 1; }}\n",
            "if (1) ".repeat(n)
        ),
        format!(
            "C D\n{{}}\nP0(int *x) {{ {}r0 = 1; }}\n",
            "while (1) ".repeat(n)
        ),
        format!(
            "C D\n{{}}\nP0(int *x) {{ r0 = {}x{}; }}\n",
            "READ_ONCE(".repeat(n),
            ")".repeat(n)
        ),
        "{".repeat(n),
    ];
    // Half the 2 MiB a tokio worker or test thread gets: room to spare for the callers.
    let worker = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            for text in &inputs {
                let parsed = syntax::parse(text);
                assert!(parsed.test.is_none(), "{}", &text[..40]);
                assert!(!parsed.diagnostics.is_empty());
            }
        });
    worker.unwrap().join().unwrap();
}

/// What an editor does: type a program one character at a time, reparsing incrementally
/// from the previous tree after each keystroke. Every step agrees with a fresh parse.
#[test]
fn typing_character_by_character_matches_fresh_parses() {
    for src in SEEDS {
        let mut text = String::new();
        let mut tree = syntax::parse("").tree;
        for ch in src.chars() {
            let at = text.len();
            let row = text.matches('\n').count();
            let col = at - text.rfind('\n').map_or(0, |i| i + 1);
            text.push(ch);
            let (new_row, new_col) = if ch == '\n' {
                (row + 1, 0)
            } else {
                (row, col + ch.len_utf8())
            };
            tree.edit(&InputEdit {
                start_byte: at,
                old_end_byte: at,
                new_end_byte: text.len(),
                start_position: Point::new(row, col),
                old_end_position: Point::new(row, col),
                new_end_position: Point::new(new_row, new_col),
            });
            let incremental = syntax::parse_incremental(&text, Some(&tree));
            let fresh = syntax::parse(&text);
            assert_eq!(
                incremental.diagnostics, fresh.diagnostics,
                "after typing {text:?}"
            );
            assert_eq!(incremental.test, fresh.test);
            tree = incremental.tree;
        }
        assert!(syntax::parse(&text).diagnostics.is_empty());
    }
}
