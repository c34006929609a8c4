//! The beacon's resharing rule (`cowboy_exec::reshare`) through `block::propose` and
//! `block::verify`: a genesis group of four of five staked validators reshares to all five
//! in epoch 1; the dealers' signed logs ride in blocks, every bad log list is refused with
//! its typed error, `observe` at the window's last block replaces the sharing (same group
//! key), the joiner's new share signs, and a round with too few logs keeps the old sharing.
//! On a chain that generates its group (`beacon_dkg = 1`), the five run the genesis key
//! generation in epoch 0, its outcome block starts the beacon, and a failed one is retried.

use std::collections::BTreeMap;
use std::sync::Arc;

use commonware_codec::{DecodeExt, Encode};
use commonware_cryptography::bls12381::dkg::feldman_desmedt::{self as dkg, Dealer, Player};
use commonware_cryptography::bls12381::primitives::group::Share;
use commonware_cryptography::bls12381::primitives::ops::{self, threshold};
use commonware_cryptography::bls12381::primitives::sharing::{Mode, Sharing};
use commonware_cryptography::{ed25519, Signer};
use commonware_runtime::{deterministic, Runner as _};
use commonware_utils::ordered::Set;
use commonware_utils::N3f1;
use cowboy_exec::beacon::{self, message, Signed, Variant, NAMESPACE};
use cowboy_exec::block::{propose, verify, Executed};
use cowboy_exec::header::genesis_header;
use cowboy_exec::reshare::{self, ReshareError};
use cowboy_exec::system::staking::{self, GenesisValidator, Keys};
use cowboy_exec::{BlockError, BlockState, ChainRules, Parent};
use cowboy_state::Staged;
use cowboy_types::block::{Block, BlockHeader, HookEvents};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{keccak256, Address, Hash32};
use rand::rngs::ChaCha20Rng;
use rand::SeedableRng;

use crate::support::{key, Chain, CHAIN_ID};

const CBY: u128 = 10u128.pow(18);
/// Epochs of eight blocks: round 1's window is heights 8..=12.
const E: u64 = 8;

fn ed(i: u32) -> ed25519::PrivateKey {
    ed25519::PrivateKey::decode(keccak256(format!("reshare-ed-{i}").as_bytes()).0.to_vec())
        .expect("ed25519 seed")
}

fn keys_of(i: u32) -> Keys {
    let bls = staking::validator_bls_key(format!("reshare-bls-{i}").as_bytes()).expect("bls");
    Keys {
        bls: staking::bls_public_key(&bls),
        ed25519: ed(i).public_key().encode().as_ref().try_into().expect("32"),
    }
}

/// The fixture: five staked validators, the beacon group dealt to the first four (or, for
/// [`Fixture::generating`], none yet).
struct Fixture {
    chain: Chain,
    params: GenesisParams,
    /// The group's sharing, once there is one.
    sharing: Option<Sharing<Variant>>,
    /// The current shares by member key (genesis shares, or a generation's).
    shares: BTreeMap<ed25519::PublicKey, Share>,
    /// The dealt genesis output (a chain that generates its group has none).
    genesis: Option<reshare::Output>,
    headers: Vec<BlockHeader>,
    state: Option<Arc<Staged>>,
    /// The hook events of the last block [`Fixture::advance`] added.
    hooks: HookEvents,
}

impl Fixture {
    /// A chain whose group was dealt before genesis to the first four.
    async fn new(ctx: deterministic::Context) -> Fixture {
        Fixture::dealt(ctx, 200 * CBY, 128).await
    }

    /// [`Fixture::new`] with the fifth validator (the joiner) staking `joiner_stake` and at
    /// most `players_max` beacon players.
    async fn dealt(ctx: deterministic::Context, joiner_stake: u128, players_max: u64) -> Fixture {
        let members = Set::from_iter_dedup((0..4).map(|i| ed(i).public_key()));
        let (output, shares) = dkg::deal::<Variant, _, N3f1>(
            ChaCha20Rng::seed_from_u64(3),
            Mode::NonZeroCounter,
            members.clone(),
        )
        .expect("deal");
        let sharing = output.public().clone();
        let members: Vec<_> = members.iter().cloned().collect();
        let genesis = reshare::genesis_output(&sharing, &members).expect("a quorum sharing");
        let shares = shares
            .iter_pairs()
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        Fixture::with_group(
            ctx,
            Some((sharing, shares, genesis)),
            joiner_stake,
            players_max,
        )
        .await
    }

