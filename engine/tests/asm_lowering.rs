//! AArch64 instructions lowered to `asm::Op` (RISC-V's in `asm_lowering_riscv.rs`), one test
//! per instruction class, with the registers each carries as address, data and control
//! dependencies; and the errors at instructions outside the subset.

mod asm_support;

use asm_support::*;
use litmus_engine::asm::*;
use litmus_engine::syntax;

#[test]
fn aarch64_loads_and_stores_with_ordering() {
    let o = ops(
        "AArch64",
        &[
            "LDR W0,[X1]",
            "LDAR X0,[X1]",
            "LDAPR W0,[X1]",
            "STR W0,[X1]",
            "STLR W2,[X3]",
            "LDRB W0,[X1]",
        ],
    );
    assert_eq!(
        o[0],
        Op::Load {
            dst: Reg::R(0),
            addr: plain(X1),
            width: 32,
            signed: false,
            reg_width: 32,
            ord: Ordering::default(),
            exclusive: false
        }
    );
    assert!(matches!(
        o[1],
        Op::Load {
            width: 64,
            ord: Ordering { acquire: true, .. },
            ..
        }
    ));
    assert!(matches!(
        o[2],
        Op::Load {
            ord: Ordering {
                acquire_pc: true,
                acquire: false,
                ..
            },
            ..
        }
    ));
    assert_eq!(
        o[3],
        Op::Store {
            src: Reg::R(0),
            addr: plain(X1),
            width: 32,
            ord: Ordering::default(),
            status: None
        }
    );
    assert!(matches!(
        o[4],
        Op::Store {
            src: X2,
            ord: Ordering { release: true, .. },
            ..
        }
    ));
    assert!(matches!(o[5], Op::Load { width: 8, .. }));
    // A store's address registers and its data register are different dependencies.
    let u = o[4].uses();
    assert_eq!((u.address, u.data), (vec![X3], vec![X2]));
    assert_eq!(o[0].defs(), vec![Reg::R(0)]);
}

#[test]
fn aarch64_addressing_forms() {
    let o = ops(
        "AArch64",
        &[
            "LDR W0,[X1,X2,SXTW]",
            "STR W0,[X1,X2,LSL #2]",
            "LDR X0,[X1,#8]!",
            "LDR X0,[X1],#8",
        ],
    );
    let Op::Load { addr, .. } = &o[0] else {
        panic!()
    };
    assert_eq!(
        addr.offset,
        Operand::Shifted {
            reg: X2,
            shift: Shift::Sxtw,
            amount: 0
        }
    );
    // An address dependency through the index register too.
    assert_eq!(o[0].uses().address, vec![X1, X2]);
    let Op::Store { addr, .. } = &o[1] else {
        panic!()
    };
    assert_eq!(
        addr.offset,
        Operand::Shifted {
            reg: X2,
            shift: Shift::Lsl,
            amount: 2
        }
    );
    let Op::Load { addr, .. } = &o[2] else {
        panic!()
    };
    assert_eq!(
        (addr.offset, addr.writeback),
        (Operand::Imm(8), Writeback::Pre)
    );
    let Op::Load { addr, .. } = &o[3] else {
        panic!()
    };
    assert_eq!(addr.writeback, Writeback::Post(8));
    // Writeback updates the base register.
    assert_eq!(o[3].defs(), vec![Reg::R(0), X1]);
}

