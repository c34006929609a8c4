//! The per-invocation `/tmp` scratch space (whitepaper §3.1 "/tmp MUST be per-invocation,
//! capped at 256 KiB (counts toward cells_used), wiped post-handler"; CIP-3 §2.2).
//!
//! It is an in-memory directory owned by one [`crate::Vm`], never the host's filesystem: the
//! VM does no file I/O at all. Files live in a `BTreeMap` keyed by their name under `/tmp`, so
//! nothing depends on hashing or on the host. A new `Vm` starts with an empty `/tmp` and
//! dropping it wipes everything; every invocation runs in a fresh `Vm`
//! (`crate::actor::invoke`), so nothing survives from one handler to the next.
//!
//! The namespace is flat: `/tmp` is the only directory, and it holds regular files. There is
//! no `os` module, so no subdirectory can ever exist, and paths are answered as POSIX would
//! answer them for a `/tmp` that has no subdirectories (see [`resolve`]).
//!
//! This module is pure storage; `open()` and file objects (`crate::objects::file`) do the
//! Python side, the metering (cycles, cells through the host) and the errors.

use std::collections::BTreeMap;

use crate::memory::{Acct, HEADER};

/// Where a path points, after lexical normalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Relative, or outside `/tmp`: the sandbox refuses it (`PermissionError`).
    Denied,
    /// `/tmp` itself (a directory).
    Root,
    /// The entry `name` directly in `/tmp`; `dir` when the path ends in `/`, `/.` or `/..`
    /// (it names a directory, which a file cannot be).
    Entry {
        /// File name (no `/`).
        name: Vec<u8>,
        /// The path asks for a directory.
        dir: bool,
    },
    /// A path below `/tmp/name/`: `name` would have to be a directory.
    Below {
        /// The first component under `/tmp`.
        name: Vec<u8>,
    },
}

/// Resolve `path` lexically, like `os.path.normpath`: repeated slashes and `.` are dropped,
/// `..` removes the previous component (and stays at `/` at the root). Only absolute paths
/// whose result is `/tmp` or lies under it are inside the sandbox; a relative path has no
/// working directory to be relative to, so it is refused too. The check is on the normalised
/// form, so `/tmp/../etc/passwd` is refused and `/tmp/a/../b` is `/tmp/b`.
pub fn resolve(path: &[u8]) -> Target {
    if path.first() != Some(&b'/') {
        return Target::Denied;
    }
    let mut comps: Vec<&[u8]> = Vec::new();
    let mut dir = false;
    for c in path.split(|b| *b == b'/') {
        dir = matches!(c, b"" | b"." | b"..");
        match c {
            b"" | b"." => {}
            b".." => {
                comps.pop();
            }
            _ => comps.push(c),
        }
    }
    match comps.as_slice() {
        [b"tmp"] => Target::Root,
        [b"tmp", name] => Target::Entry {
            name: name.to_vec(),
            dir,
        },
        [b"tmp", name, ..] => Target::Below {
            name: name.to_vec(),
        },
        _ => Target::Denied,
    }
}

/// A write or an extension would take `/tmp` past its cap (`OSError` ENOSPC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoSpace;

/// One file: its bytes and their accounting (the contents count against the invocation's
/// memory limit like any object).
#[derive(Debug)]
struct File {
    data: Vec<u8>,
    acct: Acct,
}

impl File {
    fn new() -> File {
        File {
            data: Vec::new(),
            acct: Acct::new(HEADER),
        }
    }

    fn resized(&mut self) {
        self.acct.resize(HEADER + self.data.len());
    }
}

/// The files of one invocation's `/tmp`.
#[derive(Debug)]
pub struct TmpFs {
    files: BTreeMap<Vec<u8>, File>,
    /// Total bytes of all files.
    used: u64,
    /// Largest allowed `used` (`Limits::tmp_bytes`).
    cap: u64,
}

impl TmpFs {
    /// No file was made.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// An empty `/tmp` holding at most `cap` bytes.
    pub fn new(cap: u64) -> TmpFs {
        TmpFs {
            files: BTreeMap::new(),
            used: 0,
            cap,
        }
    }

    /// Does the file `name` exist.
    pub fn exists(&self, name: &[u8]) -> bool {
        self.files.contains_key(name)
    }

    /// Create the empty file `name` if it does not exist.
    pub fn create(&mut self, name: &[u8]) {
        if !self.files.contains_key(name) {
            self.files.insert(name.to_vec(), File::new());
        }
    }