    /// A chain that generates its group on chain (`beacon_dkg = 1`): nothing dealt.
    async fn generating(ctx: deterministic::Context) -> Fixture {
        Fixture::with_group(ctx, None, 200 * CBY, 128).await
    }

    /// Five staked validators (200 CBY each, the fifth `joiner_stake`) and the dealt group,
    /// if any (else `beacon_dkg = 1`).
    async fn with_group(
        ctx: deterministic::Context,
        dealt: Option<(
            Sharing<Variant>,
            BTreeMap<ed25519::PublicKey, Share>,
            reshare::Output,
        )>,
        joiner_stake: u128,
        players_max: u64,
    ) -> Fixture {
        let mut chain = Chain::new(ctx, 5).await;
        let mut params = GenesisParams {
            minimum_validator_stake_wei: 100 * CBY,
            epoch_blocks: E,
            beacon_players_max: players_max,
            ..chain.params.clone()
        };
        match &dealt {
            Some((sharing, _, _)) => {
                params.beacon_group_key =
                    Some(sharing.public().encode().as_ref().try_into().expect("96"));
            }
            None => params.beacon_dkg = 1,
        }
        chain.params = params.clone();
        let validators: Vec<GenesisValidator> = (0..5)
            .map(|i| GenesisValidator {
                address: key(i).address(),
                stake: if i == 4 { joiner_stake } else { 200 * CBY },
                keys: keys_of(i),
            })
            .collect();
        let g = dealt.as_ref().map(|(_, _, g)| g.clone());
        chain
            .poke(|state, params, _| {
                staking::apply_genesis(state, params, &validators).expect("validators");
                if let Some(g) = &g {
                    reshare::apply_genesis(state, params, g).expect("sharing");
                }
            })
            .await;
        // The state holds block 1; a header stands in for it (and for block 0).
        let block0 = genesis_header(&params, 1_000, Hash32([0; 32]));
        let mut block1 = genesis_header(&params, 1_000, Hash32(chain.root()));
        block1.height = 1;
        let (sharing, shares, genesis) = match dealt {
            Some((sharing, shares, genesis)) => (Some(sharing), shares, Some(genesis)),
            None => (None, BTreeMap::new(), None),
        };
        Fixture {
            chain,
            params,
            sharing,
            shares,
            genesis,
            headers: vec![block0, block1],
            state: None,
            hooks: HookEvents::default(),
        }
    }

    /// The beacon's schedule in the tip's state.
    fn schedule(&self) -> Option<beacon::Schedule> {
        self.read(|bs| beacon::schedule(bs, &self.params, self.tip() + 1))
            .expect("state")
    }

