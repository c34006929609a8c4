//! The `/tmp` scratch space against hostile use (whitepaper §3.1, CIP-3 §2.2): `open()` never
//! reaches the host filesystem, every path outside `/tmp` is `PermissionError`, `/tmp` is
//! capped at 256 KiB, its bytes are charged as cells through the host and count against the
//! invocation's memory, and nothing survives from one invocation to the next.

use crate::common::*;

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvocationOutcome, InvokeError};
use cowboy_pvm::host::HostCosts;
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

/// A path on this machine no run may create (unique per test process).
fn host_path(tag: &str) -> String {
    format!("/tmp/pvm_tmpfs_test_{}_{tag}.txt", std::process::id())
}

#[test]
fn paths_outside_tmp_are_permission_errors() {
    for path in [
        "'/tmp/../etc/passwd'",
        "'/etc/passwd'",
        "'/etc/hostname'",
        "'tmp/x'",
        "'x.txt'",
        "'./x'",
        "''",
        "'/tmpx'",
        "'/tmpx/a'",
        "'/'",
        "'/tmp/../../etc/shadow'",
        "'/tmp/a/../../etc/passwd'",
        "'/proc/self/environ'",
        "'/dev/null'",
        "b'/etc/passwd'",
        "b'/tmp/../etc/passwd'",
    ] {
        for mode in ["r", "w", "a", "x", "r+", "rb", "wb"] {
            let src = format!(
                "try:\n    open({path}, '{mode}')\nexcept PermissionError as e:\n    print(e.errno, e.filename == {path})\n    raise\n"
            );
            let o = run_with(&src, Limits::default());
            assert_eq!(
                err_line(&o),
                format!("PermissionError: [Errno 13] Permission denied: {path}"),
                "{path} {mode}"
            );
            assert_eq!(o.stdout, "13 True\n", "{path} {mode}");
        }
    }
    for path in ["'/tmp/a\\0b'", "'/etc/\\0'", "b'/tmp/\\0'"] {
        let o = run_with(&format!("open({path}, 'w')\n"), Limits::default());
        assert_eq!(err_line(&o), "ValueError: embedded null byte", "{path}");
    }
    for fd in ["0", "1", "2", "True"] {
        let o = run_with(&format!("open({fd}, 'w')\n"), Limits::default());
        assert_eq!(
            err_line(&o),
            "OSError: [Errno 9] Bad file descriptor",
            "{fd}"
        );
    }
}

#[test]
fn no_host_file_is_ever_created_or_read() {
    let p = host_path("created");
    let mut src = String::new();
    src.push_str(&format!(
        "f = open('{p}', 'w')\nf.write('x' * 1000)\nf.close()\n"
    ));
    src.push_str(&format!("print(len(open('{p}').read()))\n"));
    src.push_str(&format!("open('{p}', 'ab').write(b'more')\n"));
    src.push_str("print(sorted(['done']))\n");
    let o = run_with(&src, Limits::default());
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.stdout, "1000\n['done']\n");
    assert!(!std::path::Path::new(&p).exists(), "{p} exists on the host");

    // A file that exists on the host is invisible to the program.
    let real = host_path("real");
    std::fs::write(&real, "host secret").expect("write host file");
    let o = run_with(&format!("open('{real}')\n"), Limits::default());
    let _ = std::fs::remove_file(&real);
    assert_eq!(
        err_line(&o),
        format!("FileNotFoundError: [Errno 2] No such file or directory: '{real}'")
    );
}

#[test]
fn tmp_is_capped_at_256_kib() {
    let cap = 256 * 1024;
    let src = format!(
        "f = open('/tmp/a', 'wb')\n\
         print(f.write(b'x' * {cap}))\n\
         try:\n    f.write(b'y')\nexcept OSError as e:\n    print(type(e).__name__, e.errno, e)\n\
         print(f.tell(), len(open('/tmp/a', 'rb').read()))\n\
         try:\n    open('/tmp/b', 'w').write('z')\nexcept OSError as e:\n    print(e)\n\
         print(len(open('/tmp/b').read()))\n\
         f.truncate(100)\n\
         print(open('/tmp/b', 'w').write('z' * ({cap} - 100)))\n\
         try:\n    f.seek({cap})\n    f.write(b'!')\nexcept OSError as e:\n    print(e)\n\
         try:\n    f.truncate(101)\nexcept OSError as e:\n    print(e)\n\
         print(f.seek(0), f.write(b'y' * 100))\n"
    );
    let o = run_with(&src, Limits::default());
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(
        o.stdout,
        format!(
            "{cap}\nOSError 28 [Errno 28] No space left on device\n{cap} {cap}\n\
             [Errno 28] No space left on device\n0\n{}\n\
             [Errno 28] No space left on device\n[Errno 28] No space left on device\n0 100\n",
            cap - 100
        )
    );

    // An uncaught one ends the run with CPython's line; a smaller cap is honoured.
    let o = run_with(
        "open('/tmp/a', 'w').write('x' * 11)\n",
        Limits {
            tmp_bytes: 10,
            ..Limits::default()
        },
    );
    assert_eq!(err_line(&o), "OSError: [Errno 28] No space left on device");
}

