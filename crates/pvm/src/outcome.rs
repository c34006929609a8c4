//! How a program run ends: [`run`] compiles and runs a source file and reports what it
//! printed, what it cost and the error that ended it (rendered by `Vm::render_uncaught`).

use crate::code_cache;
use crate::compiler::CompileError;
use crate::limits::Limits;
use crate::memory;
use crate::vm::{Uncaught, Vm};

/// How a program ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The program did not compile.
    Compile(CompileError),
    /// An uncaught exception or VM abort, rendered CPython-style.
    Uncaught {
        /// Exception class name (`OutOfCycles` / `MemoryError` for aborts).
        class: String,
        /// Full traceback text ending with `Class: message`.
        traceback: String,
    },
}

impl From<Uncaught> for RunError {
    fn from(u: Uncaught) -> RunError {
        RunError::Uncaught {
            class: u.class,
            traceback: u.traceback,
        }
    }
}

impl RunError {
    /// The last line of the traceback (`Class: message`).
    pub fn last_line(&self) -> String {
        match self {
            RunError::Compile(c) => format!("{}: {}", c.kind, c.msg),
            RunError::Uncaught { traceback, .. } => {
                traceback.lines().last().unwrap_or("").to_string()
            }
        }
    }
}

/// Result of one run.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// Everything `print` wrote.
    pub stdout: String,
    /// `None` on success.
    pub error: Option<RunError>,
    /// Cycles charged.
    pub cycles: u64,
    /// Instructions executed.
    pub instructions: u64,
    /// Peak accounted memory in bytes.
    pub peak_memory: u64,
}

/// Compile and run `source` as `__main__` under `limits`. Compilation is charged to the same
/// cycle budget, before it runs.
pub fn run(source: &str, filename: &str, limits: Limits) -> RunOutcome {
    let mut vm = Vm::new(limits, &crate::modules::LIBRARY);
    // Compilation is charged as for an actor (`code_cache::load`), without the cache.
    let r = match code_cache::load(&mut vm, source, filename, false, None) {
        Ok(Ok(code)) => vm.run_main(code, source),
        Ok(Err(e)) => {
            return RunOutcome {
                stdout: String::new(),
                error: Some(RunError::Compile(e)),
                cycles: vm.cycles(),
                instructions: 0,
                peak_memory: 0,
            }
        }
        Err(e) => Err(e),
    };
    let mut error = match r {
        Ok(_) => None,
        Err(e) => Some(vm.render_uncaught(e).into()),
    };
    // Probes owed after the last instruction are this run's (see `actor::execute`).
    if let Err(e) = vm.settle_final() {
        if error.is_none() {
            error = Some(vm.render_uncaught(e).into());
        }
    }
    let out = RunOutcome {
        stdout: std::mem::take(&mut vm.stdout),
        error,
        cycles: vm.cycles(),
        instructions: vm.instructions,
        peak_memory: memory::peak(),
    };
    drop(vm);
    out
}