    fn rules(&self) -> ChainRules<'_> {
        ChainRules {
            chain_id: CHAIN_ID,
            params: &self.params,
        }
    }

    /// The beacon signature the next block must carry, from all current shares but the
    /// first (a quorum of four or five).
    fn seed(&self) -> Option<Signed> {
        let height = self.headers.len() as u64;
        let th = beacon::target_height(self.schedule().as_ref(), height)?;
        let hash = self.headers[th as usize].hash();
        let msg = message(CHAIN_ID, th, &hash);
        let partials: Vec<_> = self
            .shares
            .values()
            .skip(1)
            .map(|s| threshold::sign_message::<Variant>(s, NAMESPACE, &msg))
            .collect();
        let sig = threshold::recover::<Variant, _>(
            self.sharing.as_ref().expect("a sharing"),
            &partials,
            &commonware_parallel::Sequential,
        )
        .expect("t partials");
        Some(Signed {
            target_hash: hash,
            signature: sig.encode().as_ref().try_into().expect("48"),
        })
    }

    /// The next block, built from `logs` (candidates the proposer filters), with its
    /// execution.
    async fn build(&self, logs: Vec<Vec<u8>>) -> (Block, Executed) {
        let parent = self.headers.last().expect("parent");
        let proposal = propose(
            &self.chain.state,
            self.state.as_ref(),
            self.rules(),
            Parent {
                header: parent,
                hash: parent.hash(),
            },
            parent.timestamp_ms + 1_000,
            Address([9; 20]),
            Vec::new(),
            None,
            self.seed(),
            logs,
            &cowboy_exec::block::no_cutoff,
        )
        .await
        .expect("state");
        (proposal.block, proposal.executed)
    }

    /// `block` verified as the next block: the error, if any.
    async fn verdict(&self, block: &Block) -> Option<BlockError> {
        let parent = self.headers.last().expect("parent");
        let target = beacon::target_height(self.schedule().as_ref(), block.header.height)
            .map(|th| self.headers[th as usize].hash());
        verify(
            &self.chain.state,
            self.state.as_ref(),
            self.rules(),
            Parent {
                header: parent,
                hash: parent.hash(),
            },
            block,
            target,
        )
        .await
        .expect("state")
        .err()
    }

    /// Build the next block from `logs`, check it is valid, and append it.
    async fn advance(&mut self, logs: Vec<Vec<u8>>) -> Block {
        let (block, executed) = self.build(logs).await;
        assert_eq!(
            self.verdict(&block).await,
            None,
            "block {}",
            block.header.height
        );
        self.headers.push(block.header.clone());
        self.state = Some(executed.state);
        self.hooks = executed.hooks;
        block
    }

    /// Read the tip's state through `f`.
    fn read<T>(&self, f: impl FnOnce(&mut BlockState<'_, deterministic::Context>) -> T) -> T {
        let mut bs = BlockState::new(self.chain.state.batch_on(self.state.as_ref()));
        f(&mut bs)
    }

    fn tip(&self) -> u64 {
        self.headers.len() as u64 - 1
    }
}

/// The one `BeaconRoundDecided` event among `hooks`' `end_block` events, by field name.
fn round_decided(hooks: &HookEvents) -> BTreeMap<String, Value> {
    let decided: Vec<_> = hooks
        .end
        .iter()
        .filter(|e| e.topic == "BeaconRoundDecided")
        .collect();
    assert_eq!(decided.len(), 1, "{hooks:?}");
    assert_eq!(decided[0].emitter, cowboy_types::system::STAKING);
    let Ok(Value::Map(fields)) = cowboy_types::cbor::decode(&decided[0].data) else {
        panic!("a map");
    };
    fields
        .into_iter()
        .map(|(k, v)| match k {
            Value::Text(k) => (k, v),
            other => panic!("key {other:?}"),
        })
        .collect()
}

/// Each player's state, by key.
type Players = BTreeMap<ed25519::PublicKey, Player<Variant, ed25519::PrivateKey>>;

/// The off-chain side of round `round`: every dealer deals to every player, every player
/// acks; the dealers' signed logs (encoded) and the players.
fn deal_round(fx: &Fixture, round: &reshare::Round) -> (Vec<Vec<u8>>, Players) {
    let sk: BTreeMap<_, _> = (0..5).map(|i| (ed(i).public_key(), ed(i))).collect();
    let mut players: BTreeMap<_, _> = round
        .players
        .iter()
        .map(|p| {
            (
                p.clone(),
                Player::<Variant, _>::new(round.info.clone(), sk[p].clone()).expect("player"),
            )
        })
        .collect();
    let mut logs = Vec::new();
    for (i, d) in round.dealers.iter().enumerate() {
        let (mut dealer, pub_msg, privs) = Dealer::<Variant, _>::start::<N3f1>(
            ChaCha20Rng::seed_from_u64(100 + i as u64),
            round.info.clone(),
            sk[d].clone(),
            fx.shares.get(d).cloned(),
        )
        .expect("dealer");
        for (p, priv_msg) in privs {
            let player = players.get_mut(&p).expect("a player");
            if let Some(ack) = player
                .dealer_message::<N3f1>(d.clone(), pub_msg.clone(), priv_msg)
                .expect("a valid dealing")
            {
                dealer.receive_player_ack(p, ack).expect("a valid ack");
            }
        }
        logs.push(dealer.finalize::<N3f1>().encode().to_vec());
    }
    (logs, players)
}

