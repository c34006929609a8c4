//! The beacon's block rule (`cowboy_exec::beacon`) through `block::propose` and
//! `block::verify`: a chain whose genesis names a threshold group carries the group's
//! signature over block `n − k` in every block `n > k`, and every way a Byzantine proposer
//! could get it wrong is refused with its typed error: no signature, a signature over
//! another height, over another block, from another group, a randomness that is not the
//! signature's hash, a signature where none is due. And `t − 1` members cannot make one.

use std::sync::Arc;

use commonware_codec::Encode;
use commonware_cryptography::bls12381::dkg::feldman_desmedt::deal_anonymous;
use commonware_cryptography::bls12381::primitives::group::Share;
use commonware_cryptography::bls12381::primitives::ops::threshold;
use commonware_cryptography::bls12381::primitives::sharing::{Mode, Sharing};
use commonware_cryptography::bls12381::primitives::variant::PartialSignature;
use commonware_runtime::{deterministic, Runner as _};
use commonware_utils::N3f1;
use cowboy_exec::beacon::{self, message, BeaconError, Signed, Variant, BEACON_LAG, NAMESPACE};
use cowboy_exec::block::{propose, verify};
use cowboy_exec::header::{genesis_header, GotExpected};
use cowboy_exec::{BlockError, ChainRules, Parent};
use cowboy_state::Staged;
use cowboy_types::block::BlockHeader;
use cowboy_types::{Address, Hash32};
use rand::rngs::ChaCha20Rng;
use rand::SeedableRng;

use crate::support::{Chain, CHAIN_ID};

/// A group of `n` members with commonware's quorum threshold, dealt from `seed`.
fn group(n: u32, seed: u64) -> (Sharing<Variant>, Vec<Share>) {
    deal_anonymous::<Variant, N3f1>(
        ChaCha20Rng::seed_from_u64(seed),
        Mode::NonZeroCounter,
        std::num::NonZeroU32::new(n).expect("n > 0"),
    )
}

fn partials(shares: &[Share], height: u64, hash: &Hash32) -> Vec<PartialSignature<Variant>> {
    let msg = message(CHAIN_ID, height, hash);
    shares
        .iter()
        .map(|s| threshold::sign_message::<Variant>(s, NAMESPACE, &msg))
        .collect()
}

/// The group's signature over block `height` with hash `hash`, recovered from `shares`.
fn sign(sharing: &Sharing<Variant>, shares: &[Share], height: u64, hash: &Hash32) -> [u8; 48] {
    let sig = threshold::recover::<Variant, _>(
        sharing,
        &partials(shares, height, hash),
        &commonware_parallel::Sequential,
    )
    .expect("t partials recover");
    sig.encode().as_ref().try_into().expect("48 bytes")
}

