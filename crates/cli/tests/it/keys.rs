//! `cowboy key`: Web3 Secret Storage v3 files in and out, file modes, password handling
//! without a terminal, and `--help` as the reference for the environment variables.

use std::os::unix::fs::PermissionsExt as _;

use crate::support::{cowboy, run};

/// The Web3 Secret Storage definition's scrypt test vector (password "testpassword").
const SCRYPT_VECTOR: &str = r#"{"crypto": {"cipher": "aes-128-ctr",
 "cipherparams": {"iv": "83dbcc02d8ccb40e466191a123791e0e"},
 "ciphertext": "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
 "kdf": "scrypt", "kdfparams": {"dklen": 32, "n": 262144, "p": 8, "r": 1,
 "salt": "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19"},
 "mac": "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097"},
 "id": "3198bc9c-6672-5ab3-d995-4942343ae5b6", "version": 3}"#;
const VECTOR_KEY: &str = "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d";

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
}

fn vector_address() -> String {
    let bytes: [u8; 32] = hex::decode(VECTOR_KEY).unwrap().try_into().unwrap();
    cowboy_types::PrivateKey::from_bytes(&bytes)
        .unwrap()
        .address()
        .to_checksum()
}

#[test]
fn key_new_without_a_terminal_says_what_to_set() {
    let home = tempfile::tempdir().unwrap();
    let mut c = cowboy(home.path());
    c.args(["key", "new", "alice"]);
    let r = run(c);
    assert!(r.err().contains("COWBOY_PASSWORD"), "{}", r.stderr);
    assert!(!home.path().join("keys/alice.json").exists());
}

#[test]
fn keys_are_v3_files_private_to_their_owner() {
    let home = tempfile::tempdir().unwrap();
    let mut c = cowboy(home.path());
    c.args(["key", "new", "alice"]).env("COWBOY_PASSWORD", "pw");
    let r = run(c);
    let address = r.ok().trim().to_string();
    let file = home.path().join("keys/alice.json");
    assert_eq!(mode(&home.path().join("keys")), 0o700);
    assert_eq!(mode(&file), 0o600);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["version"], 3);
    assert_eq!(doc["crypto"]["cipher"], "aes-128-ctr");
    assert_eq!(
        format!("0x{}", doc["address"].as_str().unwrap()),
        address.to_ascii_lowercase()
    );

    // list needs no password; a second key of the same name is refused before any prompt.
    let mut c = cowboy(home.path());
    c.args(["key", "list"]);
    assert_eq!(run(c).ok().trim(), format!("alice\t{address}"));
    let mut c = cowboy(home.path());
    c.args(["key", "new", "alice"]).env("COWBOY_PASSWORD", "pw");
    assert!(run(c).err().contains("already exists"));

    // Export (password checked) to a 0600 file, import it under another name: same address.
    let exported = home.path().join("alice-export.json");
    let mut c = cowboy(home.path());
    c.args(["key", "export", "alice", "--out"])
        .arg(&exported)
        .env("COWBOY_PASSWORD", "nope");
    assert!(run(c).err().contains("wrong password"));
    let mut c = cowboy(home.path());
    c.args(["key", "export", "alice", "--out"])
        .arg(&exported)
        .env("COWBOY_PASSWORD", "pw");
    run(c).ok();
    assert_eq!(mode(&exported), 0o600);
    let mut c = cowboy(home.path());
    c.args(["key", "import", "bob", "--keystore"])
        .arg(&exported)
        .env("COWBOY_PASSWORD", "pw");
    assert_eq!(run(c).ok().trim(), address);

    // Delete asks for the password.
    let mut c = cowboy(home.path());
    c.args(["key", "delete", "bob"])
        .env("COWBOY_PASSWORD", "nope");
    assert!(run(c).err().contains("wrong password"));
    let mut c = cowboy(home.path());
    c.args(["key", "delete", "bob"])
        .env("COWBOY_PASSWORD", "pw");
    run(c).ok();
    assert!(!home.path().join("keys/bob.json").exists());
}

#[test]
fn standard_keystore_files_import_and_export() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("vector.json");
    std::fs::write(&file, SCRYPT_VECTOR).unwrap();
    let mut c = cowboy(home.path());
    c.args(["key", "import", "geth", "--keystore"])
        .arg(&file)
        .env("COWBOY_PASSWORD", "wrong");
    assert!(run(c).err().contains("wrong password"));
    let mut c = cowboy(home.path());
    c.args(["--json", "key", "import", "geth", "--keystore"])
        .arg(&file)
        .env("COWBOY_PASSWORD", "testpassword");
    let r = run(c);
    let out: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(out["address"], vector_address());
    // Exported unchanged: the same KDF, salt and ciphertext as the original file.
    let mut c = cowboy(home.path());
    c.args(["key", "export", "geth"])
        .env("COWBOY_PASSWORD", "testpassword");
    let r = run(c);
    let doc: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    let orig: serde_json::Value = serde_json::from_str(SCRYPT_VECTOR).unwrap();
    assert_eq!(doc["crypto"], orig["crypto"]);
}

#[test]
fn help_documents_non_interactive_use() {
    let home = tempfile::tempdir().unwrap();
    let mut c = cowboy(home.path());
    c.arg("--help");
    let r = run(c);
    let help = r.ok();
    for word in [
        "COWBOY_PASSWORD",
        "COWBOY_HOME",
        "COWBOY_RPC",
        "COWBOY_PRIVATE_KEY",
        "gwei",
    ] {
        assert!(help.contains(word), "--help lacks {word}:\n{help}");
    }
}