#[test]
fn a_joiner_gets_a_share_through_logs_on_chain_and_bad_logs_are_refused() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut fx = Fixture::new(ctx).await;
        // Epoch 0 runs no round: logs there are refused.
        fx.advance(Vec::new()).await; // block 2
                                      // Any bytes will do: the block is refused before they are read.
        let some_log = vec![7u8; 10];
        let (block3, _) = fx.build(Vec::new()).await;
        let mut with_logs = block3.clone();
        with_logs.dealer_logs = vec![some_log.clone()];
        with_logs.header.dealings_root = Block::dealings_root(&with_logs.dealer_logs);
        assert_eq!(
            fx.verdict(&with_logs).await,
            Some(BlockError::Reshare(ReshareError::NoRound { epoch: 0 }))
        );
        while fx.tip() < E - 1 {
            fx.advance(Vec::new()).await;
        }
        // Block 7 took epoch 1's set: all five validators, so round 1 runs from block 8.
        let round = fx
            .read(|bs| reshare::round(bs, &fx.params, E))
            .expect("state")
            .expect("a round: the set changed");
        assert_eq!(round.round, 1);
        assert_eq!(round.dealers.len(), 4);
        assert_eq!(round.players.len(), 5);
        assert_eq!(round.last, E + E / 2);
        let (logs, players) = deal_round(&fx, &round);

        // Block 8 carries dealer 0's log, offered twice and beside garbage: the proposer
        // keeps the one valid copy.
        let b8 = fx
            .advance(vec![logs[0].clone(), vec![1, 2, 3], logs[0].clone()])
            .await;
        assert_eq!(b8.dealer_logs, vec![logs[0].clone()]);
        assert_eq!(
            b8.header.dealings_root,
            Block::dealings_root(&b8.dealer_logs)
        );

        // Every bad list for block 9, each with its typed error.
        let (b9, _) = fx.build(Vec::new()).await;
        let with = |logs: Vec<Vec<u8>>| {
            let mut b = b9.clone();
            b.header.dealings_root = Block::dealings_root(&logs);
            b.dealer_logs = logs;
            b
        };
        let refused = |e| Some(BlockError::Reshare(e));
        // A root that does not commit to the logs.
        let mut unrooted = with(vec![logs[1].clone()]);
        unrooted.header.dealings_root = None;
        assert_eq!(
            fx.verdict(&unrooted).await,
            Some(BlockError::DealingsRoot {
                got: None,
                expected: Block::dealings_root(&[logs[1].clone()]),
            })
        );
        // Recorded already (block 8), and twice in one block.
        assert_eq!(
            fx.verdict(&with(vec![logs[0].clone()])).await,
            refused(ReshareError::Duplicate { index: 0 })
        );
        assert_eq!(
            fx.verdict(&with(vec![logs[1].clone(), logs[1].clone()]))
                .await,
            refused(ReshareError::Duplicate { index: 1 })
        );
        // Not a log.
        assert_eq!(
            fx.verdict(&with(vec![logs[1].clone(), vec![1, 2, 3]]))
                .await,
            refused(ReshareError::Decode { index: 1 })
        );
        // A log of another round (the same dealers and players, round 2) does not verify.
        let other = {
            let info = dkg::Info::new::<N3f1>(
                reshare::NAMESPACE,
                2,
                fx.genesis.clone(),
                Mode::NonZeroCounter,
                dkg::Reveal::V1,
                round.dealers.clone(),
                round.players.clone(),
            )
            .expect("info");
            let other_round = reshare::Round {
                round: 2,
                info,
                ..round.clone()
            };
            deal_round(&fx, &other_round).0
        };
        assert_eq!(
            fx.verdict(&with(vec![other[1].clone()])).await,
            refused(ReshareError::BadSignature { index: 0, round: 1 })
        );
        // A log whose signature is tampered with.
        let mut forged = logs[1].clone();
        let last = forged.len() - 1;
        forged[last] ^= 1;
        assert!(matches!(
            fx.verdict(&with(vec![forged])).await,
            Some(BlockError::Reshare(
                ReshareError::BadSignature { index: 0, .. } | ReshareError::Decode { index: 0 }
            ))
        ));
        // Too many, too large.
        assert_eq!(
            fx.verdict(&with(vec![vec![0u8; 4]; 17])).await,
            refused(ReshareError::TooMany { got: 17, max: 16 })
        );
        assert_eq!(
            fx.verdict(&with(vec![vec![0u8; 100 * 1024], vec![0u8; 30 * 1024]]))
                .await,
            refused(ReshareError::TooLarge {
                got: 130 * 1024,
                max: 128 * 1024
            })
        );
        // The valid rest: dealers 1 and 2 in block 9.
        fx.advance(vec![logs[1].clone(), logs[2].clone()]).await;
        while fx.tip() < round.last - 1 {
            fx.advance(Vec::new()).await;
        }
        // Not decided before the window's last block.
        assert_eq!(
            fx.read(|bs| reshare::outcome(bs, &fx.params, round.last))
                .expect("state"),
            None
        );
        // Block 12 carries dealer 3's log and decides the round.
        fx.advance(vec![logs[3].clone()]).await;
        assert_eq!(
            fx.read(|bs| reshare::outcome(bs, &fx.params, round.last + 1))
                .expect("state"),
            Some((1, true))
        );
        let (at, output) = fx
            .read(|bs| reshare::current(bs, &fx.params, round.last + 1))
            .expect("state")
            .expect("an output");
        assert_eq!(at, 1);
        assert_eq!(output.players(), &round.players);
        assert_eq!(
            output.public().public(),
            fx.sharing.as_ref().expect("dealt").public(),
            "resharing keeps the group key"
        );
        // Logs after the round is decided are refused.
        let (b13, _) = fx.build(Vec::new()).await;
        let mut late = b13.clone();
        late.dealer_logs = vec![logs[0].clone()];
        late.header.dealings_root = Block::dealings_root(&late.dealer_logs);
        // Round 1 is decided and the set is the sharing's players now: no round runs.
        assert_eq!(
            fx.verdict(&late).await,
            Some(BlockError::Reshare(ReshareError::NoRound { epoch: 1 }))
        );

        // The players finalize over the logs on chain and get shares of the same key; four
        // of the five (t = 4 of 5), the joiner among them, sign a beacon message.
        let onchain = fx
            .read(|bs| {
                let r = reshare::round(bs, &fx.params, E);
                r.map(|r| r.is_none())
            })
            .expect("state");
        assert!(onchain, "the round is over once the sharing moved");
        let recorded = logs.clone();
        let mut new_shares = Vec::new();
        for (pk, player) in players {
            let mut rng = reshare::round_transcript(1, &recorded).noise(reshare::RNG_LABEL);
            let (out, share) = player
                .finalize::<N3f1>(
                    &mut rng,
                    reshare::round_logs(&round, &recorded),
                    &commonware_parallel::Sequential,
                )
                .expect("finalize");
            assert_eq!(&out, &output, "every player computes the chain's output");
            new_shares.push((pk, share));
        }
        let joiner = ed(4).public_key();
        let signers: Vec<_> = new_shares
            .iter()
            .filter(|(pk, _)| *pk != ed(0).public_key())
            .collect();
        assert!(signers.iter().any(|(pk, _)| *pk == joiner));
        let msg = message(CHAIN_ID, 99, &Hash32([5; 32]));
        let partials: Vec<_> = signers
            .iter()
            .map(|(_, s)| threshold::sign_message::<Variant>(s, NAMESPACE, &msg))
            .collect();
        let sig = threshold::recover::<Variant, _>(
            output.public(),
            &partials,
            &commonware_parallel::Sequential,
        )
        .expect("t new partials recover");
        let dealt = fx.sharing.as_ref().expect("dealt");
        assert!(ops::verify_message::<Variant>(dealt.public(), NAMESPACE, &msg, &sig).is_ok());
        // The same signature the genesis shares make: a threshold signature is unique.
        let old: Vec<_> = fx
            .shares
            .values()
            .take(3)
            .map(|s| threshold::sign_message::<Variant>(s, NAMESPACE, &msg))
            .collect();
        let old_sig =
            threshold::recover::<Variant, _>(dealt, &old, &commonware_parallel::Sequential)
                .expect("t old partials recover");
        assert_eq!(old_sig, sig);
    });
}

