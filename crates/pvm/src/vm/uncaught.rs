//! An uncaught exception or abort rendered as CPython prints it: the traceback, the
//! `__cause__` / `__context__` chain and the tree of an exception group.

use super::{Abort, Exc, Vm};
use crate::value::Value;

/// An uncaught exception or abort, rendered.
#[derive(Debug)]
pub struct Uncaught {
    /// Exception class name (`OutOfCycles` / `MemoryError` for aborts).
    pub class: String,
    /// Full traceback text ending with `Class: message`.
    pub traceback: String,
}

impl Vm<'_> {
    /// Render an uncaught exception or abort CPython-style.
    pub fn render_uncaught(&mut self, e: Exc) -> Uncaught {
        match e {
            Exc::Abort(a) => {
                let (class, msg) = match a {
                    Abort::OutOfCycles => ("OutOfCycles", "cycle budget exhausted"),
                    Abort::MemoryLimit => ("MemoryError", "invocation memory limit exceeded"),
                    Abort::OutOfCells => ("OutOfCells", "cell budget exhausted"),
                    Abort::HostFailure => ("HostFailure", "the chain host failed"),
                };
                Uncaught {
                    class: class.into(),
                    traceback: format!("Traceback (most recent call last):\n{class}: {msg}"),
                }
            }
            Exc::Py(v) => {
                let mut text = String::new();
                render_chain(self, &v, &mut text, 0);
                let class = self.type_name(&v);
                Uncaught {
                    class,
                    traceback: text.trim_end().to_string(),
                }
            }
        }
    }
}

/// Where an exception is printed inside an exception group's tree (CPython's
/// `_ExceptionPrintContext`): nesting depth and whether the current group still needs its
/// closing line.
#[derive(Default)]
struct GroupCtx {
    depth: usize,
    need_close: bool,
}

/// CPython prints at most 15 sub-exceptions of a group and 10 levels of nesting.
const MAX_GROUP_WIDTH: usize = 15;
const MAX_GROUP_DEPTH: usize = 10;

impl GroupCtx {
    fn indent(&self) -> String {
        " ".repeat(2 * self.depth)
    }
    /// Every line of `text` behind the indentation and the margin character.
    fn emit(&self, out: &mut String, text: &str, margin: char) {
        let mut prefix = self.indent();
        if self.depth > 0 {
            prefix.push(margin);
            prefix.push(' ');
        }
        for line in text.split_inclusive('\n') {
            out.push_str(&prefix);
            out.push_str(line);
        }
    }
}

fn render_chain(vm: &mut Vm, v: &Value, out: &mut String, depth: u32) {
    render_exc(vm, v, out, depth, &mut GroupCtx::default());
}

fn render_exc(vm: &mut Vm, v: &Value, out: &mut String, depth: u32, ctx: &mut GroupCtx) {
    if let Value::Instance(i) = v {
        let (cause, context, suppress, tb) = match i.exc.borrow().as_ref() {
            Some(st) => (
                st.cause.clone(),
                st.context.clone(),
                st.suppress,
                st.traceback().to_vec(),
            ),
            None => (None, None, false, Vec::new()),
        };
        if depth < 16 {
            if let Some(c) = cause {
                render_exc(vm, &c, out, depth + 1, ctx);
                ctx.emit(
                    out,
                    "\nThe above exception was the direct cause of the following exception:\n\n",
                    '|',
                );
            } else if let (Some(c), false) = (context, suppress) {
                render_exc(vm, &c, out, depth + 1, ctx);
                ctx.emit(
                    out,
                    "\nDuring handling of the above exception, another exception occurred:\n\n",
                    '|',
                );
            }
        }
        let mut frames = String::new();
        for (file, line, func) in tb.iter().rev() {
            frames.push_str(&format!("  File \"{file}\", line {line}, in {func}\n"));
            if let Some(src) = vm.sources.get(file) {
                if let Some(l) = src.lines().nth(line.saturating_sub(1) as usize) {
                    frames.push_str(&format!("    {}\n", l.trim()));
                }
            }
        }
        let cls = i.cls();
        let module = match cls.dict.borrow().get("__module__") {
            Some(Value::Str(s)) if &*s.s != "builtins" && &*s.s != "__main__" => {
                format!("{}.", s.s)
            }
            _ => String::new(),
        };
        let msg = vm.str(v).unwrap_or_default();
        let mut only = if msg.is_empty() {
            format!("{}{}\n", module, cls.name)
        } else {
            format!("{}{}: {}\n", module, cls.name, msg)
        };
        // PEP 678 notes, one per line after the message.
        if let Some(notes) = i.dict.get_str("__notes__") {
            for note in vm.collect(&notes).unwrap_or_default() {
                only.push_str(&vm.str(&note).unwrap_or_default());
                only.push('\n');
            }
        }
        let members =
            crate::objects::native_type::state::<crate::objects::excgroup::Eg>(v).map(|g| match &g
                .exceptions
            {
                Value::Tuple(t) => t.items.to_vec(),
                _ => Vec::new(),
            });
        let Some(members) = members else {
            if !tb.is_empty() {
                ctx.emit(out, "Traceback (most recent call last):\n", '|');
                ctx.emit(out, &frames, '|');
            }
            ctx.emit(out, &only, '|');
            return;
        };
        // An exception group: CPython's tree of sub-exceptions.
        if ctx.depth > MAX_GROUP_DEPTH {
            ctx.emit(
                out,
                &format!("... (max_group_depth is {MAX_GROUP_DEPTH})\n"),
                '|',
            );
            return;
        }
        let top = ctx.depth == 0;
        if top {
            ctx.depth += 1;
        }
        if !tb.is_empty() {
            let margin = if top { '+' } else { '|' };
            ctx.emit(
                out,
                "Exception Group Traceback (most recent call last):\n",
                margin,
            );
            ctx.emit(out, &frames, '|');
        }
        ctx.emit(out, &only, '|');
        let n = members.len().min(MAX_GROUP_WIDTH + 1);
        ctx.need_close = false;
        for (k, e) in members.iter().take(n).enumerate() {
            let last = k + 1 == n;
            if last {
                ctx.need_close = true;
            }
            let truncated = k >= MAX_GROUP_WIDTH;
            let title = if truncated {
                "...".to_string()
            } else {
                (k + 1).to_string()
            };
            out.push_str(&format!(
                "{}{}+---------------- {title} ----------------\n",
                ctx.indent(),
                if k == 0 { "+-" } else { "  " },
            ));
            ctx.depth += 1;
            if truncated {
                let more = members.len() - MAX_GROUP_WIDTH;
                let s = if more > 1 { "s" } else { "" };
                ctx.emit(out, &format!("and {more} more exception{s}\n"), '|');
            } else {
                render_exc(vm, e, out, depth + 1, ctx);
            }
            if last && ctx.need_close {
                out.push_str(&format!("{}+{}\n", ctx.indent(), "-".repeat(36)));
                ctx.need_close = false;
            }
            ctx.depth -= 1;
        }
        if top {
            ctx.depth = 0;
        }
    }
}