#[test]
fn blocks_carry_the_group_signature_over_block_n_minus_k_and_nothing_else_passes() {
    deterministic::Runner::default().start(|ctx| async move {
        let (sharing, shares) = group(4, 1);
        let t = sharing.required() as usize;
        assert_eq!(t, 3, "2f + 1 of 4");
        let chain = Chain::new(ctx, 1).await;
        let mut params = chain.params.clone();
        params.beacon_group_key = Some(
            sharing
                .public()
                .encode()
                .as_ref()
                .try_into()
                .expect("96 bytes"),
        );
        let rules = ChainRules {
            chain_id: CHAIN_ID,
            params: &params,
        };
        let genesis = genesis_header(&params, 1_000, Hash32(chain.root()));
        let mut headers: Vec<BlockHeader> = vec![genesis.clone()];
        let mut state: Option<Arc<Staged>> = None;
        // Blocks 1..=k+3: the first k by the parent-hash rule, the rest with the signature
        // over their k-th ancestor, signed by t members (not the first: any t will do).
        for height in 1..=BEACON_LAG + 3 {
            let parent_header = headers.last().expect("parent").clone();
            let parent = Parent {
                header: &parent_header,
                hash: parent_header.hash(),
            };
            let schedule = beacon::Schedule {
                group_key: params.beacon_group_key.expect("dealt"),
                from: 1,
            };
            let target = beacon::target_height(Some(&schedule), height);
            let seed = target.map(|th| {
                let hash = headers[th as usize].hash();
                Signed {
                    target_hash: hash,
                    signature: sign(&sharing, &shares[1..], th, &hash),
                }
            });
            let proposal = propose(
                &chain.state,
                state.as_ref(),
                rules,
                parent,
                parent_header.timestamp_ms + 1_000,
                Address([9; 20]),
                Vec::new(),
                None,
                seed,
                Vec::new(),
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("state");
            let block = proposal.block;
            assert!(block.body_matches_header());
            let target_hash = seed.map(|s| s.target_hash);
            match seed {
                None => {
                    assert_eq!(block.beacon, None);
                    assert_eq!(
                        block.header.randomness, parent.hash,
                        "phase L1 below the lag"
                    );
                }
                Some(s) => {
                    assert_eq!(block.beacon, Some(s.signature));
                    assert_eq!(block.header.randomness, beacon::randomness_of(&s.signature));
                }
            }
            macro_rules! verdict {
                ($b:expr, $target:expr) => {
                    verify(&chain.state, state.as_ref(), rules, parent, &$b, $target)
                        .await
                        .expect("state")
                        .err()
                };
            }
            assert_eq!(
                verdict!(block, target_hash),
                None,
                "block {height} is valid"
            );

            // Every tampering, each with its own typed error.
            let with = |sig: Option<[u8; 48]>, randomness: Option<Hash32>| {
                let mut b = block.clone();
                b.beacon = sig;
                if let Some(r) = randomness {
                    b.header.randomness = r;
                }
                b
            };
            match target {
                None => {
                    // A signature where none is due (it would let the proposer choose).
                    let any = sign(&sharing, &shares[..t], 0, &headers[0].hash());
                    assert_eq!(
                        verdict!(with(Some(any), None), None),
                        Some(BlockError::Beacon(BeaconError::Unexpected))
                    );
                }
                Some(th) => {
                    let hash = headers[th as usize].hash();
                    let good = block.beacon.expect("carried");
                    // Missing.
                    assert_eq!(
                        verdict!(with(None, Some(parent.hash)), target_hash),
                        Some(BlockError::Beacon(BeaconError::Missing { target: th }))
                    );
                    let bad = Some(BlockError::Beacon(BeaconError::BadSignature {
                        target: th,
                        target_hash: hash,
                    }));
                    // Over another height (the parent's, a valid group signature).
                    let other_height = sign(&sharing, &shares[..t], height - 1, &parent.hash);
                    let r = beacon::randomness_of(&other_height);
                    assert_eq!(
                        verdict!(with(Some(other_height), Some(r)), target_hash),
                        bad
                    );
                    // Over another block at that height (a fork's).
                    let fork = sign(&sharing, &shares[..t], th, &Hash32([7; 32]));
                    let r = beacon::randomness_of(&fork);
                    assert_eq!(verdict!(with(Some(fork), Some(r)), target_hash), bad);
                    // From another group (the right message).
                    let (other, other_shares) = group(4, 2);
                    let foreign = sign(&other, &other_shares[..t], th, &hash);
                    let r = beacon::randomness_of(&foreign);
                    assert_eq!(verdict!(with(Some(foreign), Some(r)), target_hash), bad);
                    // Bytes that are no point of the group.
                    let garbage = [0xAB; 48];
                    let r = beacon::randomness_of(&garbage);
                    assert_eq!(verdict!(with(Some(garbage), Some(r)), target_hash), bad);
                    // The right signature checked against another chain's ancestor.
                    assert_eq!(
                        verdict!(block, Some(Hash32([7; 32]))),
                        Some(BlockError::Beacon(BeaconError::BadSignature {
                            target: th,
                            target_hash: Hash32([7; 32]),
                        }))
                    );
                    // The right signature, a randomness that is not its hash.
                    assert_eq!(
                        verdict!(with(Some(good), Some(parent.hash)), target_hash),
                        Some(BlockError::Randomness(GotExpected {
                            got: parent.hash,
                            expected: beacon::randomness_of(&good),
                        }))
                    );
                    // Any t members recover the same signature: the proposer chooses nothing.
                    assert_eq!(sign(&sharing, &shares[..t], th, &hash), good);
                    // A proposer handed a wrong signature builds nothing.
                    let wrong = Signed {
                        target_hash: hash,
                        signature: other_height,
                    };
                    assert!(propose(
                        &chain.state,
                        state.as_ref(),
                        rules,
                        parent,
                        parent_header.timestamp_ms + 1_000,
                        Address([9; 20]),
                        Vec::new(),
                        None,
                        Some(wrong),
                        Vec::new(),
                        &cowboy_exec::block::no_cutoff,
                    )
                    .await
                    .is_err());
                }
            }
            headers.push(block.header.clone());
            state = Some(proposal.executed.state);
        }
    });
}

#[test]
fn fewer_than_t_members_cannot_make_a_beacon_signature() {
    let (sharing, shares) = group(4, 3);
    let t = sharing.required() as usize;
    let hash = Hash32([5; 32]);
    let few = partials(&shares[..t - 1], 9, &hash);
    // Recovery refuses t − 1 partials outright...
    assert!(
        threshold::recover::<Variant, _>(&sharing, &few, &commonware_parallel::Sequential).is_err()
    );
    // ...and padding them with a partial of a share outside the group (a colluder's guess at
    // the missing one) recovers something that is not the group's signature.
    let (_, outsiders) = group(4, 4);
    let mut padded = few.clone();
    let mut forged = partials(&outsiders[t - 1..t], 9, &hash);
    forged[0].index = shares[t - 1].index;
    padded.extend(forged);
    let sig = threshold::recover::<Variant, _>(&sharing, &padded, &commonware_parallel::Sequential)
        .expect("t evaluations interpolate");
    let key = sharing.public();
    let bytes: [u8; 48] = sig.encode().as_ref().try_into().expect("48 bytes");
    assert!(!beacon::verify_signature(key, CHAIN_ID, 9, &hash, &bytes));
    // The honest t do.
    let good = sign(&sharing, &shares[..t], 9, &hash);
    assert!(beacon::verify_signature(key, CHAIN_ID, 9, &hash, &good));
}