#[test]
fn too_few_logs_keep_the_old_sharing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut fx = Fixture::new(ctx).await;
        while fx.tip() < E - 1 {
            fx.advance(Vec::new()).await;
        }
        let round = fx
            .read(|bs| reshare::round(bs, &fx.params, E))
            .expect("state")
            .expect("a round");
        let (logs, _) = deal_round(&fx, &round);
        // Two logs of the three needed (max of the dealers' and the old players' quorum).
        fx.advance(vec![logs[0].clone(), logs[1].clone()]).await;
        while fx.tip() < round.last {
            fx.advance(Vec::new()).await;
        }
        assert_eq!(
            fx.read(|bs| reshare::outcome(bs, &fx.params, round.last + 1))
                .expect("state"),
            Some((1, false))
        );
        let (at, output) = fx
            .read(|bs| reshare::current(bs, &fx.params, round.last + 1))
            .expect("state")
            .expect("an output");
        assert_eq!(
            Some((at, &output)),
            fx.genesis.as_ref().map(|g| (0, g)),
            "the old sharing stays"
        );
        // The round still runs (the set differs) but its window is over.
        let (b, _) = fx.build(Vec::new()).await;
        let mut late = b.clone();
        late.dealer_logs = vec![logs[2].clone()];
        late.header.dealings_root = Block::dealings_root(&late.dealer_logs);
        assert_eq!(
            fx.verdict(&late).await,
            Some(BlockError::Reshare(ReshareError::OutOfWindow {
                height: round.last + 1,
                last: round.last
            }))
        );
        // The set still differs, so epoch 2 runs round 2 from the same old sharing.
        while fx.tip() < 2 * E - 1 {
            fx.advance(Vec::new()).await;
        }
        let retry = fx
            .read(|bs| reshare::round(bs, &fx.params, 2 * E))
            .expect("state")
            .expect("a retry");
        assert_eq!(retry.round, 2);
        assert_eq!(retry.dealers, round.dealers);
    });
}