#[test]
fn aarch64_exclusives_and_atomics() {
    let o = ops(
        "AArch64",
        &[
            "LDXR W2,[X1]",
            "STXR W3,W0,[X1]",
            "LDAXR W2,[X1]",
            "STLXR W3,W0,[X1]",
            "SWPAL W0,W2,[X1]",
            "LDADD W0,WZR,[X1]",
            "STADD W0,[X1]",
            "CASA W0,W2,[X1]",
        ],
    );
    assert!(matches!(
        o[0],
        Op::Load {
            exclusive: true,
            ..
        }
    ));
    assert_eq!(
        o[1],
        Op::Store {
            src: Reg::R(0),
            addr: plain(X1),
            width: 32,
            ord: Ordering::default(),
            status: Some(X3)
        }
    );
    assert_eq!(o[1].defs(), vec![X3]);
    assert!(matches!(
        o[2],
        Op::Load {
            exclusive: true,
            ord: Ordering { acquire: true, .. },
            ..
        }
    ));
    assert!(matches!(
        o[3],
        Op::Store {
            status: Some(_),
            ord: Ordering { release: true, .. },
            ..
        }
    ));
    assert_eq!(
        o[4],
        Op::Amo {
            op: AmoOp::Swap,
            dst: Some(X2),
            src: Reg::R(0),
            addr: plain(X1),
            width: 32,
            ord: Ordering {
                acquire: true,
                release: true,
                acquire_pc: false
            }
        }
    );
    assert!(matches!(
        o[5],
        Op::Amo {
            op: AmoOp::Add,
            dst: None,
            ..
        }
    ));
    assert!(matches!(
        o[6],
        Op::Amo {
            op: AmoOp::Add,
            dst: None,
            ..
        }
    ));
    assert!(matches!(
        o[7],
        Op::Cas {
            expected: Reg::R(0),
            new: X2,
            pair: false,
            ord: Ordering {
                acquire: true,
                release: false,
                ..
            },
            ..
        }
    ));
    assert_eq!(o[7].defs(), vec![Reg::R(0)]);
    assert!(o[7].reads_memory() && o[7].writes_memory());
}

#[test]
fn aarch64_barriers() {
    let o = ops(
        "AArch64",
        &["DMB SY", "DMB LD", "DMB ISHST", "DSB ISH", "ISB"],
    );
    assert_eq!(
        o,
        vec![
            Op::Barrier(Barrier::Dmb {
                dsb: false,
                kind: DmbKind::Full
            }),
            Op::Barrier(Barrier::Dmb {
                dsb: false,
                kind: DmbKind::Ld
            }),
            Op::Barrier(Barrier::Dmb {
                dsb: false,
                kind: DmbKind::St
            }),
            Op::Barrier(Barrier::Dmb {
                dsb: true,
                kind: DmbKind::Full
            }),
            Op::Barrier(Barrier::Isb),
        ]
    );
    assert_eq!(
        errors("AArch64", &["DMB XX"]),
        vec![(
            "XX".to_string(),
            "unsupported barrier option `XX`; supported: SY, LD, ST and their ISH/OSH/NSH forms"
                .to_string()
        )]
    );
}

#[test]
fn aarch64_arithmetic_carries_data_dependencies() {
    let o = ops(
        "AArch64",
        &[
            "MOV W0,#1",
            "EOR W2,W0,W0",
            "ADD X3,X3,W2,SXTW",
            "CMP W0,#1",
            "CSEL W2,W0,W3,EQ",
            "MOVK W0,#1,LSL #16",
            "ADDS X0,X0,X1,asr #2",
        ],
    );
    assert_eq!(
        o[0],
        Op::Alu {
            op: AluOp::Mov,
            dst: Reg::R(0),
            args: vec![Operand::Imm(1)],
            width: 32,
            flags: false
        }
    );
    assert_eq!(o[1].uses().data, vec![Reg::R(0), Reg::R(0)]);
    assert_eq!(o[2].uses().data, vec![X3, X2]);
    assert!(o[3].sets_flags() && o[3].defs().is_empty());
    let u = o[4].uses();
    assert!(u.flags);
    assert_eq!(u.data, vec![Reg::R(0), X3]);
    // MOVK keeps the other bits: it reads its destination.
    assert_eq!(o[5].uses().data, vec![Reg::R(0)]);
    assert!(
        matches!(&o[6], Op::Alu { flags: true, args, .. } if args[1] == Operand::Shifted { reg: X1, shift: Shift::Asr, amount: 2 })
    );
}

