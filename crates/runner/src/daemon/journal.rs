//! The daemon's journal: what it has done for each job, on disk, so that after a crash (even
//! `kill -9`) it neither executes nor commits a job twice and still finishes what it can.
//!
//! Layout under the data directory: `cursor` (the last height whose `JobAssigned` events were
//! all read) and `jobs/<job id hex>` (one record per job, canonical CBOR). Every write goes to a
//! temporary file that is fsynced, renamed over the old one and the directory fsynced: a record
//! is always either the old one or the new one, never torn.
//!
//! **The order of writes is the recovery argument.** `started` is written before an
//! executor is called, so a restart never calls it again for that job (at most once; a job
//! whose execution was cut off by the crash is left silent: see README, "Recovery"). The
//! signed result is written before its commitment is sent, and the signed commit transaction
//! before it is broadcast, so a restart broadcasts those same bytes again (the chain refuses a
//! second commit and a reused nonce) rather than signing anything new. The same holds for the
//! aggregate and the self-reveal. Every other decision is taken afresh from the job's state on
//! chain.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use cowboy_exec::system::runners::records::Fields;
use cowboy_types::cbor::{self, Value};
use cowboy_types::hash::hex_lower;
use cowboy_types::Hash32;

use super::chain::{bytes, SignedTx};
use super::reveal::Reveal;

/// What the daemon has done for one job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Height at which the daemon first saw the assignment.
    pub seen_at: u64,
    /// The executor was called (never again after a restart).
    pub started: bool,
    /// The signed result (or fault report), once executed.
    pub reveal: Option<Reveal>,
    /// The signed commit transaction, written before it is broadcast.
    pub commit_tx: Option<SignedTx>,
    /// The result was pushed to the aggregator.
    pub delivered: bool,
    /// The aggregate (`submit_verified_result`) or self-reveal transaction, written before it
    /// is broadcast.
    pub final_tx: Option<SignedTx>,
    /// Nothing more to do (decided on chain, or given up).
    pub done: bool,
}

/// A journal write or read that failed.
#[derive(Debug)]
pub enum JournalError {
    /// The file system refused (path and reason).
    Io(PathBuf, std::io::Error),
    /// A record on disk does not decode (path): the journal was changed by something else.
    Corrupt(PathBuf),
}

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JournalError::Io(p, e) => write!(f, "journal {}: {e}", p.display()),
            JournalError::Corrupt(p) => write!(f, "journal {}: not a journal record", p.display()),
        }
    }
}

impl std::error::Error for JournalError {}

/// The journal of one data directory.
pub struct Journal {
    dir: PathBuf,
    cursor: u64,
    jobs: BTreeMap<Hash32, Entry>,
}

fn io(p: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |e| JournalError::Io(p.to_path_buf(), e)
}

/// Writes `bytes` to `path` atomically and durably (temp file, fsync, rename, fsync dir).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), JournalError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("x");
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut f = File::create(&tmp).map_err(io(&tmp))?;
    f.write_all(bytes).map_err(io(&tmp))?;
    f.sync_all().map_err(io(&tmp))?;
    fs::rename(&tmp, path).map_err(io(path))?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
}

