//! RISC-V instructions lowered to `asm::Op`, one test per instruction class, with the
//! registers each carries as address, data and control dependencies (AArch64's and the errors
//! in `asm_lowering.rs`).

mod asm_support;

use asm_support::*;
use litmus_engine::asm::*;
use litmus_engine::syntax;

#[test]
fn riscv_loads_stores_and_ordering() {
    let o = ops(
        "RISCV",
        &[
            "lw x5,0(x6)",
            "lw.aq x5,0(x6)",
            "sw.rl x5,0(x7)",
            "sd a0,8(s0)",
            "lbu x5,(x6)",
        ],
    );
    assert_eq!(
        o[0],
        Op::Load {
            dst: Reg::R(5),
            addr: plain(Reg::R(6)),
            width: 32,
            signed: true,
            reg_width: 64,
            ord: Ordering::default(),
            exclusive: false
        }
    );
    assert!(matches!(
        o[1],
        Op::Load {
            ord: Ordering { acquire: true, .. },
            ..
        }
    ));
    assert!(matches!(
        o[2],
        Op::Store {
            ord: Ordering { release: true, .. },
            ..
        }
    ));
    assert_eq!(
        o[3],
        Op::Store {
            src: Reg::R(10),
            addr: Address {
                base: Reg::R(8),
                offset: Operand::Imm(8),
                writeback: Writeback::None
            },
            width: 64,
            ord: Ordering::default(),
            status: None
        }
    );
    assert!(matches!(
        o[4],
        Op::Load {
            width: 8,
            signed: false,
            ..
        }
    ));
}

#[test]
fn riscv_reservations_and_amos() {
    let o = ops(
        "RISCV",
        &[
            "lr.w x7,0(x6)",
            "sc.w x8,x5,0(x6)",
            "amoswap.w.aq.rl x0,x5,(x6)",
            "amoor.w.aq x9,x0,(x6)",
            "amoadd.d x9,x5,(x6)",
        ],
    );
    assert!(matches!(
        o[0],
        Op::Load {
            exclusive: true,
            ..
        }
    ));
    assert_eq!(o[1].defs(), vec![Reg::R(8)]);
    assert_eq!(
        o[2],
        Op::Amo {
            op: AmoOp::Swap,
            dst: None,
            src: Reg::R(5),
            addr: plain(Reg::R(6)),
            width: 32,
            ord: Ordering {
                acquire: true,
                release: true,
                acquire_pc: false
            }
        }
    );
    // `x0` as a source is the zero register: no data dependency.
    assert!(o[3].uses().data.is_empty());
    assert!(matches!(
        o[4],
        Op::Amo {
            op: AmoOp::Add,
            width: 64,
            ..
        }
    ));
}

#[test]
fn riscv_fences() {
    let o = ops(
        "RISCV",
        &["fence rw,rw", "fence r,w", "fence.tso", "fence.i", "fence"],
    );
    let rw = Accesses {
        r: true,
        w: true,
        i: false,
        o: false,
    };
    assert_eq!(o[0], Op::Barrier(Barrier::Fence { pred: rw, succ: rw }));
    assert_eq!(
        o[1],
        Op::Barrier(Barrier::Fence {
            pred: Accesses {
                r: true,
                ..Default::default()
            },
            succ: Accesses {
                w: true,
                ..Default::default()
            }
        })
    );
    assert_eq!(o[2], Op::Barrier(Barrier::FenceTso));
    assert_eq!(o[3], Op::Barrier(Barrier::FenceI));
    assert!(matches!(
        o[4],
        Op::Barrier(Barrier::Fence {
            pred: Accesses {
                i: true,
                o: true,
                ..
            },
            ..
        })
    ));
}

#[test]
fn riscv_arithmetic_and_branches() {
    let src = "RISCV T\n{ 0:x6=x; }\n P0 ;\n lw x5,0(x6) ;\n xor x7,x5,x5 ;\n add x8,x6,x7 ;\n ori x9,x0,1 ;\n bne x5,x0,LC00 ;\n LC00: ;\n li t1,2 ;\nexists (x=0)\n";
    let code = syntax::parse(src).asm.expect("parses");
    let i = &code.threads[0].instrs;
    // The address of a later access through `x8` depends on the load (xor, add).
    assert_eq!(i[1].op.uses().data, vec![Reg::R(5), Reg::R(5)]);
    assert_eq!(i[2].op.uses().data, vec![Reg::R(6), Reg::R(7)]);
    assert_eq!(
        i[3].op,
        Op::Alu {
            op: AluOp::Or,
            dst: Reg::R(9),
            args: vec![Operand::Reg(Reg::Zero), Operand::Imm(1)],
            width: 64,
            flags: false
        }
    );
    assert!(i[3].op.uses().data.is_empty());
    assert_eq!(
        i[4].op,
        Op::Branch {
            cond: BranchCond::Compare {
                op: CompareOp::Ne,
                a: Reg::R(5),
                b: Reg::Zero
            },
            target: Target::Label("LC00".into()),
            link: false
        }
    );
    assert_eq!(i[4].op.uses().control, vec![Reg::R(5)]);
    assert_eq!(
        i[5].op,
        Op::Alu {
            op: AluOp::Mov,
            dst: Reg::R(6),
            args: vec![Operand::Imm(2)],
            width: 64,
            flags: false
        }
    );
}
