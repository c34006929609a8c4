//! Genesis parameters: every protocol default of whitepaper §13 and §17, in one typed struct.
//!
//! ARCHITECTURE rule 3: protocol parameters have one home, here. Each field's name carries its
//! unit (`_bytes`, `_cycles`, `_blocks`, `_bps` for basis points = 1/10,000, `_secs`,
//! `_millicells` for thousandths of a cell, `_wei` for the smallest CBY unit, 10^-18 CBY).
//! Fractions in the spec are stored as integers so no float ever enters consensus
//! (`delta = 0.125` is `basefee_max_change_bps = 1250`).
//!
//! The parameters encode as a canonical CBOR map from field name to integer (an address
//! parameter to its 20 bytes), and their hash
//! (keccak256 of that encoding) is pinned by a golden test: changing any default is a deliberate,
//! visible consensus change. Decoding requires exactly the known field set.

use crate::address::{system::GOVERNANCE, Address};
use crate::cbor::{self, CborError, Value};
use crate::hash::{keccak256, Hash32};
use std::fmt;

/// The maximum transaction size of §12.1, also used by the transaction decoder's default.
pub const DEFAULT_MAX_TX_SIZE_BYTES: u64 = 128 * 1024;

/// 1 CBY in its smallest unit (18 decimals, as Ethereum's ether).
pub const WEI_PER_CBY: u128 = 1_000_000_000_000_000_000;

/// A parameter's type: an integer, or an address (a role the protocol names).
trait Param: Sized + Copy {
    fn to_value(self) -> Value;
    fn from_value(v: &Value) -> Option<Self>;
}

impl Param for u64 {
    fn to_value(self) -> Value {
        Value::Uint(self)
    }
    fn from_value(v: &Value) -> Option<u64> {
        v.as_u64()
    }
}

impl Param for u128 {
    fn to_value(self) -> Value {
        Value::from_u128(self)
    }
    fn from_value(v: &Value) -> Option<u128> {
        v.as_u128()
    }
}

/// The beacon's group public key: a compressed BLS12-381 G2 point (commonware's `MinSig`
/// variant, whose signatures are 48-byte G1 points, the smaller of the two, since every block
/// carries one). Absent (CBOR null) on a chain without a beacon.
pub const BEACON_KEY_BYTES: usize = 96;

impl Param for Option<[u8; BEACON_KEY_BYTES]> {
    fn to_value(self) -> Value {
        match self {
            None => Value::Null,
            Some(k) => Value::Bytes(k.to_vec()),
        }
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Null => Some(None),
            Value::Bytes(b) => Some(Some(<[u8; BEACON_KEY_BYTES]>::try_from(b.as_slice()).ok()?)),
            _ => None,
        }
    }
}

impl Param for Address {
    fn to_value(self) -> Value {
        Value::Bytes(self.0.to_vec())
    }
    fn from_value(v: &Value) -> Option<Address> {
        match v {
            Value::Bytes(b) => Some(Address(<[u8; 20]>::try_from(b.as_slice()).ok()?)),
            _ => None,
        }
    }
}

/// Why bytes are not a genesis parameter set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenesisError {
    /// Not canonical CBOR.
    Cbor(CborError),
    /// Not a map of text keys.
    NotAMap,
    /// A key that is not a known parameter.
    UnknownField(String),
    /// A known parameter that is absent.
    MissingField(&'static str),
    /// A parameter whose value is not an integer of its type.
    BadValue(&'static str),
}

impl fmt::Display for GenesisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenesisError::Cbor(e) => write!(f, "genesis parameters: {e}"),
            GenesisError::NotAMap => f.write_str("genesis parameters must be a map"),
            GenesisError::UnknownField(k) => write!(f, "unknown genesis parameter {k:?}"),
            GenesisError::MissingField(k) => write!(f, "missing genesis parameter {k}"),
            GenesisError::BadValue(k) => write!(f, "genesis parameter {k} has a bad value"),
        }
    }
}

impl std::error::Error for GenesisError {}