#[test]
fn aarch64_branches_and_labels() {
    let src = "AArch64 T\n{ 0:X1=x; }\n P0 ;\n LDR W0,[X1] ;\n CBNZ W0,L0 ;\n CMP W0,#1 ;\n B.EQ L0 ;\n L0: ;\n ISB ;\n RET ;\nexists (x=0)\n";
    let p = syntax::parse(src);
    let code = p.asm.expect("parses");
    let t = &code.threads[0];
    assert_eq!(t.labels, vec![("L0".to_string(), 4)]);
    assert_eq!(
        t.instrs[1].op,
        Op::Branch {
            cond: BranchCond::Zero {
                reg: Reg::R(0),
                zero: false
            },
            target: Target::Label("L0".into()),
            link: false
        }
    );
    assert_eq!(t.instrs[1].op.uses().control, vec![Reg::R(0)]);
    assert!(t.instrs[3].op.uses().flags);
    assert_eq!(
        t.instrs[5].op,
        Op::Branch {
            cond: BranchCond::Always,
            target: Target::Register(Reg::R(30)),
            link: false
        }
    );
    // A branch to a label the thread does not have is an error at the label.
    assert_eq!(
        errors("AArch64", &["B Nowhere"]),
        vec![(
            "Nowhere".to_string(),
            "no label `Nowhere` in thread P0: a branch goes to a label of its own thread"
                .to_string()
        )]
    );
}

#[test]
fn init_registers_hold_addresses_and_values() {
    let src = "AArch64 T\n{ x=1; 0:X1=x; 0:W2=3; int64_t 0:X4=-1; 1:X0=P0:L0; }\n P0 | P1 ;\n L0: NOP | NOP ;\nexists (0:W2=3 /\\ x=1)\n";
    let p = syntax::parse(src);
    let test = p.test.expect("parses");
    let code = p.asm.expect("code");
    assert_eq!(test.shared[0].init, vec![1]);
    let values: Vec<(usize, Reg, Value)> = code
        .init
        .iter()
        .map(|i| (i.thread, i.reg, i.value.clone()))
        .collect();
    assert_eq!(
        values,
        vec![
            (0, X1, Value::Address(0)),
            (0, X2, Value::Int(3)),
            (0, Reg::R(4), Value::Int(-1)),
            (
                1,
                Reg::R(0),
                Value::Label {
                    thread: 0,
                    label: "L0".into()
                }
            ),
        ]
    );
    // `W2` in the condition is `X2`, as herd prints it.
    let keys: Vec<String> = test.threads[0]
        .reg_init
        .iter()
        .map(|(n, _)| n.text.clone())
        .collect();
    assert_eq!(keys, vec!["X2", "X4"]);
}

#[test]
fn instructions_outside_the_subset_are_errors_at_the_mnemonic() {
    assert_eq!(
        errors("AArch64", &["LDR W0,[X1]", "TLBI VAAE1IS,X9"]),
        vec![(
            "TLBI".to_string(),
            "`TLBI` is outside the supported AArch64 subset (docs/arm-riscv.md lists it)"
                .to_string()
        )]
    );
    assert_eq!(
        errors("RISCV", &["amocas.w x5,x6,(x7)"]),
        vec![(
            "amocas.w".to_string(),
            "`amocas.w` is outside the supported RISC-V subset (docs/arm-riscv.md lists it)"
                .to_string()
        )]
    );
    // Operands of the wrong kind: at the operand.
    assert_eq!(
        errors("AArch64", &["LDR W0,X1"]),
        vec![(
            "X1".to_string(),
            "expected a memory operand `[Xn]`, found `X1`".to_string()
        )]
    );
    assert_eq!(
        errors("RISCV", &["sw x5,0(q9)"]),
        vec![(
            "q9".to_string(),
            "expected a register (`x0`..`x31` or an ABI name such as `a0`), found `q9`".to_string()
        )]
    );
}

