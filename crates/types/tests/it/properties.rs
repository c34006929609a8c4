//! Property tests: every encoder round-trips through its decoder, and no decoder panics on
//! arbitrary bytes.

use cowboy_types::cbor::{decode, encode, Value};
use cowboy_types::{
    block_receipts_root, Address, Authorization, Block, BlockHeader, Event, ExecError,
    GenesisParams, Hash32, HookEvents, Receipt, Signature, Transaction, Vote, VoteRecord,
};
use proptest::prelude::*;

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<u64>().prop_map(Value::Uint),
        any::<u64>().prop_map(Value::Nint),
        any::<u128>().prop_map(Value::from_u128),
        any::<i128>().prop_map(Value::from_i128),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
        ".{0,20}".prop_map(Value::Text),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        any::<f64>()
            .prop_filter("NaN compares unequal", |f| !f.is_nan())
            .prop_map(Value::Float),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map(".{0,6}", inner, 0..6).prop_map(|m| {
                Value::Map(m.into_iter().map(|(k, v)| (Value::Text(k), v)).collect())
            }),
        ]
    })
}

fn address() -> impl Strategy<Value = Address> {
    any::<[u8; 20]>().prop_map(Address)
}

fn hash() -> impl Strategy<Value = Hash32> {
    any::<[u8; 32]>().prop_map(Hash32)
}

fn tx_strategy() -> impl Strategy<Value = Transaction> {
    (
        (
            any::<u64>(),
            any::<u64>(),
            proptest::option::of(address()),
            any::<u128>(),
        ),
        (
            any::<u64>(),
            any::<u64>(),
            any::<u128>(),
            any::<u128>(),
            any::<u128>(),
            any::<u128>(),
        ),
        proptest::option::of(proptest::collection::vec(
            (
                address(),
                proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..8), 0..3),
            ),
            0..3,
        )),
        proptest::collection::vec(any::<u8>(), 0..64),
        proptest::option::of((0u8..2, any::<[u8; 32]>(), any::<[u8; 32]>())),
    )
        .prop_map(
            |((chain_id, nonce, to, value), (cl, bl, mfc, mfb, tc, tb), al, payload, sig)| {
                Transaction {
                    chain_id,
                    nonce,
                    to,
                    value,
                    cycles_limit: cl,
                    cells_limit: bl,
                    max_fee_per_cycle: mfc,
                    max_fee_per_cell: mfb,
                    tip_per_cycle: tc,
                    tip_per_cell: tb,
                    access_list: al.map(|entries| {
                        entries
                            .into_iter()
                            .map(|(address, storage_keys)| cowboy_types::AccessListEntry {
                                address,
                                storage_keys,
                            })
                            .collect()
                    }),
                    payload,
                    signature: sig.map(|(y_parity, r, s)| {
                        Authorization::Signed(Signature { y_parity, r, s })
                    }),
                }
            },
        )
}