macro_rules! genesis_params {
    ($( $(#[doc = $doc:literal])+ $name:ident : $ty:ty = $default:expr, )+) => {
        /// Protocol parameters fixed at genesis (governance-tunable later, §11).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct GenesisParams {
            $( $(#[doc = $doc])+ pub $name: $ty, )+
        }

        impl Default for GenesisParams {
            fn default() -> Self {
                GenesisParams { $( $name: $default, )+ }
            }
        }

        impl GenesisParams {
            /// Every parameter name, in declaration order.
            pub const FIELDS: &'static [&'static str] = &[$( stringify!($name), )+];

            /// The parameters as a CBOR map (canonically sorted when encoded).
            pub fn to_value(&self) -> Value {
                Value::Map(vec![$(
                    (Value::Text(stringify!($name).to_string()), Param::to_value(self.$name)),
                )+])
            }

            /// Reads parameters from a CBOR map holding exactly the known fields.
            pub fn from_value(v: &Value) -> Result<GenesisParams, GenesisError> {
                let Value::Map(entries) = v else { return Err(GenesisError::NotAMap) };
                for (k, _) in entries {
                    match k {
                        Value::Text(name) if Self::FIELDS.contains(&name.as_str()) => {}
                        Value::Text(name) => return Err(GenesisError::UnknownField(name.clone())),
                        _ => return Err(GenesisError::NotAMap),
                    }
                }
                let get = |name: &'static str| {
                    entries
                        .iter()
                        .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
                        .map(|(_, v)| v)
                        .ok_or(GenesisError::MissingField(name))
                };
                Ok(GenesisParams { $(
                    $name: <$ty as Param>::from_value(get(stringify!($name))?)
                        .ok_or(GenesisError::BadValue(stringify!($name)))?,
                )+ })
            }
        }
    };
}

genesis_params! {
    // ---- Execution limits (§3.2, §3.3, §12.1, §13) ----
    /// Heap memory per handler invocation (§3.2): 10 MiB.
    memory_per_call_bytes: u64 = 10 * 1024 * 1024,
    /// Persistent storage quota per actor (§3.2): 1 MiB.
    storage_quota_per_actor_bytes: u64 = 1024 * 1024,
    /// Maximum quota an actor may reach by posting a storage bond (§3.2): 8 MiB.
    storage_bond_max_bytes: u64 = 8 * 1024 * 1024,
    /// Recursion/await and message depth cap (§3.3, §12.1 `max_message_depth_per_tx`).
    reentrancy_depth: u64 = 32,
    /// Messages one transaction may enqueue, nested sends included (§3.3).
    fanout_per_tx: u64 = 1024,
    /// Mailbox capacity per actor (§3.3, §13).
    mailbox_capacity_bytes: u64 = 1_000_000,
    /// Blocks a message-id dedup entry is kept after finality (§3.3, §13).
    dedup_window_blocks: u64 = 10_000,
    /// Maximum encoded transaction size (§12.1).
    max_tx_size_bytes: u64 = DEFAULT_MAX_TX_SIZE_BYTES,
    /// Cycles one actor may consume per block (§12.1; "burstable" is not modelled yet).
    per_actor_per_block_cycles: u64 = 1_000_000,
    /// Per-invocation /tmp scratch space (§3.1): 256 KiB, charged as cells.
    tmp_scratch_bytes: u64 = 256 * 1024,
    /// Maximum handler return data (§4.1 "≤ 64 KiB"), charged as cells.
    max_return_data_bytes: u64 = 64 * 1024,
    /// Maximum inline blob size (§4.1, §7.1).
    max_inline_blob_bytes: u64 = 64 * 1024,

    // ---- Fee markets (§4.2, §4.3, §17.8) ----
    /// Cycles target per block T_c.
    block_cycles_target: u64 = 10_000_000,
    /// Cycles hard cap per block (elasticity 2 × T_c).
    block_cycles_cap: u64 = 20_000_000,
    /// Cells target per block T_b, in bytes.
    block_cells_target: u64 = 500_000,
    /// Cells hard cap per block.
    block_cells_cap: u64 = 1_000_000,
    /// Basefee smoothing α (blocks).
    basefee_alpha: u64 = 8,
    /// Basefee maximum change per block δ = 0.125, in basis points.
    basefee_max_change_bps: u64 = 1250,
    /// Basefee floor (`max(1, …)` of §4.2), in wei per unit.
    basefee_min_wei: u128 = 1,
    /// Cycle basefee of the genesis block, in wei per cycle (not in the spec; chosen: 1 gwei).
    initial_cycle_basefee_wei: u128 = 1_000_000_000,
    /// Cell basefee of the genesis block, in wei per cell (not in the spec; chosen: 1 gwei).
    initial_cell_basefee_wei: u128 = 1_000_000_000,
    /// Share of basefees burned (§4.2: 100%).
    basefee_burn_bps: u64 = 10_000,

    // ---- Intrinsic costs (§17.2) ----
    /// Base cycles of an EOA transfer.
    transfer_base_cycles: u64 = 10_000,
    /// Base cycles of a deploy.
    deploy_base_cycles: u64 = 50_000,
    /// Fixed cells of a deploy (§17.2 "100/byte + code_size": read as 100 + 1 per code byte).
    deploy_base_cells: u64 = 100,
    /// Cells per byte of deployed (canonical) code.
    deploy_cells_per_code_byte: u64 = 1,
    /// Base cycles of an actor message (call).
    actor_message_base_cycles: u64 = 10_000,
    /// Base cycles of an LLM request.
    llm_request_base_cycles: u64 = 10_000,
    /// Base cycles of a timer schedule.
    timer_schedule_base_cycles: u64 = 10_000,
    /// Base cells of a timer schedule.
    timer_schedule_base_cells: u64 = 64,
    /// Cells per byte of transaction data (§17.4 calldata).
    calldata_cells_per_byte: u64 = 1,

    // ---- Host-call costs (§17.3; authoritative over §3.5's informative table) ----
    /// `send_message()`.
    send_message_cycles: u64 = 500,
    /// `storage_read()`.
    storage_read_cycles: u64 = 10,
    /// `storage_write()` (plus cells per byte written).
    storage_write_cycles: u64 = 200,
    /// `hash()` base.
    hash_base_cycles: u64 = 100,
    /// `hash()` per byte hashed.
    hash_cycles_per_byte: u64 = 1,
    /// `verify_signature()`.
    verify_signature_cycles: u64 = 10_000,
    /// `get_block_info()`.
    block_info_cycles: u64 = 100,
    /// `emit_event()` base.
    emit_event_cycles: u64 = 500,
    /// `emit_event()` per byte of event data.
    emit_event_cycles_per_byte: u64 = 5,
    /// `set_timer()` (plus payload cells).
    set_timer_cycles: u64 = 1_000,
    /// `cancel_timer()`.
    cancel_timer_cycles: u64 = 500,

    // ---- Cells (§17.4) ----
    /// State write: 1 cell per byte.
    state_write_cells_per_byte: u64 = 1,
    /// State read: 0.01 cells per byte = 10 millicells.
    state_read_millicells_per_byte: u64 = 10,
    /// Event emission: 0.5 cells per byte = 500 millicells.
    event_millicells_per_byte: u64 = 500,

    // ---- Execution lanes (§6.3, §17.9), shares of the block cycle target ----
    /// System lane share.
    system_lane_bps: u64 = 500,
    /// Timer lane share.
    timer_lane_bps: u64 = 2_000,
    /// Runner lane share.
    runner_lane_bps: u64 = 2_500,
    /// User lane share.
    user_lane_bps: u64 = 5_000,

    // ---- Timers (whitepaper "Native Timers"; CIP-1; exec `timers/`) ----
    /// Progressive deposit step: deposit(n) = base × (1 + floor(n / step)).
    timer_deposit_step_count: u64 = 100,
    /// Timers per block before the exponential surcharge 2^(k − free) applies.
    timer_surcharge_free_per_block: u64 = 16,
    /// The refundable deposit of an actor's first timers (not in the spec; chosen: 0.001 CBY).
    timer_base_deposit_wei: u128 = WEI_PER_CBY / 1_000,
    /// Pending timers one actor may own (per-actor cap; not in the spec; chosen).
    timer_max_per_actor: u64 = 1_024,
    /// Tier 1: heights the block ring covers (even; an epoch bucket is half of it).
    timer_ring_blocks: u64 = 256,
    /// Tier 2: epoch buckets ahead of the ring; beyond them, tier 3 (overflow).
    timer_epoch_buckets: u64 = 64,
    /// Due timers whose agents are asked for a bid per block (the auction's width).
    timer_bid_window: u64 = 256,
    /// Cycle cap of one Gas Bidding Agent call (read-only, paid by the timer's owner).
    timer_gba_cycles: u64 = 50_000,
    /// Cycles limit of the network default agent's bid.
    timer_default_cycles_limit: u64 = 100_000,
    /// Cells limit of the network default agent's bid.
    timer_default_cells_limit: u64 = 4_096,
    /// Pending timers above which the timer basefee (the cycle price of `set_timer`) rises.
    timer_queue_target: u64 = 100_000,
    /// Anti-starvation boost per deferral, in basis points of the cycle basefee.
    timer_starvation_boost_bps: u64 = 500,
    /// Consecutive blocks a timer whose owner cannot pay is deferred before it is dropped.
    timer_unpaid_deferrals_max: u64 = 16,

    // ---- Consensus (§6.1, §13) ----
    /// Blocks per epoch.
    epoch_blocks: u64 = 3_600,
    /// Target block time.
    block_time_ms: u64 = 1_000,
    /// Validator unbonding period: 7 days.
    unbonding_period_secs: u64 = 7 * 24 * 3600,
    /// Jail period: 24 h.
    jail_period_secs: u64 = 24 * 3600,
    /// Double-sign slash: 1%.
    double_sign_slash_bps: u64 = 100,
    /// The least self-bond a validator registers with and keeps to stay in the active set
    /// (§6.1 "governance-tunable"; the value is ours): 100,000 CBY. At this price the open set
    /// holds at most `total_supply_wei / 100,000 CBY` = 10,000 validators, which bounds the
    /// epoch boundary's pass over them, and a devnet account (1,000,000 CBY) can still stake.
    minimum_validator_stake_wei: u128 = 100_000 * WEI_PER_CBY,
    /// Base cycles of the staking actor's `register` and `rotate_keys`: the BLS12-381
    /// proof-of-possession check (two pairings, ~1 ms, priced at the ed25519
    /// `verify_signature_cycles` rate of ~250 cycles/µs; chosen).
    validator_register_cycles: u64 = 300_000,
    /// Base cycles of every other staking handler; storage is charged on top (chosen).
    validator_call_cycles: u64 = 1_000,
    /// Blocks over which missed consensus votes are counted (whitepaper "Slashing": 1,000).
    downtime_window_blocks: u64 = 1_000,
    /// Share of a window's votes a validator may miss before it is jailed (">50%").
    downtime_max_missed_bps: u64 = 5_000,

    // ---- Inflation (§8.2): gross yearly mint, as a share of the genesis supply ----
    /// Year 1: 8%.
    inflation_year1_bps: u64 = 800,
    /// Year 2: 6%.
    inflation_year2_bps: u64 = 600,
    /// Year 3: 4%.
    inflation_year3_bps: u64 = 400,
    /// Year 4: 3%.
    inflation_year4_bps: u64 = 300,
    /// Year 5 on: the 2% floor.
    inflation_floor_bps: u64 = 200,

    // ---- Off-chain compute (§5, §13; CIP-2) ----
    /// Runner committee size M.
    runner_committee_size: u64 = 5,
    /// Committee threshold N.
    runner_committee_threshold: u64 = 3,
    /// Challenge window: 15 min.
    challenge_window_secs: u64 = 15 * 60,
    /// Challenge bond: 100 CBY.
    challenge_bond_wei: u128 = 100 * WEI_PER_CBY,
    /// Runner stake floor: 10,000 CBY.
    runner_stake_floor_wei: u128 = 10_000 * WEI_PER_CBY,
    /// Minimum self-bond share of a runner's stake: 10%.
    min_self_bond_bps: u64 = 1_000,
    /// Runner unbonding: 7,200 blocks (~24 h).
    runner_unbonding_blocks: u64 = 7_200,
    /// Maximum delegators per runner.
    max_delegators_per_runner: u64 = 200,
    /// Maximum active tranches per delegator.
    max_active_tranches_per_delegator: u64 = 8,
    /// Blocks after its last heartbeat a runner counts as healthy (CIP-2 §4 names it; the
    /// value is ours).
    runner_heartbeat_timeout_blocks: u64 = 100,
    /// Reputation of a new runner (not in the spec; chosen).
    runner_initial_reputation: u64 = 70,
    /// Reputation ceiling (not in the spec; chosen: reputation is 0..=100).
    runner_max_reputation: u64 = 100,
    /// Reputation a runner needs to be a candidate (CIP-2 §4 filter 2).
    runner_min_reputation: u64 = 50,
    /// Reputation lost by a runner that misses its commit deadline (CIP-2 §6 TIMEOUT_PENALTY).
    runner_timeout_penalty: u64 = 5,
    /// Reputation gained by a runner whose result is accepted (not in the spec; chosen).
    runner_success_reward: u64 = 1,
    /// CIP-2 §6 SLASH_THRESHOLD: reputation lost by a persistent non-responder, and the
    /// consecutive such failures after which its stake is slashed (value chosen).
    runner_slash_threshold: u64 = 10,
    /// Stake slashed (and burned) at that threshold (not in the spec; chosen: 1%).
    runner_nonresponse_slash_bps: u64 = 100,
    /// Smallest delegation (not in the spec; chosen: dust would fill the delegator slots).
    runner_min_delegation_wei: u128 = 100 * WEI_PER_CBY,
    /// Runners that may be candidates at once (bounds the dispatcher's scan; chosen).
    runner_max_active: u64 = 4_096,
    /// Largest `max_concurrent_jobs` a runner may declare (chosen).
    runner_max_concurrent_jobs: u64 = 1_024,
    /// Models one runner may declare (chosen).
    runner_max_models: u64 = 32,
    /// HTTP domains one runner may declare (chosen).
    runner_max_domains: u64 = 64,
    /// Rate-card entries one runner may declare (chosen).
    runner_max_rates: u64 = 64,
    /// Most runners one `runners()` page returns (chosen).
    runner_page_max: u64 = 100,
    /// Base cycles of `register` and `update` (key check and a bounded profile; chosen).
    runner_register_cycles: u64 = 20_000,
    /// Base cycles of every other runner-registry handler; storage is charged on top (chosen).
    runner_call_cycles: u64 = 1_000,
    /// Refundable deposit to publish a model (whitepaper §5.1): 1,000 CBY.
    model_deposit_wei: u128 = 1_000 * WEI_PER_CBY,
    /// Largest encoded model metadata (chosen).
    model_metadata_max_bytes: u64 = 1_024,
    /// Largest `timeout_blocks` a job may ask for (chosen: ~10 minutes at 1 s blocks).
    job_max_timeout_blocks: u64 = 600,
    /// Re-selections after a commit deadline passes without enough commits (CIP-2 §6
    /// MAX_RETRIES).
    runner_max_retries: u64 = 3,
    /// Cycles per candidate the dispatcher's scan of the active runners costs, charged for
    /// the whole list before the scan (CIP-2 §7.4's per-candidate check).
    candidate_scan_cycles: u64 = 500,
    /// Base cycles of `submit_job`: a bounded spec's checks and the seed (chosen).
    job_submit_cycles: u64 = 5_000,
    /// Largest committee M a job may ask for (chosen).
    job_max_runners: u64 = 16,
    /// Largest `result_schema.max_return_bytes` (whitepaper: outputs up to 64 KiB inline).
    job_result_max_bytes: u64 = 64 * 1024,
    /// Largest encoded job spec the dispatcher stores (chosen).
    job_spec_max_bytes: u64 = 16 * 1024,
    /// Cycles limit of a system actor's own timer run (the dispatcher's deadlines; chosen: one
    /// actor's per-block allowance).
    system_timer_cycles_limit: u64 = 1_000_000,
    /// Cells limit of a system actor's own timer run (chosen).
    system_timer_cells_limit: u64 = 65_536,
    /// Blocks the designated aggregator has to reveal a committed job's results before any
    /// committed runner may reveal its own, and again the length of that self-aggregation
    /// window before the job is finalized with what was revealed (CIP-2 names it; value
    /// chosen).
    aggregator_timeout_blocks: u64 = 20,
    /// The aggregator's bonus, of `max_price` and out of what the runners did not earn
    /// (chosen: 2%).
    aggregator_bonus_bps: u64 = 200,
    /// Cycles limit of a job's continuation run (the callback actor's handler receiving the
    /// verified result), prepaid by the submitter at submission (chosen).
    job_callback_cycles: u64 = 200_000,
    /// Cells limit of a job's continuation run, prepaid likewise (chosen).
    job_callback_cells: u64 = 8_192,
    /// What each runner reporting an actor fault (malformed input) is paid when that outcome
    /// decides a job, before the cap `max_price / M` (whitepaper outcome table: "minimum fee
    /// (gas cost recovery)"; the value is chosen: 10^14 wei, about three times a member's
    /// commit plus its share of a five-runner aggregate at the genesis basefees).
    job_min_fee_wei: u128 = 100_000_000_000_000,
    /// Base cycles of granting an entitlement (CIP-2 §7.4 `EntitlementGrant`).
    entitlement_grant_cycles: u64 = 5_000,
    /// Base cells of granting an entitlement (CIP-2 §7.4; deters spam, §7.5).
    entitlement_grant_cells: u64 = 500,
    /// Base cycles of revoking one (CIP-2 §7.4 `EntitlementRevoke`).
    entitlement_revoke_cycles: u64 = 2_000,
    /// Base cells of revoking one (CIP-2 §7.4).
    entitlement_revoke_cells: u64 = 100,
    /// Base cycles of delegating one (CIP-2 §7.4 `EntitlementDelegate`).
    entitlement_delegate_cycles: u64 = 3_000,
    /// Base cells of delegating one (CIP-2 §7.4).
    entitlement_delegate_cells: u64 = 300,
    /// Base cycles of creating a role (CIP-2 §7.4 `EntitlementCreateRole`).
    entitlement_create_role_cycles: u64 = 5_000,
    /// Base cells of creating a role (CIP-2 §7.4).
    entitlement_create_role_cells: u64 = 500,
    /// Base cycles of assigning or revoking a role (CIP-2 §7.4).
    entitlement_assign_role_cycles: u64 = 2_000,
    /// Base cells of assigning or revoking a role (CIP-2 §7.4).
    entitlement_assign_role_cells: u64 = 100,
    /// Live entitlements one address may hold (CIP-2 §7.5).
    entitlement_max_per_address: u64 = 256,
    /// Roles one address may be assigned (CIP-2 §7.5).
    entitlement_max_roles_per_address: u64 = 64,
    /// Longest delegation chain, the cap on `delegation_depth_max` (CIP-2 §7.5).
    entitlement_max_delegation_depth: u64 = 5,
    /// (scope, action) pairs one role may grant (chosen: bounds a role check).
    entitlement_role_max_pairs: u64 = 16,
    /// Share of a runner's stake slashed by a proven challenge (chosen: 10%).
    challenge_slash_bps: u64 = 1_000,
    /// Who curates HTTP domain sets and grants HTTP access to their domains (the authority of
    /// the entitlement scope `Namespace("http")`; whitepaper "curated domain sets"). Chosen:
    /// governance; a chain names its curator here.
    http_domain_curator: Address = GOVERNANCE,

    // ---- State rent (§4.4, §13, §17.5) ----
    /// Accounts up to this size pay no rent (§17.5 "≤10 KB", read as 10,240 bytes).
    rent_free_account_bytes: u64 = 10 * 1024,
    /// Grace period before warnings.
    rent_grace_period_epochs: u64 = 7,
    /// Warning period.
    rent_warning_period_epochs: u64 = 3,
    /// Rent epochs of debt after which eviction is eligible (§4.4).
    rent_eviction_after_epochs: u64 = 10,
    /// Catch-up fee on repaid rent debt: 10%.
    rent_catch_up_fee_bps: u64 = 1_000,
    /// Reserve multiplier: 0.1.
    rent_reserve_multiplier_bps: u64 = 1_000,

    // ---- Economics (§8, §13, §17.7) ----
    /// Total supply at genesis: 1,000,000,000 CBY.
    total_supply_wei: u128 = 1_000_000_000 * WEI_PER_CBY,
    /// Company reserve share at genesis: 66.67%.
    company_reserve_bps: u64 = 6_667,
    /// Share of runner fees burned.
    runner_fee_burn_bps: u64 = 1_000,
    /// Share of job fees to the treasury.
    job_fee_treasury_bps: u64 = 100,
    /// Share of job fees paid to runners.
    runner_payout_bps: u64 = 8_900,

    // ---- Development chains (ours; not in the spec) ----
    /// 1 on a development chain (only `cowboyd --dev`'s genesis sets it): exec then accepts
    /// the dev authorizations of `crate::tx` (impersonated and set-balance transactions);
    /// 0 (every real network) refuses them, as does any other value.
    dev_chain: u64 = 0,

    // ---- Randomness beacon (issue 17 item 3; CIP-2 §10 phase L3; exec `beacon`) ----
    /// The threshold beacon's group public key ([`BEACON_KEY_BYTES`]; the encoding is
    /// checked where it is used, by exec and when the node loads a genesis). Set: every block
    /// above exec's `BEACON_LAG` carries the group's signature over an earlier finalized block
    /// and its randomness is that signature's hash. Absent (the default; a chain whose genesis
    /// names no group): randomness stays the parent hash (phase L1). The node's genesis sets it
    /// from the group it deals (`cowboyd --dev`, `cowboyd devnet`).
    beacon_group_key: Option<[u8; BEACON_KEY_BYTES]> = None,
    /// 1: the genesis validators generate the beacon's group on chain, a distributed key
    /// generation in epoch 0's first half (exec `reshare`, retried each epoch until one
    /// succeeds), so nobody ever holds the group secret; blocks carry beacon signatures from
    /// the one after its outcome block on. Then `beacon_group_key` must be absent. 0 (the
    /// default): the group is `beacon_group_key`'s, dealt before genesis, or there is none.
    beacon_dkg: u64 = 0,
    /// The most validators that hold beacon shares (chosen; exec `reshare`): an epoch's
    /// players are its set's members with the most stake, at most this many. A round's cost
    /// grows as the square of its players (each dealer's log carries every player's
    /// acknowledgement, `observe` checks them all in one block's `end_block`), so a set too
    /// large would make a round that cannot finish: at 128, a dealer's log is ~21 KB and the
    /// round's check at most 16,384 signatures. Capping by stake also keeps a flood of
    /// minimum-stake validators out of the beacon. At least 1.
    beacon_players_max: u64 = 128,
}

impl GenesisParams {
    /// Canonical CBOR encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }

    /// Strict decoding of [`GenesisParams::encode`]'s output.
    pub fn decode(bytes: &[u8]) -> Result<GenesisParams, GenesisError> {
        GenesisParams::from_value(&cbor::decode(bytes).map_err(GenesisError::Cbor)?)
    }

    /// keccak256 of the canonical encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }

    /// The largest encoded block the parameters allow, derived rather than chosen: every
    /// transaction pays at least one cell per byte of its encoding (`calldata_cells_per_byte`,
    /// §17.4) and the block's cells are capped, so its transactions' bytes are at most
    /// `block_cells_cap`; every transaction pays at least `min_tx_cycles` and the block's
    /// cycles are capped, which bounds how many there are and so their CBOR framing (at most
    /// 9 bytes each: the array item header); the header is a fixed-shape array of at most
    /// [`MAX_HEADER_BYTES`]; the vote record holds at most one vote per validator
    /// ([`Self::max_validators`]). The p2p message limit and the block store's record limit
    /// must be at least this (checked by the node and by tests).
    pub fn max_block_bytes(&self) -> u64 {
        let per_byte = self.calldata_cells_per_byte.max(1);
        let tx_bytes = self.block_cells_cap / per_byte;
        let max_txs = self.max_txs_per_block();
        // [header, [tx…], record]: three array heads of at most 9 bytes each, then the items;
        // the record is four heads and three integers of at most 9 bytes each, then the votes.
        let record = 36 + 27 + self.max_validators() * crate::block::MAX_VOTE_BYTES;
        // The fourth item: a beacon signature with its 2-byte head, and the array's head.
        let beacon = 9 + 2 + crate::block::BEACON_SIGNATURE_BYTES as u64;
        // The fifth: at most `MAX_DEALER_LOGS` dealer logs of `MAX_DEALER_LOG_BYTES` in all,
        // each with a head of at most 9 bytes, and the item's own head.
        let logs = 9 + crate::block::MAX_DEALER_LOGS * 9 + crate::block::MAX_DEALER_LOG_BYTES;
        MAX_HEADER_BYTES + 27 + max_txs.saturating_mul(9) + tx_bytes + record + beacon + logs
    }

    /// The most validators an epoch's set can hold: each holds at least
    /// `minimum_validator_stake_wei` of the genesis supply (10,000 with the defaults). The
    /// supply inflation adds is not counted: a set that outgrows this bound makes blocks whose
    /// full vote record exceeds [`Self::max_block_bytes`] (the crate README's "does not").
    pub fn max_validators(&self) -> u64 {
        let per = self.minimum_validator_stake_wei.max(1);
        u64::try_from(self.total_supply_wei / per).unwrap_or(u64::MAX)
    }

    /// The most transactions a block can hold: each costs at least the smallest intrinsic
    /// cycle cost of any transaction kind (§17.2) and the block's cycles are capped.
    pub fn max_txs_per_block(&self) -> u64 {
        let min_tx_cycles = self
            .transfer_base_cycles
            .min(self.deploy_base_cycles)
            .min(self.actor_message_base_cycles)
            .max(1);
        self.block_cycles_cap / min_tx_cycles
    }

    /// A span of wall-clock seconds as whole blocks at the target `block_time_ms`, rounded
    /// up (so a period is never shortened), at least one. The validator periods are written in
    /// seconds in §13 and enforced in blocks, which every validator counts alike.
    pub fn blocks_for_secs(&self, secs: u64) -> u64 {
        let ms = u128::from(secs) * 1000;
        let per = u128::from(self.block_time_ms.max(1));
        u64::try_from(ms.div_ceil(per)).unwrap_or(u64::MAX).max(1)
    }

    /// `unbonding_period_secs` in blocks.
    pub fn unbonding_blocks(&self) -> u64 {
        self.blocks_for_secs(self.unbonding_period_secs)
    }

    /// `jail_period_secs` in blocks.
    pub fn jail_blocks(&self) -> u64 {
        self.blocks_for_secs(self.jail_period_secs)
    }

    /// Blocks in an inflation year: 365 days of target block times.
    pub fn blocks_per_year(&self) -> u64 {
        self.blocks_for_secs(365 * 24 * 3600)
    }

    /// The gross inflation rate (§8.2) of year `year` (0-based), in basis points.
    pub fn inflation_bps(&self, year: u64) -> u64 {
        match year {
            0 => self.inflation_year1_bps,
            1 => self.inflation_year2_bps,
            2 => self.inflation_year3_bps,
            3 => self.inflation_year4_bps,
            _ => self.inflation_floor_bps,
        }
    }

    /// Whether this is a development chain (`dev_chain = 1`), where exec accepts dev
    /// authorizations. Only exactly 1 counts, so a mistyped value never opens a real chain.
    pub fn is_dev_chain(&self) -> bool {
        self.dev_chain == 1
    }

    /// Whether the beacon's group is generated on chain (`beacon_dkg = 1` and no dealt
    /// group key; only exactly 1 counts).
    pub fn beacon_by_dkg(&self) -> bool {
        self.beacon_dkg == 1 && self.beacon_group_key.is_none()
    }

    /// Whether the chain has a beacon: a group dealt before genesis or generated on chain.
    pub fn has_beacon(&self) -> bool {
        self.beacon_group_key.is_some() || self.beacon_by_dkg()
    }

    /// The size limits a block decoder applies for these parameters.
    pub fn block_limits(&self) -> crate::block::BlockLimits {
        crate::block::BlockLimits {
            max_block_bytes: usize::try_from(self.max_block_bytes()).unwrap_or(usize::MAX),
            max_tx_bytes: usize::try_from(self.max_tx_size_bytes).unwrap_or(usize::MAX),
        }
    }
}

/// An upper bound on an encoded block header: a 13-item array of five 32-byte hashes, a
/// 20-byte address, a 32-byte randomness and integers of at most 17 bytes each (u128 with its
/// CBOR head), rounded up.
pub const MAX_HEADER_BYTES: u64 = 512;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_strictness() {
        let p = GenesisParams::default();
        assert_eq!(GenesisParams::decode(&p.encode()), Ok(p.clone()));
        let Value::Map(mut entries) = p.to_value() else {
            unreachable!("to_value builds a map")
        };
        entries.push((Value::Text("bogus".into()), Value::Uint(1)));
        assert_eq!(
            GenesisParams::from_value(&Value::Map(entries.clone())),
            Err(GenesisError::UnknownField("bogus".into()))
        );
        entries
            .retain(|(k, _)| !matches!(k, Value::Text(t) if t == "bogus" || t == "epoch_blocks"));
        assert_eq!(
            GenesisParams::from_value(&Value::Map(entries)),
            Err(GenesisError::MissingField("epoch_blocks"))
        );
    }

    #[test]
    fn lanes_sum_to_whole_block_and_payout_splits_sum() {
        let p = GenesisParams::default();
        assert_eq!(
            p.system_lane_bps + p.timer_lane_bps + p.runner_lane_bps + p.user_lane_bps,
            10_000
        );
        assert_eq!(
            p.runner_payout_bps + p.runner_fee_burn_bps + p.job_fee_treasury_bps,
            10_000
        );
        assert_eq!(p.block_cycles_cap, 2 * p.block_cycles_target);
        assert_eq!(p.block_cells_cap, 2 * p.block_cells_target);
    }
}