#[test]
fn file_contents_count_against_memory() {
    let write = |n: usize| {
        format!("f = open('/tmp/a', 'wb')\nfor i in range({n}):\n    f.write(b'x' * 1000)\n")
    };
    let small = run_with(&write(1), Limits::default());
    let big = run_with(&write(200), Limits::default());
    assert!(small.error.is_none() && big.error.is_none());
    assert!(
        big.peak_memory >= small.peak_memory + 199_000,
        "{} vs {}",
        big.peak_memory,
        small.peak_memory
    );
    let o = run_with(
        &write(200),
        Limits {
            memory: 100_000,
            ..Limits::default()
        },
    );
    assert!(err_line(&o).starts_with("MemoryError"), "{:?}", o.error);
}

#[test]
fn io_is_charged_per_byte() {
    let prog = |n: usize| {
        format!("d = b'x' * {n}\nf = open('/tmp/a', 'w+b')\nf.write(d)\nf.seek(0)\nf.read()\n")
    };
    let a = run_with(&prog(0), Limits::default());
    let b = run_with(&prog(100_000), Limits::default());
    assert!(a.error.is_none() && b.error.is_none());
    // Written once and read once, on top of building the data.
    assert!(
        b.cycles >= a.cycles + 300_000,
        "{} vs {}",
        b.cycles,
        a.cycles
    );
    let o = run_cycles(&prog(200_000), 250_000);
    assert!(err_line(&o).starts_with("OutOfCycles"), "{:?}", o.error);
}

fn host(cell_limit: u64) -> MemHost {
    MemHost::new(cell_limit)
}

const ACTOR: &str = "\
class Actor:
    def __init__(self):
        open('/tmp/state', 'w').write('from deploy')

    def write(self):
        f = open('/tmp/state', 'w')
        f.write('h\u{e9}llo')          # 6 bytes
        f.write('\\n' * 4)            # 4
        f.seek(20)
        f.write('!')                  # 1, plus the 10-byte gap
        f.seek(0)
        f.write('H')                  # 1 (overwrite)
        f.truncate(30)                # 9 more bytes
        f.truncate(5)                 # shrinking is free
        g = open('/tmp/b', 'ab')
        g.write(b'')                  # 0
        g.writelines([b'ab', b'c'])   # 3
        return open('/tmp/state').read()

    def read(self):
        try:
            return open('/tmp/state').read()
        except FileNotFoundError as e:
            return str(e)

    def fill(self, n):
        open('/tmp/x', 'wb').write(b'x' * n)
        return n
";

fn call(h: &mut MemHost, handler: &str, args: Vec<Value>) -> InvocationOutcome {
    let inv = Invocation {
        source: ACTOR,
        code_hash: None,
        filename: "a.py",
        entry: Entry::Call {
            handler: handler.into(),
            args: Value::Array(args),
        },
        limits: Limits {
            cycles: Some(10_000_000),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    };
    invoke(inv, h)
}

fn deploy(h: &mut MemHost) -> InvocationOutcome {
    let inv = Invocation {
        source: ACTOR,
        code_hash: None,
        filename: "a.py",
        entry: Entry::Deploy { args: Value::Null },
        limits: Limits::default(),
        costs: HostCosts::default(),
    };
    invoke(inv, h)
}

fn text(o: &InvocationOutcome) -> String {
    match &o.result {
        Ok(b) => match cowboy_types::cbor::decode(b) {
            Ok(Value::Text(t)) => t,
            other => panic!("{other:?}"),
        },
        Err(e) => panic!("{e:?}"),
    }
}

#[test]
fn every_stored_byte_is_charged_as_a_cell() {
    let mut h = host(u64::MAX);
    assert!(deploy(&mut h).result.is_ok());
    assert_eq!(h.tmp_cells, "from deploy".len() as u64);
    h.tmp_cells = 0;
    let o = call(&mut h, "write", vec![]);
    assert_eq!(text(&o), "H\u{e9}ll");
    assert_eq!(h.tmp_cells, 6 + 4 + 1 + 10 + 1 + 9 + 3);
}

#[test]
fn out_of_cells_ends_the_invocation() {
    let mut h = host(1000);
    let o = call(&mut h, "fill", vec![Value::Uint(1000)]);
    assert!(o.result.is_ok(), "{:?}", o.result);
    let mut h = host(1000);
    let o = call(&mut h, "fill", vec![Value::Uint(1001)]);
    assert_eq!(o.result, Err(InvokeError::OutOfCells));
    assert_eq!(h.tmp_cells, 0);
}

#[test]
fn nothing_survives_between_invocations() {
    // Same thread, so the same warm code cache serves every invocation.
    let mut h = host(u64::MAX);
    assert!(deploy(&mut h).result.is_ok());
    let gone = "[Errno 2] No such file or directory: '/tmp/state'";
    assert_eq!(text(&call(&mut h, "read", vec![])), gone);
    assert_eq!(text(&call(&mut h, "write", vec![])), "H\u{e9}ll");
    assert_eq!(text(&call(&mut h, "read", vec![])), gone);
    // A handler that fails does not leave its files behind either.
    let o = call(&mut h, "fill", vec![Value::Uint(300_000)]);
    assert!(
        matches!(&o.result, Err(InvokeError::Python { class, .. }) if class == "OSError"),
        "{:?}",
        o.result
    );
    assert_eq!(text(&call(&mut h, "read", vec![])), gone);
    // The cap is per invocation: each may use all of it.
    for _ in 0..3 {
        let o = call(&mut h, "fill", vec![Value::Uint(256 * 1024)]);
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
}
