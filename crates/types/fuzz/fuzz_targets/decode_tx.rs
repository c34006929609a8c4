//! Fuzz target: arbitrary bytes into the transaction and CBOR decoders. Must never panic, and
//! anything accepted must re-encode to exactly the input (one encoding per transaction).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(tx) = cowboy_types::Transaction::decode(data) {
        assert_eq!(tx.encode(), data);
        let _ = tx.sender();
        let _ = cowboy_types::Payload::decode(tx.to.is_some(), &tx.payload);
    }
    if let Ok(v) = cowboy_types::cbor::decode(data) {
        assert_eq!(cowboy_types::cbor::encode(&v), data);
    }
});