proptest! {
    #[test]
    fn cbor_round_trip(v in value_strategy()) {
        let bytes = encode(&v);
        let back = decode(&bytes).expect("our own encoding decodes");
        prop_assert_eq!(encode(&back), bytes);
    }

    #[test]
    fn transaction_round_trip(tx in tx_strategy()) {
        prop_assert_eq!(Transaction::decode(&tx.encode()), Ok(tx));
    }

    #[test]
    fn block_and_receipt_round_trip(
        tx in tx_strategy(),
        parent in hash(), root in hash(), proposer in address(),
        h in any::<u64>(), fee in any::<u128>(), data in proptest::collection::vec(any::<u8>(), 0..32),
        ok in any::<bool>(),
    ) {
        let header = BlockHeader {
            parent_hash: parent, height: h, timestamp_ms: h / 3, proposer,
            state_root: root, tx_root: Block::tx_root(std::slice::from_ref(&tx)),
            receipts_root: root, cycle_basefee: fee, cell_basefee: fee / 7,
            cycles_used: h / 5, cells_used: h / 11, randomness: parent, votes_root: None, dealings_root: None,
        };
        prop_assert_eq!(BlockHeader::decode(&header.encode()), Ok(header.clone()));
        let block = Block { header: header.clone(), transactions: vec![tx.clone(), tx.clone()], votes: None, beacon: None, dealer_logs: Vec::new() };
        prop_assert_eq!(Block::decode(&block.encode(), GenesisParams::default().block_limits()), Ok(block.clone()));
        // With a beacon signature and no record: the record's place holds null.
        let beacon = [h as u8; 48];
        let with_beacon = Block { beacon: Some(beacon), ..block };
        prop_assert_eq!(Block::decode(&with_beacon.encode(), GenesisParams::default().block_limits()), Ok(with_beacon));
        // With a vote record: the header's thirteenth field and the block's third item.
        let votes = VoteRecord {
            epoch: h / 13, view: h / 2, parent_view: h / 3,
            votes: (0..(h % 5) as u32).map(|signer| Vote { signer, signature: [signer as u8; 64] }).collect(),
        };
        let header = BlockHeader { votes_root: Some(votes.hash()), ..header };
        prop_assert_eq!(BlockHeader::decode(&header.encode()), Ok(header.clone()));
        let block = Block { header, transactions: vec![tx], votes: Some(votes), beacon: None, dealer_logs: Vec::new() };
        prop_assert_eq!(Block::decode(&block.encode(), GenesisParams::default().block_limits()), Ok(block.clone()));
        let with_beacon = Block { beacon: Some(beacon), ..block.clone() };
        prop_assert_eq!(Block::decode(&with_beacon.encode(), GenesisParams::default().block_limits()), Ok(with_beacon.clone()));
        // With dealer logs: the header's fourteenth field (its thirteenth null without a
        // record) and the block's fifth item (its third and fourth null when absent).
        let logs = vec![vec![h as u8; (h % 7) as usize], vec![1, 2, 3]];
        for base in [block.clone(), with_beacon, Block { votes: None, beacon: None, ..block.clone() }] {
            let votes_root = base.votes.as_ref().map(VoteRecord::hash);
            let header = BlockHeader { votes_root, dealings_root: Block::dealings_root(&logs), ..base.header.clone() };
            prop_assert_eq!(BlockHeader::decode(&header.encode()), Ok(header.clone()));
            let with_logs = Block { header, dealer_logs: logs.clone(), ..base };
            // The logs are committed: dropping one makes the body not the header's.
            let mut stripped = with_logs.clone();
            stripped.dealer_logs.pop();
            prop_assert_ne!(Block::dealings_root(&stripped.dealer_logs), with_logs.header.dealings_root);
            prop_assert_eq!(Block::decode(&with_logs.encode(), GenesisParams::default().block_limits()), Ok(with_logs));
        }
        let receipt = Receipt {
            success: ok, cycles_used: h, cells_used: h / 2, fee_paid: fee,
            return_data: data.clone(),
            events: vec![Event { emitter: proposer, topic: "t".into(), data }],
            error: (!ok).then(|| ExecError { class: "ValueError".into(), message: "bad".into(), line: 3 }),
        };
        prop_assert_eq!(Receipt::decode(&receipt.encode()), Ok(receipt.clone()));
        // Hook events: round trip, and committed after the receipts only when there are some
        // (a block without them commits as before).
        let event = Event { emitter: proposer, topic: "EpochStarted".into(), data: receipt.return_data.clone() };
        let hooks = HookEvents { begin: vec![event.clone(); (h % 2) as usize], end: vec![event; 1 + (h % 3) as usize] };
        prop_assert_eq!(HookEvents::decode(&hooks.encode()), Ok(hooks.clone()));
        let receipts = vec![receipt];
        prop_assert_eq!(block_receipts_root(&[], &receipts, &HookEvents::default()), Receipt::receipts_root(&receipts));
        prop_assert_ne!(block_receipts_root(&[], &receipts, &hooks), Receipt::receipts_root(&receipts));
        let moved = HookEvents { begin: hooks.end.clone(), end: hooks.begin.clone() };
        if moved != hooks {
            prop_assert_ne!(block_receipts_root(&[], &receipts, &hooks), block_receipts_root(&[], &receipts, &moved));
        }
    }

    #[test]
    fn decoders_never_panic_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode(&bytes);
        let _ = Transaction::decode(&bytes);
        let _ = BlockHeader::decode(&bytes);
        let _ = Block::decode(&bytes, GenesisParams::default().block_limits());
        let _ = Receipt::decode(&bytes);
        let _ = Event::decode(&bytes);
        let _ = HookEvents::decode(&bytes);
        let _ = GenesisParams::decode(&bytes);
        let _ = cowboy_types::Payload::decode(true, &bytes);
        let _ = cowboy_types::Payload::decode(false, &bytes);
    }

    #[test]
    fn accepted_bytes_are_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        // Whatever the decoder accepts, re-encoding reproduces exactly: one encoding per value.
        if let Ok(v) = decode(&bytes) {
            prop_assert_eq!(encode(&v), bytes);
        }
    }
}