/// Each player's share from the logs recorded for `round`, checked against the chain's output.
fn finish(
    round: &reshare::Round,
    players: Players,
    logs: &[Vec<u8>],
    output: &reshare::Output,
) -> BTreeMap<ed25519::PublicKey, Share> {
    players
        .into_iter()
        .map(|(pk, player)| {
            let mut rng = reshare::round_transcript(round.round, logs).noise(reshare::RNG_LABEL);
            let (out, share) = player
                .finalize::<N3f1>(
                    &mut rng,
                    reshare::round_logs(round, logs),
                    &commonware_parallel::Sequential,
                )
                .expect("finalize");
            assert_eq!(&out, output, "every player computes the chain's output");
            (pk, share)
        })
        .collect()
}

#[test]
fn the_genesis_validators_generate_the_group_on_chain_and_the_beacon_starts_after_it() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut fx = Fixture::generating(ctx).await;
        assert_eq!(fx.schedule(), None, "no group before the generation");
        // Epoch 0 runs round 0 among the five genesis validators, dealing from nothing.
        let round = fx
            .read(|bs| reshare::round(bs, &fx.params, 2))
            .expect("state")
            .expect("the genesis key generation");
        assert_eq!(round.round, 0);
        assert_eq!(round.dealers, round.players);
        assert_eq!(round.players.len(), 5);
        assert_eq!(round.last, E / 2);
        let (logs, players) = deal_round(&fx, &round);
        // Blocks 2 and 3 carry the five logs; the proposer drops garbage.
        let b2 = fx
            .advance(vec![logs[0].clone(), vec![1, 2, 3], logs[1].clone()])
            .await;
        assert_eq!(b2.dealer_logs, vec![logs[0].clone(), logs[1].clone()]);
        fx.advance(logs[2..].to_vec()).await;
        // Until the outcome block no signature is due, and one carried is refused.
        assert_eq!(fx.schedule(), None);
        fx.advance(Vec::new()).await; // block 4 decides
        assert_eq!(
            fx.read(|bs| reshare::outcome(bs, &fx.params, 5))
                .expect("state"),
            Some((0, true))
        );
        let decided = round_decided(&fx.hooks);
        let (at, output) = fx
            .read(|bs| reshare::current(bs, &fx.params, 5))
            .expect("state")
            .expect("the generated sharing");
        assert_eq!(at, 0);
        assert_eq!(output.players(), &round.players);
        let key: [u8; 96] = output
            .public()
            .public()
            .encode()
            .as_ref()
            .try_into()
            .expect("96");
        assert_eq!(
            fx.schedule(),
            Some(beacon::Schedule {
                group_key: key,
                from: E / 2 + 1
            }),
            "the group key, and signatures over the blocks after the outcome block"
        );
        // The outcome block's `end_block` says so in its hook events.
        assert_eq!(decided.get("round"), Some(&Value::Uint(0)));
        assert_eq!(decided.get("generation"), Some(&Value::Bool(true)));
        assert_eq!(decided.get("success"), Some(&Value::Bool(true)));
        assert_eq!(decided.get("group_key"), Some(&Value::Bytes(key.to_vec())));
        fx.shares = finish(&round, players, &logs, &output);
        fx.sharing = Some(output.public().clone());
        // No dealt polynomial: the group secret is the sum of five dealers' secrets, which
        // no one of them knows; any four of the five shares sign for the key.
        // Blocks 5..=7 still run on the parent-hash rule (their targets are below 5).
        for _ in 5..=7 {
            let b = fx.advance(Vec::new()).await;
            assert_eq!(b.beacon, None);
            assert_eq!(
                b.header.randomness,
                cowboy_exec::header::randomness_after(&b.header.parent_hash)
            );
        }
        // Block 8 must carry the group's signature over block 5.
        let (b8, _) = fx.build(Vec::new()).await;
        let sig = b8.beacon.expect("block 8 carries σ_5");
        assert_eq!(b8.header.randomness, beacon::randomness_of(&sig));
        let target = fx.headers[5].hash();
        assert!(beacon::verify_signature(
            &beacon::decode_group_key(&key).expect("a key"),
            CHAIN_ID,
            5,
            &target,
            &sig
        ));
        let mut bare = b8.clone();
        bare.beacon = None;
        assert_eq!(
            fx.verdict(&bare).await,
            Some(BlockError::Beacon(beacon::BeaconError::Missing {
                target: 5
            }))
        );
        fx.advance(Vec::new()).await;
        // Epoch 1's set is the sharing's players: no round runs, the key stays.
        while fx.tip() < E + E / 2 {
            fx.advance(Vec::new()).await;
        }
        assert_eq!(
            fx.read(|bs| reshare::round(bs, &fx.params, E + 1))
                .expect("state")
                .map(|r| r.round),
            None
        );
        assert_eq!(fx.schedule().map(|s| s.group_key), Some(key));
    });
}