    /// The contents of `name` (empty if it does not exist).
    pub fn data(&self, name: &[u8]) -> &[u8] {
        self.files.get(name).map_or(&[], |f| f.data.as_slice())
    }

    /// Size of `name` in bytes.
    pub fn len(&self, name: &[u8]) -> u64 {
        self.data(name).len() as u64
    }

    /// Total bytes stored.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// By how many bytes `name` grows if `n` bytes are written at `pos` (a write past the end
    /// first fills the gap with zeros), or [`NoSpace`] if that would exceed the cap.
    pub fn growth(&self, name: &[u8], pos: u64, n: u64) -> Result<u64, NoSpace> {
        let end = pos.saturating_add(n);
        let grow = end.saturating_sub(self.len(name));
        if self.used.saturating_add(grow) > self.cap {
            Err(NoSpace)
        } else {
            Ok(grow)
        }
    }

    /// Write `data` at `pos` of `name` (which must exist), zero-filling any gap. Fails, writing
    /// nothing, if the result would exceed the cap.
    pub fn write(&mut self, name: &[u8], pos: u64, data: &[u8]) -> Result<(), NoSpace> {
        let grow = self.growth(name, pos, data.len() as u64)?;
        let Some(f) = self.files.get_mut(name) else {
            return Ok(());
        };
        let pos = pos as usize;
        let end = pos + data.len();
        if f.data.len() < end {
            f.data.resize(end, 0);
        }
        f.data[pos..end].copy_from_slice(data);
        f.resized();
        self.used += grow;
        Ok(())
    }

    /// Set the size of `name` to `size`, cutting or zero-filling. Fails, changing nothing, if
    /// growing would exceed the cap.
    pub fn truncate(&mut self, name: &[u8], size: u64) -> Result<(), NoSpace> {
        self.growth(name, size, 0)?;
        let Some(f) = self.files.get_mut(name) else {
            return Ok(());
        };
        let old = f.data.len() as u64;
        f.data.resize(size as usize, 0);
        f.resized();
        self.used = self.used - old + size;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: &str) -> Target {
        Target::Entry {
            name: n.as_bytes().to_vec(),
            dir: false,
        }
    }

    #[test]
    fn only_paths_under_tmp_resolve() {
        assert_eq!(resolve(b"/tmp/a"), entry("a"));
        assert_eq!(resolve(b"//tmp//./a"), entry("a"));
        assert_eq!(resolve(b"/tmp/x/../a"), entry("a"));
        assert_eq!(resolve(b"/../tmp/a"), entry("a"));
        assert_eq!(resolve(b"/tmp"), Target::Root);
        assert_eq!(resolve(b"/tmp/a/.."), Target::Root);
        assert_eq!(
            resolve(b"/tmp/a/"),
            Target::Entry {
                name: b"a".to_vec(),
                dir: true
            }
        );
        assert_eq!(
            resolve(b"/tmp/a/b"),
            Target::Below {
                name: b"a".to_vec()
            }
        );
        for p in [
            &b"/tmp/../etc/passwd"[..],
            b"/etc/passwd",
            b"tmp/x",
            b"x",
            b"",
            b"/tmpx",
            b"/tmpx/a",
            b"/",
            b"/tmp/../..",
            b"./tmp/a",
        ] {
            assert_eq!(resolve(p), Target::Denied, "{}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn the_cap_is_on_total_size_and_failures_change_nothing() {
        let mut fs = TmpFs::new(10);
        fs.create(b"a");
        fs.write(b"a", 0, b"12345678").unwrap();
        assert_eq!(fs.write(b"a", 6, b"xyzwv"), Err(NoSpace));
        assert_eq!(fs.data(b"a"), b"12345678");
        fs.write(b"a", 0, b"abcdefgh").unwrap();
        assert_eq!(fs.used(), 8);
        fs.create(b"b");
        fs.write(b"b", 1, b"z").unwrap();
        assert_eq!(fs.data(b"b"), b"\0z");
        assert_eq!(fs.used(), 10);
        assert_eq!(fs.truncate(b"b", 3), Err(NoSpace));
        fs.truncate(b"a", 0).unwrap();
        assert_eq!(fs.used(), 2);
        fs.truncate(b"b", 10).unwrap();
        assert_eq!(fs.used(), 10);
    }
}