/// The header bound behind `GenesisParams::max_block_bytes` holds for the largest header, and
/// block decoding refuses a block over the limit, or carrying a transaction over the
/// transaction limit, before parsing it.
#[test]
fn block_size_limits() {
    let widest = BlockHeader {
        parent_hash: Hash32([0xff; 32]),
        height: u64::MAX,
        timestamp_ms: u64::MAX,
        proposer: Address([0xff; 20]),
        state_root: Hash32([0xff; 32]),
        tx_root: Hash32([0xff; 32]),
        receipts_root: Hash32([0xff; 32]),
        cycle_basefee: u128::MAX,
        cell_basefee: u128::MAX,
        cycles_used: u64::MAX,
        cells_used: u64::MAX,
        randomness: Hash32([0xff; 32]),
        votes_root: Some(Hash32([0xff; 32])),
        dealings_root: Some(Hash32([0xff; 32])),
    };
    assert!(widest.encode().len() as u64 <= cowboy_types::genesis::MAX_HEADER_BYTES);
    // The widest vote record: every validator's vote, at the widest signer index.
    let record = VoteRecord {
        epoch: u64::MAX,
        view: u64::MAX,
        parent_view: u64::MAX,
        votes: vec![
            Vote {
                signer: u32::MAX,
                signature: [0xff; 64]
            };
            10_000
        ],
    };
    assert!(record.encode().len() as u64 <= 63 + 10_000 * cowboy_types::block::MAX_VOTE_BYTES);

    let params = GenesisParams::default();
    let limits = params.block_limits();
    // The default caps: 1,000,000 cells of transaction bytes, 2,000 transactions.
    assert_eq!(params.max_txs_per_block(), 2_000);
    // Plus the vote record of a full set: 10,000 validators, and a beacon signature with
    // its head and the fourth item's share of the array head.
    assert_eq!(params.max_validators(), 10_000);
    // And the fifth item: 16 dealer logs of 128 KiB in all, with their heads.
    assert_eq!(
        params.max_block_bytes(),
        512 + 27 + 18_000 + 1_000_000 + 63 + 10_000 * 72 + 9 + 2 + 48 + 9 + 16 * 9 + 131_072
    );
    // The widest fifth item fits that share: 16 logs of 8 KiB each.
    let logs = vec![vec![0xffu8; 8 * 1024]; 16];
    let item = cowboy_types::cbor::encode(&cowboy_types::cbor::Value::Array(
        logs.iter()
            .map(|l| cowboy_types::cbor::Value::Bytes(l.clone()))
            .collect(),
    ));
    assert!(item.len() as u64 <= 9 + 16 * 9 + 131_072);

    let big = Transaction {
        chain_id: 1,
        nonce: 0,
        to: Some(Address([1; 20])),
        value: 0,
        cycles_limit: 0,
        cells_limit: 0,
        max_fee_per_cycle: 0,
        max_fee_per_cell: 0,
        tip_per_cycle: 0,
        tip_per_cell: 0,
        access_list: None,
        payload: vec![7; limits.max_tx_bytes],
        signature: None,
    };
    let block = Block {
        header: widest,
        transactions: vec![big],
        votes: Some(record),
        beacon: Some([0xff; 48]),
        dealer_logs: logs,
    };
    let bytes = block.encode();
    match Block::decode(&bytes, limits) {
        Err(cowboy_types::block::DecodeError::Tx { index: 0, error }) => {
            assert!(
                matches!(error, cowboy_types::TxError::TooLarge { .. }),
                "{error}"
            )
        }
        other => panic!("a transaction over the limit was accepted: {other:?}"),
    }
    let tight = cowboy_types::block::BlockLimits {
        max_block_bytes: bytes.len() - 1,
        max_tx_bytes: usize::MAX,
    };
    assert_eq!(
        Block::decode(&bytes, tight),
        Err(cowboy_types::block::DecodeError::TooLarge {
            size: bytes.len(),
            max: bytes.len() - 1
        })
    );
}
