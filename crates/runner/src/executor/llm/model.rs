//! The models a runner serves, by registry hash (whitepaper §5.1): a model's id is
//! `keccak256(weights ‖ arch ‖ tokenizer ‖ license)`, the four files' bytes concatenated in
//! that order. The runner hashes the files it is configured with at start-up and refuses to
//! start when they are not the model it declares; per job it only compares each file's
//! length and modification time with what it hashed (a `stat`, not a re-hash of gigabytes).
//!
//! What this cannot prove: that the engine behind the endpoint loaded these files. The
//! operator points both at the same files; a TEE attestation is what would prove it.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use cowboy_exec::system::runners::records::Model;
use cowboy_types::cbor::Value;
use cowboy_types::Hash32;
use sha3::{Digest, Keccak256};

use super::LlmError;

/// The four files whose bytes make a model's registry hash, in hashing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFiles {
    /// The weights (e.g. a safetensors or GGUF file).
    pub weights: PathBuf,
    /// The architecture description (e.g. `config.json`).
    pub arch: PathBuf,
    /// The tokenizer (e.g. `tokenizer.json`).
    pub tokenizer: PathBuf,
    /// The license text.
    pub license: PathBuf,
}

impl ModelFiles {
    fn paths(&self) -> [&Path; 4] {
        [&self.weights, &self.arch, &self.tokenizer, &self.license]
    }
}

/// Length and modification time of each file when it was hashed: what a job re-checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fingerprint(Vec<(u64, Option<SystemTime>)>);

impl Fingerprint {
    pub(super) fn of(files: &ModelFiles) -> Result<Fingerprint, LlmError> {
        files
            .paths()
            .into_iter()
            .map(|p| {
                let meta = std::fs::metadata(p).map_err(|e| read_error(p, &e))?;
                Ok((meta.len(), meta.modified().ok()))
            })
            .collect::<Result<_, _>>()
            .map(Fingerprint)
    }
}

fn read_error(path: &Path, e: &io::Error) -> LlmError {
    LlmError::ReadModel {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// `keccak256(weights ‖ arch ‖ tokenizer ‖ license)`, streamed (weights may be gigabytes),
/// with the fingerprint of the files hashed. A file changed while it was read is an error.
pub(super) fn hash_files(files: &ModelFiles) -> Result<(Hash32, Fingerprint), LlmError> {
    let before = Fingerprint::of(files)?;
    let mut hasher = Keccak256::new();
    let mut buf = vec![0u8; 1 << 20];
    for path in files.paths() {
        let mut f = File::open(path).map_err(|e| read_error(path, &e))?;
        loop {
            let n = f.read(&mut buf).map_err(|e| read_error(path, &e))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    if Fingerprint::of(files)? != before {
        return Err(LlmError::ReadModel {
            path: files.weights.clone(),
            reason: "the model's files changed while they were hashed".into(),
        });
    }
    Ok((Hash32(hasher.finalize().into()), before))
}

/// Check the registry's record of `model` (what the runner registry's `model(hash)` read
/// returns: the record, or null when there is none) admits serving it.
pub(super) fn check_record(model: &Hash32, record: &Value) -> Result<(), LlmError> {
    if *record == Value::Null {
        return Err(LlmError::NotRegistered(*model));
    }
    let m = Model::from_value(record).map_err(|_| LlmError::BadRecord(*model))?;
    if m.retired {
        return Err(LlmError::Retired(*model));
    }
    Ok(())
}