impl Journal {
    /// Opens (or creates) the journal in `dir`, reading every record.
    pub fn open(dir: &Path) -> Result<Journal, JournalError> {
        let jobs_dir = dir.join("jobs");
        fs::create_dir_all(&jobs_dir).map_err(io(&jobs_dir))?;
        let cursor_path = dir.join("cursor");
        let cursor = match fs::read(&cursor_path) {
            Ok(b) => {
                let b: [u8; 8] = b
                    .as_slice()
                    .try_into()
                    .map_err(|_| JournalError::Corrupt(cursor_path.clone()))?;
                u64::from_le_bytes(b)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(JournalError::Io(cursor_path, e)),
        };
        let mut jobs = BTreeMap::new();
        for f in fs::read_dir(&jobs_dir).map_err(io(&jobs_dir))? {
            let path = f.map_err(io(&jobs_dir))?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if name.starts_with('.') {
                continue; // a temporary file a crash left behind: its rename never happened
            }
            let id = Hash32::from_hex(name).ok_or_else(|| JournalError::Corrupt(path.clone()))?;
            let raw = fs::read(&path).map_err(io(&path))?;
            let entry = cbor::decode(&raw)
                .ok()
                .and_then(|v| entry_from(&v))
                .ok_or_else(|| JournalError::Corrupt(path.clone()))?;
            jobs.insert(id, entry);
        }
        Ok(Journal {
            dir: dir.to_path_buf(),
            cursor,
            jobs,
        })
    }

    /// The last height whose assignments were all read.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// Records that every assignment up to `height` was read.
    pub fn set_cursor(&mut self, height: u64) -> Result<(), JournalError> {
        if height <= self.cursor {
            return Ok(());
        }
        write_atomic(&self.dir.join("cursor"), &height.to_le_bytes())?;
        self.cursor = height;
        Ok(())
    }

    /// The record of `job`.
    pub fn get(&self, job: &Hash32) -> Option<&Entry> {
        self.jobs.get(job)
    }

    /// Every record, by job id.
    pub fn entries(&self) -> &BTreeMap<Hash32, Entry> {
        &self.jobs
    }

    /// Writes the record of `job` (durably, before returning).
    pub fn put(&mut self, job: Hash32, entry: Entry) -> Result<(), JournalError> {
        let path = self.dir.join("jobs").join(hex_lower(&job.0));
        write_atomic(&path, &cbor::encode(&entry_value(&entry)))?;
        self.jobs.insert(job, entry);
        Ok(())
    }

    /// Drops the records of finished jobs first seen more than `keep` blocks before the cursor
    /// (kept that long so that re-reading an old assignment finds the job done).
    pub fn prune(&mut self, keep: u64) -> Result<(), JournalError> {
        let horizon = self.cursor.saturating_sub(keep);
        let old: Vec<Hash32> = self
            .jobs
            .iter()
            .filter(|(_, e)| e.done && e.seen_at < horizon)
            .map(|(id, _)| *id)
            .collect();
        for id in old {
            let path = self.dir.join("jobs").join(hex_lower(&id.0));
            fs::remove_file(&path).map_err(io(&path))?;
            self.jobs.remove(&id);
        }
        Ok(())
    }
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn tx_value(tx: &Option<SignedTx>) -> Value {
    tx.as_ref().map_or(Value::Null, |tx| {
        Value::Array(vec![bytes(&tx.hash.0), bytes(&tx.raw)])
    })
}

fn entry_value(e: &Entry) -> Value {
    Value::Map(vec![
        (t("seen_at"), Value::Uint(e.seen_at)),
        (t("started"), Value::Bool(e.started)),
        (
            t("reveal"),
            e.reveal.as_ref().map_or(Value::Null, Reveal::entry),
        ),
        (t("commit_tx"), tx_value(&e.commit_tx)),
        (t("delivered"), Value::Bool(e.delivered)),
        (t("final_tx"), tx_value(&e.final_tx)),
        (t("done"), Value::Bool(e.done)),
    ])
}

fn tx_from(v: &Value) -> Option<Option<SignedTx>> {
    match v {
        Value::Null => Some(None),
        Value::Array(a) => match a.as_slice() {
            [Value::Bytes(h), Value::Bytes(raw)] => Some(Some(SignedTx {
                hash: Hash32(h.as_slice().try_into().ok()?),
                raw: raw.clone(),
            })),
            _ => None,
        },
        _ => None,
    }
}

fn entry_from(v: &Value) -> Option<Entry> {
    let f = Fields::of(v)?;
    let get = |name: &str| f.get(name);
    let flag = |name: &str| match get(name) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    Some(Entry {
        seen_at: get("seen_at")?.as_u64()?,
        started: flag("started")?,
        reveal: match get("reveal")? {
            Value::Null => None,
            r => Some(Reveal::from_entry(r)?),
        },
        commit_tx: tx_from(get("commit_tx")?)?,
        delivered: flag("delivered")?,
        final_tx: tx_from(get("final_tx")?)?,
        done: flag("done")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowboy_exec::system::verifier::sign::Usage;
    use cowboy_types::Address;

    fn sample() -> Entry {
        Entry {
            seen_at: 7,
            started: true,
            reveal: Some(Reveal {
                runner: Address([2; 20]),
                result: b"r".to_vec(),
                usage: Usage {
                    tokens: 1,
                    wall_ms: 2,
                },
                sig: [5; 64],
            }),
            commit_tx: Some(SignedTx {
                hash: Hash32([6; 32]),
                raw: vec![1, 2, 3],
            }),
            delivered: true,
            final_tx: None,
            done: false,
        }
    }

    #[test]
    fn records_and_cursor_survive_reopening_and_pruning_drops_only_old_finished_jobs() {
        let dir = tempfile::tempdir().expect("dir");
        let mut j = Journal::open(dir.path()).expect("open");
        assert_eq!(j.cursor(), 0);
        j.put(Hash32([1; 32]), sample()).expect("put");
        let done = Entry {
            done: true,
            ..Entry::default()
        };
        j.put(Hash32([2; 32]), done.clone()).expect("put");
        j.set_cursor(50).expect("cursor");
        j.set_cursor(40).expect("an older cursor is ignored");
        // A temporary file left by a crash mid-write is not a record.
        fs::write(dir.path().join("jobs").join(".junk.tmp"), b"x").expect("write");

        let mut again = Journal::open(dir.path()).expect("reopen");
        assert_eq!(again.cursor(), 50);
        assert_eq!(again.get(&Hash32([1; 32])), Some(&sample()));
        assert_eq!(again.get(&Hash32([2; 32])), Some(&done));
        again.prune(10).expect("prune");
        assert_eq!(again.get(&Hash32([2; 32])), None, "done and old");
        assert!(again.get(&Hash32([1; 32])).is_some(), "not done");
        assert_eq!(
            Journal::open(dir.path()).expect("reopen").entries().len(),
            1
        );
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_guess() {
        let dir = tempfile::tempdir().expect("dir");
        Journal::open(dir.path()).expect("open");
        let bad = dir.path().join("jobs").join(hex_lower(&[1; 32]));
        fs::write(&bad, b"\xa0").expect("write");
        assert!(matches!(
            Journal::open(dir.path()),
            Err(JournalError::Corrupt(p)) if p == bad
        ));
    }
}
