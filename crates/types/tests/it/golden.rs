//! Golden values: changing any of these is a consensus change and must be deliberate.

use cowboy_types::{message_id, Address, GenesisParams, Hash32};

#[test]
fn genesis_parameters_hash_is_pinned() {
    let p = GenesisParams::default();
    assert_eq!(
        p.hash().to_hex(),
        "0xf0a7691fdc7cb280ee8d18bce50777f0ff6396fda793a5219b22ffc2e7dc7a71"
    );
}

#[test]
fn message_id_layout_is_pinned() {
    // keccak256(sender(20) ‖ nonce as 8 big-endian bytes ‖ msg_hash(32)).
    let id = message_id(&Address::system(1), 5, &Hash32([7; 32]));
    let mut preimage = Vec::new();
    preimage.extend_from_slice(&Address::system(1).0);
    preimage.extend_from_slice(&5u64.to_be_bytes());
    preimage.extend_from_slice(&[7; 32]);
    assert_eq!(id, cowboy_types::keccak256(&preimage));
}
