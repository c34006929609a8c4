//! Running `cowboy` and a `cowboyd --dev` node as real processes.
//!
//! The node binary is `$COWBOYD` if set, else the `cowboyd` that `cargo test --workspace`
//! builds beside this test binary (`target/debug/cowboyd`); `cargo build -p cowboy-node --bin
//! cowboyd` makes it when the CLI's tests run alone.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use cowboy_test_support::{cowboyd, free_port};

/// What one `cowboy` run printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Assert success and return stdout.
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "cowboy failed\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        &self.stdout
    }

    /// Assert failure and return stderr.
    pub fn err(&self) -> &str {
        assert_ne!(
            self.code, 0,
            "cowboy succeeded\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        &self.stderr
    }
}

/// A `cowboy` command with a private `COWBOY_HOME` and no inherited password.
pub fn cowboy(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cowboy"));
    c.env("COWBOY_HOME", home)
        .env_remove("COWBOY_PASSWORD")
        .env_remove("COWBOY_PRIVATE_KEY")
        .env_remove("COWBOY_RPC")
        .stdin(Stdio::null());
    c
}

/// Run to completion.
pub fn run(mut c: Command) -> Run {
    Run::from(c.output().expect("run cowboy"))
}

/// A `cowboyd --dev` process, killed on drop.
pub struct Node {
    child: Child,
    pub url: String,
    pub home: tempfile::TempDir,
    _data: tempfile::TempDir,
}

impl Node {
    pub fn start() -> Node {
        let data = tempfile::tempdir().expect("data dir");
        let home = tempfile::tempdir().expect("cowboy home");
        let rpc = free_port();
        let log = std::fs::File::create(data.path().join("cowboyd.log")).expect("log");
        let child = Command::new(cowboyd())
            .args(["--dev", "--block-time", "100", "--data-dir"])
            .arg(data.path().join("chain"))
            .args(["--rpc-addr", &format!("127.0.0.1:{rpc}")])
            .args(["--p2p-addr", &format!("127.0.0.1:{}", free_port())])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn cowboyd");
        let node = Node {
            child,
            url: format!("http://127.0.0.1:{rpc}"),
            home,
            _data: data,
        };
        let started = Instant::now();
        loop {
            let r = node.cli(&["block", "latest"]);
            if r.code == 0 {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "cowboyd did not start: {}",
                std::fs::read_to_string(node._data.path().join("cowboyd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        node
    }

    /// A `cowboy` command aimed at this node.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = cowboy(self.home.path());
        c.args(["--rpc", &self.url]).args(args);
        c
    }

    /// Run `cowboy ARGS` against this node.
    pub fn cli(&self, args: &[&str]) -> Run {
        run(self.cmd(args))
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
