//! The verifier checks real QMDB proofs without `cowboy-state`: `vectors.txt` holds a state root
//! and proofs produced by `cowboy-state` (whose own test pins that it still produces exactly these
//! bytes). Valid claims verify; every wrong claim, root or swapped proof is rejected.

use cowboy_proof_verifier::{
    verify_account, verify_storage, Account, Address, Digest, StateProof, VerifyError,
};

fn vector(name: &str) -> Vec<u8> {
    let line = include_str!("vectors.txt")
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("vector {name} missing"));
    (0..line.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&line[i..i + 2], 16).expect("hex"))
        .collect()
}

fn root() -> Digest {
    vector("root").try_into().expect("32 bytes")
}

fn address(name: &str) -> Address {
    vector(name).try_into().expect("20 bytes")
}

#[test]
fn account_inclusion_and_exclusion() {
    let root = root();
    let present = address("account_address");
    let account = Account::decode(&vector("account_record")).expect("record");
    let proof = vector("account_proof");
    verify_account(&root, &present, Some(&account), &proof).expect("inclusion");

    let mut richer = account.clone();
    richer.balance += 1;
    assert_eq!(
        verify_account(&root, &present, Some(&richer), &proof),
        Err(VerifyError::RootMismatch)
    );
    assert_eq!(
        verify_account(&root, &present, None, &proof),
        Err(VerifyError::ClaimMismatch)
    );
    // The same proof does not speak for another address.
    let absent = address("absent_address");
    assert!(verify_account(&root, &absent, Some(&account), &proof).is_err());

    let absent_proof = vector("absent_proof");
    verify_account(&root, &absent, None, &absent_proof).expect("exclusion");
    assert!(verify_account(&root, &present, None, &absent_proof).is_err());
    assert!(matches!(
        StateProof::decode(&absent_proof).map(|p| p.claim),
        Ok(cowboy_proof_verifier::Claim::AbsentInSpan { .. })
    ));

    let mut wrong_root = root;
    wrong_root[31] ^= 0x80;
    assert_eq!(
        verify_account(&wrong_root, &present, Some(&account), &proof),
        Err(VerifyError::RootMismatch)
    );
    assert!(verify_account(&wrong_root, &absent, None, &absent_proof).is_err());
}

#[test]
fn storage_inclusion_and_exclusion() {
    let root = root();
    let owner = address("account_address");
    let key = vector("storage_key");
    let value = vector("storage_value");
    let proof = vector("storage_proof");
    verify_storage(&root, &owner, &key, Some(&value), &proof).expect("inclusion");
    assert!(verify_storage(&root, &owner, &key, Some(b"other"), &proof).is_err());
    assert!(verify_storage(
        &root,
        &address("absent_address"),
        &key,
        Some(&value),
        &proof
    )
    .is_err());

    let absent_key = vector("absent_storage_key");
    let absent_proof = vector("absent_storage_proof");
    verify_storage(&root, &owner, &absent_key, None, &absent_proof).expect("exclusion");
    assert!(verify_storage(&root, &owner, &key, None, &absent_proof).is_err());
    // An account proof is not a storage proof.
    assert!(verify_storage(&root, &owner, &key, Some(&value), &vector("account_proof")).is_err());
}

#[test]
fn garbage_is_rejected_without_panicking() {
    let root = root();
    let owner = address("account_address");
    for len in [0usize, 1, 2, 10, 100, 1000] {
        for fill in [0u8, 1, 0xFF] {
            let junk = vec![fill; len];
            assert!(verify_account(&root, &owner, None, &junk).is_err());
            assert!(verify_storage(&root, &owner, b"k", Some(b"v"), &junk).is_err());
        }
    }
}
