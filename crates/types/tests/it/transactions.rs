//! Transaction signing, sender recovery and the decoder's typed errors (§2.2, §2.5).

use cowboy_types::cbor::{decode, encode, Value};
use cowboy_types::keys::SignatureError;
use cowboy_types::{
    dev_balance_authority, Address, Authorization, Hash32, Payload, PrivateKey, Transaction,
    TxError,
};

fn key() -> PrivateKey {
    let bytes = cowboy_types::hash::parse_hex(
        "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    )
    .expect("hex");
    PrivateKey::from_bytes(&bytes.try_into().expect("32")).expect("key")
}

fn call_tx() -> Transaction {
    Transaction {
        chain_id: 7,
        nonce: 3,
        to: Some(Address::system(0x0b)),
        value: u128::from(u64::MAX) + 5,
        cycles_limit: 1_000_000,
        cells_limit: 4_096,
        max_fee_per_cycle: 100,
        max_fee_per_cell: 50,
        tip_per_cycle: 2,
        tip_per_cell: 1,
        access_list: Some(vec![cowboy_types::AccessListEntry {
            address: Address::system(0x0b),
            storage_keys: vec![b"count".to_vec(), vec![]],
        }]),
        payload: Payload::Call {
            handler: "increment".into(),
            args: Value::Array(vec![Value::Uint(2)]),
        }
        .encode(),
        signature: None,
    }
}

#[test]
fn sign_recover_and_round_trip() {
    let mut tx = call_tx();
    assert_eq!(tx.sender(), Err(TxError::Unsigned));
    tx.sign(&key()).expect("sign");
    assert_eq!(tx.sender(), Ok(key().address()));
    let decoded = Transaction::decode(&tx.encode()).expect("decode");
    assert_eq!(decoded, tx);
    assert_eq!(decoded.hash(), tx.hash());
    assert_eq!(
        Payload::decode(true, &decoded.payload),
        Ok(Payload::Call {
            handler: "increment".into(),
            args: Value::Array(vec![Value::Uint(2)])
        })
    );
}

#[test]
fn chain_id_is_inside_the_signed_bytes() {
    let mut tx = call_tx();
    tx.sign(&key()).expect("sign");
    let mut replayed = tx.clone();
    replayed.chain_id = 8;
    // The same signature over another chain's transaction recovers a different (random) signer
    // or fails; it never recovers the original sender.
    assert_ne!(replayed.sender(), Ok(key().address()));
}

#[test]
fn deploy_payload_round_trip_and_errors() {
    let p = Payload::Deploy {
        source: "class Counter:\n    pass\n".into(),
        salt: Hash32([9; 32]),
        init_args: Value::Map(vec![(Value::Text("start".into()), Value::Uint(1))]),
    };
    assert_eq!(Payload::decode(false, &p.encode()), Ok(p));
    assert_eq!(Payload::decode(true, &[]), Ok(Payload::Transfer));
    assert!(Payload::decode(false, &[]).is_err());
    let bad_salt = encode(&Value::Array(vec![
        Value::Text("x".into()),
        Value::Bytes(vec![1; 31]),
        Value::Array(vec![]),
    ]));
    assert!(matches!(
        Payload::decode(false, &bad_salt),
        Err(cowboy_types::tx::PayloadError::Shape(
            "salt must be 32 bytes"
        ))
    ));
    let int_keys = encode(&Value::Array(vec![
        Value::Text("h".into()),
        Value::Map(vec![(Value::Uint(1), Value::Null)]),
    ]));
    assert!(Payload::decode(true, &int_keys).is_err());
}

/// Replaces field `i` of a valid encoded transaction.
fn with_field(i: usize, v: Value) -> Vec<u8> {
    let Ok(Value::Array(mut fields)) = cowboy_types::cbor::decode(&call_tx().encode()) else {
        unreachable!("a transaction encodes as an array")
    };
    fields[i] = v;
    encode(&Value::Array(fields))
}

#[test]
fn decoder_rejects_each_malformation_with_a_typed_error() {
    use TxError::*;
    let cases: Vec<(Vec<u8>, TxError)> = vec![
        (encode(&Value::Uint(1)), NotAnArray),
        (encode(&Value::Array(vec![Value::Null; 12])), WrongArity(12)),
        (
            with_field(0, Value::Text("1".into())),
            FieldType {
                field: "chain_id",
                expected: "unsigned integer below 2^64",
            },
        ),
        (
            with_field(2, Value::Bytes(vec![0; 19])),
            AddressLength {
                field: "to",
                len: 19,
            },
        ),
        (
            with_field(3, Value::from_i128(-1)),
            FieldType {
                field: "value",
                expected: "unsigned integer below 2^128",
            },
        ),
        (
            with_field(11, Value::Text("p".into())),
            FieldType {
                field: "payload",
                expected: "byte string",
            },
        ),
        (
            with_field(
                12,
                Value::Array(vec![
                    Value::Uint(2),
                    Value::Bytes(vec![1; 32]),
                    Value::Bytes(vec![1; 32]),
                ]),
            ),
            Signature(SignatureError::BadParity(2)),
        ),
        (
            with_field(
                12,
                Value::Array(vec![
                    Value::Uint(0),
                    Value::Bytes(vec![1; 31]),
                    Value::Bytes(vec![1; 32]),
                ]),
            ),
            FieldType {
                field: "signature",
                expected: "r and s of exactly 32 bytes",
            },
        ),
        (
            with_field(10, Value::Array(vec![Value::Uint(1)])),
            FieldType {
                field: "access_list",
                expected: "null or array of [address, [storage key bytes, ...]]",
            },
        ),
    ];
    for (bytes, want) in cases {
        assert_eq!(Transaction::decode(&bytes), Err(want));
    }
    let mut trailing = call_tx().encode();
    trailing.push(0);
    assert!(matches!(Transaction::decode(&trailing), Err(Cbor(_))));
    let big = vec![0u8; 128 * 1024 + 1];
    assert_eq!(
        Transaction::decode(&big),
        Err(TooLarge {
            size: 128 * 1024 + 1,
            max: 128 * 1024
        })
    );
}

#[test]
fn high_s_signatures_do_not_recover() {
    let mut tx = call_tx();
    tx.signature = Some(Authorization::Signed(cowboy_types::Signature {
        y_parity: 0,
        r: [0x11; 32],
        s: [0xff; 32],
    }));
    assert!(matches!(tx.sender(), Err(TxError::Signature(_))));
}

/// The dev authorizations encode in the signature slot, round-trip, change the transaction's
/// hash but not its signing hash, and name their sender; a malformed one is a typed error.
#[test]
fn dev_authorizations_round_trip_and_name_their_sender() {
    let from = Address([0xab; 20]);
    let unsigned = call_tx();
    for (auth, sender) in [
        (Authorization::Impersonated(from), from),
        (Authorization::SetBalance, dev_balance_authority()),
    ] {
        let tx = Transaction {
            signature: Some(auth),
            ..unsigned.clone()
        };
        let back = Transaction::decode(&tx.encode()).expect("decodes");
        assert_eq!(back, tx);
        assert_eq!(back.sender(), Ok(sender));
        assert!(auth.is_dev());
        assert_eq!(tx.signing_hash(), unsigned.signing_hash());
        assert_ne!(tx.hash(), unsigned.hash());
    }
    let mut signed = call_tx();
    signed.sign(&key()).expect("signs");
    assert!(!signed.signature.expect("signed").is_dev());

    // An impersonation naming a 19-byte sender, and an unknown tag, are refused by name.
    let with_slot = |slot: Value| {
        let Value::Array(mut fields) = decode(&unsigned.encode()).expect("cbor") else {
            unreachable!("a transaction is an array")
        };
        fields[12] = slot;
        encode(&Value::Array(fields))
    };
    let short = with_slot(Value::Array(vec![
        Value::Text("impersonated".into()),
        Value::Bytes(vec![1; 19]),
    ]));
    assert_eq!(
        Transaction::decode(&short),
        Err(TxError::AddressLength {
            field: "signature",
            len: 19
        })
    );
    let unknown = with_slot(Value::Array(vec![Value::Text("mint".into())]));
    assert!(matches!(
        Transaction::decode(&unknown),
        Err(TxError::FieldType {
            field: "signature",
            ..
        })
    ));
}
