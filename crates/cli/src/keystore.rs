//! The encrypted keystore of `cowboy key`: one JSON file per key under `$COWBOY_HOME/keys`
//! (default `~/.cowboy/keys`), holding the secp256k1 private key encrypted with AES-256-GCM
//! under a key derived from the password by scrypt (N = 2^15, r = 8, p = 1; the random salt and
//! nonce are stored beside the ciphertext). The address is kept in clear so `key list` needs no
//! password. Passwords come from `COWBOY_PASSWORD` when set (scripts, CI), else a prompt.

use std::path::PathBuf;

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use cowboy_types::PrivateKey;
use serde_json::json;

const SCRYPT_LOG_N: u8 = 15;

/// Where keys live.
pub fn dir() -> PathBuf {
    let home = std::env::var_os("COWBOY_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cowboy")))
        .unwrap_or_else(|| PathBuf::from(".cowboy"));
    home.join("keys")
}

fn path(name: &str) -> Result<PathBuf, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "key name {name:?} must be letters, digits, '-' or '_'"
        ));
    }
    Ok(dir().join(format!("{name}.json")))
}

/// The password: `COWBOY_PASSWORD`, else asked on the terminal.
pub fn password(prompt: &str) -> Result<String, String> {
    if let Ok(p) = std::env::var("COWBOY_PASSWORD") {
        return Ok(p);
    }
    rpassword::prompt_password(prompt).map_err(|e| format!("cannot read the password: {e}"))
}

fn derive(password: &str, salt: &[u8]) -> Result<[u8; 32], String> {
    let params = scrypt::Params::new(SCRYPT_LOG_N, 8, 1).map_err(|e| e.to_string())?;
    let mut out = [0u8; 32];
    scrypt::scrypt(password.as_bytes(), salt, &params, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Store `key` as `name`, encrypted with `password`. Refuses to overwrite.
pub fn save(name: &str, key: &PrivateKey, password: &str) -> Result<PathBuf, String> {
    let path = path(name)?;
    if path.exists() {
        return Err(format!(
            "a key named {name:?} already exists ({})",
            path.display()
        ));
    }
    let mut salt = [0u8; 32];
    let mut nonce = [0u8; 12];
    getrandom::getrandom(&mut salt).map_err(|e| e.to_string())?;
    getrandom::getrandom(&mut nonce).map_err(|e| e.to_string())?;
    let cipher = Aes256Gcm::new_from_slice(&derive(password, &salt)?).map_err(|e| e.to_string())?;
    let ciphertext = cipher
        .encrypt(Nonce::from_slice(&nonce), key.to_bytes().as_slice())
        .map_err(|_| "encryption failed".to_string())?;
    let doc = json!({
        "version": 1,
        "address": format!("0x{}", hex::encode(key.address().0)),
        "crypto": {
            "kdf": "scrypt", "logN": SCRYPT_LOG_N, "r": 8, "p": 1,
            "salt": hex::encode(salt),
            "cipher": "aes-256-gcm",
            "nonce": hex::encode(nonce),
            "ciphertext": hex::encode(ciphertext),
        }
    });
    std::fs::create_dir_all(dir())
        .map_err(|e| format!("cannot create {}: {e}", dir().display()))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&doc).unwrap_or_default())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

fn read(name: &str) -> Result<serde_json::Value, String> {
    let path = path(name)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|_| format!("no key named {name:?} (looked in {})", dir().display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a keystore: {e}", path.display()))
}

/// Decrypt key `name`.
pub fn load(name: &str, password: &str) -> Result<PrivateKey, String> {
    let doc = read(name)?;
    let c = &doc["crypto"];
    let field = |k: &str| {
        c[k].as_str()
            .and_then(|s| hex::decode(s).ok())
            .ok_or_else(|| format!("keystore {name:?}: bad {k}"))
    };
    let (salt, nonce, ciphertext) = (field("salt")?, field("nonce")?, field("ciphertext")?);
    if nonce.len() != 12 {
        return Err(format!("keystore {name:?}: bad nonce"));
    }
    let cipher = Aes256Gcm::new_from_slice(&derive(password, &salt)?).map_err(|e| e.to_string())?;
    let plain = cipher
        .decrypt(Nonce::from_slice(&nonce), ciphertext.as_slice())
        .map_err(|_| format!("wrong password for key {name:?}"))?;
    let bytes: [u8; 32] = plain
        .try_into()
        .map_err(|_| format!("keystore {name:?}: bad key length"))?;
    PrivateKey::from_bytes(&bytes).map_err(|e| format!("keystore {name:?}: {e}"))
}

/// `(name, address)` of every stored key, sorted by name.
pub fn list() -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir()) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                let name = p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let address = read(&name)
                    .ok()
                    .and_then(|d| d["address"].as_str().map(str::to_string))
                    .unwrap_or_else(|| "(unreadable)".into());
                out.push((name, address));
            }
        }
    }
    out.sort();
    out
}

/// A fresh key from the operating system's randomness.
pub fn generate() -> Result<PrivateKey, String> {
    loop {
        let mut b = [0u8; 32];
        getrandom::getrandom(&mut b).map_err(|e| e.to_string())?;
        if let Ok(k) = PrivateKey::from_bytes(&b) {
            return Ok(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_load_list_and_wrong_password() {
        let home = tempfile::tempdir().unwrap();
        // The keystore reads COWBOY_HOME; this is the only test in the binary that sets it.
        std::env::set_var("COWBOY_HOME", home.path());
        let key = generate().unwrap();
        let path = save("alice", &key, "pw").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains(&hex::encode(key.to_bytes())),
            "key stored in clear"
        );
        assert_eq!(load("alice", "pw").unwrap().address(), key.address());
        assert!(load("alice", "nope")
            .unwrap_err()
            .contains("wrong password"));
        assert!(save("alice", &key, "pw")
            .unwrap_err()
            .contains("already exists"));
        assert!(save("../evil", &key, "pw").is_err());
        assert!(load("bob", "pw").unwrap_err().contains("no key named"));
        let listed = list();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].1, format!("0x{}", hex::encode(key.address().0)));
    }
}