#[test]
fn a_failed_genesis_key_generation_is_retried_and_the_chain_keeps_the_parent_hash_rule() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut fx = Fixture::generating(ctx).await;
        let round = fx
            .read(|bs| reshare::round(bs, &fx.params, 2))
            .expect("state")
            .expect("round 0");
        let (logs, _) = deal_round(&fx, &round);
        // Two of the four logs a quorum of five needs.
        fx.advance(logs[..2].to_vec()).await;
        while fx.tip() < round.last {
            fx.advance(Vec::new()).await;
        }
        assert_eq!(
            fx.read(|bs| reshare::outcome(bs, &fx.params, round.last + 1))
                .expect("state"),
            Some((0, false))
        );
        let decided = round_decided(&fx.hooks);
        assert_eq!(decided.get("success"), Some(&Value::Bool(false)));
        assert_eq!(decided.get("group_key"), Some(&Value::Null), "no key");
        assert_eq!(fx.schedule(), None, "no group: no beacon");
        // A signature where none is due is refused.
        let (b, _) = fx.build(Vec::new()).await;
        let mut signed = b.clone();
        signed.beacon = Some([1; 48]);
        assert_eq!(
            fx.verdict(&signed).await,
            Some(BlockError::Beacon(beacon::BeaconError::Unexpected))
        );
        while fx.tip() < E - 1 {
            let b = fx.advance(Vec::new()).await;
            assert_eq!(b.beacon, None);
        }
        // Epoch 1 generates again, from nothing, among its set.
        let retry = fx
            .read(|bs| reshare::round(bs, &fx.params, E))
            .expect("state")
            .expect("a retry");
        assert_eq!(retry.round, 1);
        assert_eq!(retry.dealers, retry.players);
        assert_eq!(retry.last, E + E / 2);
        let (logs, players) = deal_round(&fx, &retry);
        fx.advance(logs.clone()).await;
        while fx.tip() < retry.last {
            fx.advance(Vec::new()).await;
        }
        let (_, output) = fx
            .read(|bs| reshare::current(bs, &fx.params, retry.last + 1))
            .expect("state")
            .expect("generated in epoch 1");
        assert_eq!(fx.schedule().map(|s| s.from), Some(retry.last + 1));
        fx.shares = finish(&retry, players, &logs, &output);
        fx.sharing = Some(output.public().clone());
        while fx.tip() < retry.last + beacon::BEACON_LAG + 1 {
            fx.advance(Vec::new()).await;
        }
        let last = fx.headers.last().expect("tip").clone();
        assert_ne!(
            last.randomness,
            cowboy_exec::header::randomness_after(&last.parent_hash),
            "the first block carrying the beacon takes its randomness from σ"
        );
    });
}

