//! The init block of an AArch64 or RISC-V test: register values (integers, addresses of
//! locations and labels), locations' values and pointers, arrays.

use super::{operands, register, Lower};
use crate::asm::{CType, RegInit, Value};
use crate::ast::Thread;
use crate::syntax::{children_by_field, field, span};
use tree_sitter::Node;

impl Lower<'_, '_> {
    pub(super) fn init_entry(
        &mut self,
        entry: Node,
        threads: &[Thread],
        init: &mut Vec<RegInit>,
        memory_init: &mut Vec<(usize, Value)>,
    ) {
        let Some(loc) = field(entry, "location") else {
            return;
        };
        if loc.kind() == "att_register" {
            // `%r=x`: every thread's symbolic register `%r` starts with that value.
            let reg = self
                .symbolic
                .get(self.src.text(loc))
                .and_then(|r| register(self.arch, r));
            let value = match field(entry, "value") {
                None => Some(Value::Int(0)),
                Some(v) => self.init_value(v, threads.len()),
            };
            let users = self.symbolic_users.get(self.src.text(loc));
            if let (Some(reg), Some(value)) = (reg, value) {
                for thread in 0..threads.len() {
                    if users.is_some_and(|u| !u.contains(&thread)) {
                        continue;
                    }
                    init.push(RegInit {
                        thread,
                        reg,
                        value: value.clone(),
                        span: span(entry),
                    });
                }
            }
            return;
        }
        let pointer = field(entry, "pointer").is_some();
        let mut ctype = None;
        if let Some(t) = field(entry, "type") {
            let written = self.src.text(t);
            ctype = CType::named(written, pointer);
            if ctype.is_none() {
                let msg = format!("unsupported type `{written}`; supported: int8_t .. int64_t, uint8_t .. uint64_t, char, short, int, long");
                self.error(span(t), msg);
                return;
            }
        }
        let value = field(entry, "value");
        match loc.kind() {
            "thread_register" => {
                let (Some(t), Some(r)) = (field(loc, "thread"), field(loc, "register")) else {
                    return;
                };
                let tt = self.src.text(t);
                let digits = tt.strip_prefix(['P', 'p']).unwrap_or(tt);
                let Some(ti) = digits.parse::<usize>().ok().filter(|&i| i < threads.len()) else {
                    self.error(span(t), format!("unknown thread `{tt}`"));
                    return;
                };
                let Some(reg) = register(self.arch, self.src.text(r)) else {
                    let msg = format!("`{}` is not a register", self.src.text(r));
                    self.error(span(r), msg);
                    return;
                };
                if let Some(c) = ctype {
                    self.types.registers.insert((ti, reg), c);
                }
                let value = match value {
                    None => Some(Value::Int(0)),
                    Some(v) => self.init_value(v, threads.len()),
                };
                if let Some(value) = value {
                    init.retain(|i: &RegInit| !(i.thread == ti && i.reg == reg));
                    init.push(RegInit {
                        thread: ti,
                        reg,
                        value,
                        span: span(entry),
                    });
                }
            }
            _ => {
                let id = if loc.kind() == "memory_operand" {
                    field(loc, "location")
                } else {
                    Some(loc)
                };
                let Some(id) = id else { return };
                let var = self.mention(self.src.text(id), span(id));
                if let Some(c) = ctype {
                    self.types.locations.insert(var, c);
                }
                let size = match field(entry, "size") {
                    Some(s) => match operands::int(self.src.text(s), false) {
                        Some(n @ 1..=4096) => Some(n as u32),
                        _ => {
                            self.error(span(s), "an array has 1 to 4096 cells");
                            return;
                        }
                    },
                    None => None,
                };
                if let Some(n) = size {
                    self.shared[var].size = Some(n);
                    self.shared[var].init = vec![0; n as usize];
                    if let Some(list) = value.filter(|v| v.kind() == "initializer_list") {
                        self.array_init(var, list, n);
                        return;
                    }
                }
                match value.map(|v| (v, self.init_value(v, threads.len()))) {
                    None | Some((_, None)) => {}
                    Some((_, Some(Value::Int(i)))) if size.is_none() => {
                        self.shared[var].init = vec![i]
                    }
                    Some((_, Some(a @ (Value::Address(_) | Value::Label { .. }))))
                        if size.is_none() =>
                    {
                        memory_init.retain(|(l, _)| *l != var);
                        memory_init.push((var, a));
                    }
                    Some((v, Some(_))) => {
                        let msg = format!(
                            "unsupported initial value `{}` for an array: only an integer list",
                            self.src.text(v)
                        );
                        self.error(span(v), msg);
                    }
                }
            }
        }
    }

    /// `x[2]={1,2}`: the cells' initial values (missing ones 0).
    fn array_init(&mut self, var: usize, list: Node, n: u32) {
        let elements = children_by_field(list, "element");
        if elements.len() > n as usize {
            self.error(
                span(list),
                format!("{} values for an array of {n}", elements.len()),
            );
            return;
        }
        for (i, e) in elements.into_iter().enumerate() {
            let v = match e.kind() {
                "integer" => operands::int(self.src.text(e), false),
                "unary_expression" => field(e, "operand")
                    .filter(|o| o.kind() == "integer")
                    .and_then(|o| operands::int(self.src.text(o), true)),
                _ => None,
            };
            match v {
                Some(v) => self.shared[var].init[i] = v,
                None => {
                    let msg = format!("expected an integer, found `{}`", self.src.text(e));
                    self.error(span(e), msg);
                }
            }
        }
    }

    fn init_value(&mut self, v: Node, threads: usize) -> Option<Value> {
        match v.kind() {
            "immediate" => {
                let negative = (0..v.child_count())
                    .filter_map(|i| v.child(i))
                    .any(|c| c.kind() == "-");
                let digits = field(v, "value").map(|d| self.src.text(d)).unwrap_or("");
                match operands::int(digits, negative) {
                    Some(i) => Some(Value::Int(i)),
                    None => {
                        self.error(
                            span(v),
                            "integer literal out of range (values are 64-bit signed)",
                        );
                        None
                    }
                }
            }
            "identifier" => {
                let text = self.src.text(v);
                Some(Value::Address(self.mention(text, span(v))))
            }
            "address_of" => {
                let loc = field(v, "location")?;
                let text = self.src.text(loc);
                Some(Value::Address(self.mention(text, span(loc))))
            }
            "thread_register" => {
                let (t, l) = (field(v, "thread")?, field(v, "register")?);
                let tt = self.src.text(t);
                let digits = tt.strip_prefix(['P', 'p']).unwrap_or(tt);
                match digits.parse::<usize>().ok().filter(|&i| i < threads) {
                    Some(thread) => Some(Value::Label {
                        thread,
                        label: self.src.text(l).to_string(),
                    }),
                    None => {
                        self.error(span(t), format!("unknown thread `{tt}`"));
                        None
                    }
                }
            }
            _ => {
                let msg = format!("unsupported initial value `{}`", self.src.text(v));
                self.error(span(v), msg);
                None
            }
        }
    }
}