#[test]
fn a_symbolic_register_is_given_a_register_the_test_does_not_use() {
    // herd's `%r` is a register the tool allocates (litmus7 does): here X28, the highest
    // below the link registers that no thread names; its initial value is every thread's.
    let o = ops("AArch64", &["MOV X28,#1", "MOV X0,%r"]);
    let Op::Alu { dst, args, .. } = &o[1] else {
        panic!("{o:?}")
    };
    assert_eq!(
        (*dst, args.clone()),
        (Reg::R(0), vec![Operand::Reg(Reg::R(27))])
    );
    let src = "AArch64 A127\n{ uint64_t %r = x; uint64_t x; }\n P0 | P1 ;\n MOV X0,%r | \
               MOV X1,%r ;\nexists (0:X0=x)\n";
    let p = syntax::parse(src);
    let code = p.asm.expect("parses");
    let inits: Vec<(usize, Reg, Value)> = code
        .init
        .iter()
        .map(|i| (i.thread, i.reg, i.value.clone()))
        .collect();
    assert_eq!(
        inits,
        [
            (0, Reg::R(28), Value::Address(0)),
            (1, Reg::R(28), Value::Address(0))
        ]
    );
}

#[test]
fn a_register_compared_with_a_location_is_compared_with_its_address() {
    let src = "AArch64 T\n{ 0:X1=x; int *p=&y; uint64_t a[2]={1,-2}; }\n P0 ;\n NOP ;\nfilter 0:X1=1\nexists (0:X1=x /\\ a[1]=-2)\n";
    let p = syntax::parse(src);
    let test = p.test.expect("parses");
    let code = p.asm.expect("code");
    let atoms: Vec<&str> = code.address_atoms.iter().map(|s| &src[s.range()]).collect();
    assert_eq!(atoms, ["x"]);
    assert!(code.address_atoms[0].start as usize > src.find("exists").unwrap());
    assert!(code.filter.is_some());
    // `p` holds the address of `y`; the array's cells their values.
    let y = test.shared.iter().position(|d| d.name.text == "y").unwrap();
    let p_ = test.shared.iter().position(|d| d.name.text == "p").unwrap();
    assert_eq!(code.memory_init, vec![(p_, Value::Address(y))]);
    let a = test.shared.iter().find(|d| d.name.text == "a").unwrap();
    assert_eq!(a.init, vec![1, -2]);
}

#[test]
fn more_aarch64_arithmetic() {
    let o = ops(
        "AArch64",
        &[
            "MADD X4,X1,X2,X3",
            "MNEG X4,X1,X2",
            "NEG W0,W1",
            "CSINV W0,W1,W2,NE",
            "CSETM W0,EQ",
            "BIC W0,W1,W2",
            "LDUR X0,[X1,#8]",
        ],
    );
    assert_eq!(o[0].uses().data, vec![X1, X2, X3]);
    assert!(matches!(
        o[1],
        Op::Alu {
            op: AluOp::MulAdd { negate: true },
            ..
        }
    ));
    assert!(matches!(o[2], Op::Alu { op: AluOp::Neg, .. }));
    assert!(matches!(
        o[3],
        Op::Select {
            otherwise: Otherwise::Invert,
            cond: Cond::Ne,
            ..
        }
    ));
    assert!(matches!(
        o[4],
        Op::Select {
            a: Operand::Imm(-1),
            ..
        }
    ));
    assert!(matches!(
        o[5],
        Op::Alu {
            op: AluOp::AndNot,
            flags: false,
            ..
        }
    ));
    assert!(matches!(o[6], Op::Load { width: 64, .. }));
}

#[test]
fn every_supported_mnemonic_has_a_description() {
    for m in [
        "LDR", "STLR", "LDXR", "STXR", "CASAL", "SWP", "STADD", "DMB", "ISB", "EOR", "CBNZ",
        "B.NE", "CSEL", "MOVK", "LDP", "TBZ", "ADR", "RET",
    ] {
        assert!(describe(Arch::AArch64, m).is_some(), "{m}");
    }
    for m in [
        "lw",
        "sw.rl",
        "lw.aq",
        "lr.w",
        "sc.w.aq.rl",
        "amoswap.w.aq.rl",
        "amoor.d.aq",
        "fence",
        "fence.i",
        "fence.tso",
        "ori",
        "bne",
        "li",
        "sext.w",
        "beqz",
    ] {
        assert!(describe(Arch::RiscV, m).is_some(), "{m}");
    }
    assert_eq!(describe(Arch::RiscV, "lw.xx"), None);
    assert_eq!(describe(Arch::AArch64, "TLBI"), None);
    assert_eq!(describe(Arch::AArch64, "B.XX"), None);
}