#[test]
fn the_beacon_players_are_the_most_staked_when_the_set_is_larger_than_the_cap() {
    // At most four players among five validators. In ed25519 key order the validators are
    // 2, 3, 1, 0, 4: with equal stakes the joiner (4) ranks last, the players stay the
    // genesis four and no round runs; staking more, it displaces validator 0.
    let order: Vec<_> = {
        let mut k: Vec<_> = (0..5).map(|i| (ed(i).public_key(), i)).collect();
        k.sort();
        k.into_iter().map(|(_, i)| i).collect()
    };
    assert_eq!(order, vec![2, 3, 1, 0, 4], "the premise: the keys' order");
    deterministic::Runner::default().start(|ctx| async move {
        let mut fx = Fixture::dealt(ctx, 200 * CBY, 4).await;
        while fx.tip() < E - 1 {
            fx.advance(Vec::new()).await;
        }
        let round = fx
            .read(|bs| reshare::round(bs, &fx.params, E))
            .expect("state");
        assert!(round.is_none(), "the players did not change: no round");
    });
    deterministic::Runner::default().start(|ctx| async move {
        let mut fx = Fixture::dealt(ctx, 300 * CBY, 4).await;
        while fx.tip() < E - 1 {
            fx.advance(Vec::new()).await;
        }
        let round = fx
            .read(|bs| reshare::round(bs, &fx.params, E))
            .expect("state")
            .expect("a round: the joiner outstakes validator 0");
        let expected = Set::from_iter_dedup([1, 2, 3, 4].map(|i| ed(i).public_key()));
        assert_eq!(round.players, expected);
        assert_eq!(round.dealers.len(), 4);
        // The round runs to its end, and the sharing moves to the four.
        let (logs, players) = deal_round(&fx, &round);
        fx.advance(logs.clone()).await;
        while fx.tip() < round.last {
            fx.advance(Vec::new()).await;
        }
        let (_, output) = fx
            .read(|bs| reshare::current(bs, &fx.params, round.last + 1))
            .expect("state")
            .expect("an output");
        assert_eq!(output.players(), &expected);
        let shares = finish(&round, players, &logs, &output);
        assert_eq!(shares.len(), 4);
    });
}
