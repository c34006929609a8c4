//! Native timers end to end over real state (exec `timers`): firing, intervals, cancel, the
//! three tiers, clear errors, the Gas Bidding Agent auction and its hostile agents, and each of
//! the whitepaper's six DoS guards performed as an attack.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::block::BlockOutcome;
use cowboy_types::cbor::{self, Value};
use cowboy_types::system::SCHEDULER;
use cowboy_types::{Address, Receipt, TimerExecution};

const CLOCK: &str = r#"
from cowboy_sdk import actor, set_timer, set_interval, cancel_timer, sender, block_info, SCHEDULER

@actor
class Clock:
    def __init__(self):
        self.storage["fired"] = []

    def at(self, height, data, gba=None):
        return set_timer(height, self.tick, data, gba=gba)

    def many(self, height, n, gba=None, work=0):
        if work:
            return [set_timer(height, self.burn, work, gba=gba) for i in range(n)]
        return [set_timer(height, "tick", i, gba=gba) for i in range(n)]

    def burn(self, n):
        x = 0
        for i in range(n):
            x += i
        self.storage["fired"].append([block_info().height, 1000 + n])

    def every(self, n, data):
        return set_interval(n, "tick", data)

    def cancel(self, tid):
        return cancel_timer(tid)

    def once_then_chain(self, n):
        self.storage["me"] = set_interval(n, "stop_and_chain", n)

    def stop_and_chain(self, n):
        # An interval's handler cancels itself and schedules a follow-up one-shot.
        self.storage["fired"].append([block_info().height, n])
        cancel_timer(self.storage["me"])
        set_timer(block_info().height + 2, "tick", 99)

    def tick(self, data):
        if sender() != SCHEDULER:
            raise PermissionError("only the scheduler")
        self.storage["fired"].append([block_info().height, data])

    def bad(self, case):
        h = block_info().height
        if case == "past":
            set_timer(h - 1, "tick", 0)
        elif case == "now":
            set_timer(h, "tick", 0)
        elif case == "private":
            set_timer(h + 5, "_hidden", 0)
        elif case == "missing":
            set_timer(h + 5, "nope", 0)
        elif case == "data":
            set_timer(h + 5, "tick", object())
        elif case == "gba":
            set_timer(h + 5, "tick", 0, gba="0x" + "11" * 20)

    def _hidden(self, data):
        pass
"#;

/// An agent whose behaviour is chosen by its init argument.
const AGENT: &str = r#"
from cowboy_sdk import actor

@actor
class Agent:
    def __init__(self, mode, tip=0):
        self.mode = mode
        self.tip = tip

    def get_gas_bid(self, ctx):
        if self.mode == "loop":
            while True:
                pass
        if self.mode == "raise":
            raise ValueError("no bid today")
        if self.mode == "garbage":
            return "lots"
        if self.mode == "rich":
            return {"cycles_limit": 1_000_000, "max_fee_per_cycle": 10**30}
        if self.mode == "wait":
            return {"max_fee_per_cycle": ctx["basefee_cycle"] - 1}
        return {"max_fee_per_cycle": 2 * ctx["basefee_cycle"] + self.tip,
                "tip_per_cycle": self.tip, "max_fee_per_cell": 2 * ctx["basefee_cell"]}
"#;

/// 10 CBY: enough for many deposits and fees.
const ACTOR_FUNDS: u128 = 10 * 10u128.pow(18);

fn int(i: u64) -> Value {
    Value::Uint(i)
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn addr(a: &Address) -> Value {
    Value::Text(a.to_checksum())
}

struct Bench {
    chain: Chain,
    nonce: u64,
    /// Every timer execution seen, with the block it ran in.
    fired: Vec<(u64, TimerExecution)>,
}

impl Bench {
    async fn new(
        ctx: deterministic::Context,
        tune: impl FnOnce(&mut cowboy_types::GenesisParams),
    ) -> Bench {
        let mut chain = Chain::new(ctx, 2).await;
        tune(&mut chain.params);
        Bench {
            chain,
            nonce: 0,
            fired: Vec::new(),
        }
    }

    fn note(&mut self, out: &BlockOutcome) {
        let h = self.chain.height;
        self.fired
            .extend(out.timers.iter().cloned().map(|t| (h, t)));
    }

    async fn deploy(&mut self, source: &str, salt: u8, args: Vec<Value>, value: u128) -> Address {
        let tx = signed(
            &key(0),
            self.nonce,
            None,
            value,
            deploy(source, salt, Value::Array(args)),
        );
        self.nonce += 1;
        let out = self.chain.block(&[tx]).await.expect("valid block");
        self.note(&out);
        let r = &out.receipts[0];
        assert!(r.success, "deploy failed: {:?}", r.error);
        match cbor::decode(&r.return_data).expect("cbor") {
            Value::Bytes(b) => Address(b.try_into().expect("20 bytes")),
            other => panic!("{other:?}"),
        }
    }

    fn call_tx(
        &mut self,
        to: Address,
        handler: &str,
        args: Vec<Value>,
    ) -> cowboy_types::Transaction {
        let tx = signed(&key(0), self.nonce, Some(to), 0, call(handler, args));
        self.nonce += 1;
        tx
    }

    async fn call(&mut self, to: Address, handler: &str, args: Vec<Value>) -> Receipt {
        let tx = self.call_tx(to, handler, args);
        let mut out = self.chain.block(&[tx]).await.expect("valid block");
        self.note(&out);
        out.receipts.remove(0)
    }

    async fn ok(&mut self, to: Address, handler: &str, args: Vec<Value>) -> Value {
        let r = self.call(to, handler, args).await;
        assert!(r.success, "{handler} failed: {:?}", r.error);
        cbor::decode(&r.return_data).expect("cbor")
    }

    /// Empty blocks until the chain is at height `h`.
    async fn until(&mut self, h: u64) {
        while self.chain.height < h {
            let out = self.chain.block(&[]).await.expect("valid block");
            self.note(&out);
        }
    }

    async fn fired_log(&self, clock: &Address) -> Vec<(u64, u64)> {
        let Some(Value::Array(items)) = self.chain.storage(clock, &text("fired")).await else {
            panic!("no fired log")
        };
        items
            .into_iter()
            .map(|v| match v {
                Value::Array(p) => match p.as_slice() {
                    [Value::Uint(h), Value::Uint(d)] => (*h, *d),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect()
    }

    async fn stats(&mut self) -> (u64, u64) {
        let v = self.ok(SCHEDULER, "stats", vec![]).await;
        let Value::Map(m) = v else { panic!("{v:?}") };
        let get = |k: &str| {
            m.iter()
                .find(|(key, _)| *key == text(k))
                .and_then(|(_, v)| v.as_u64())
                .expect("field")
        };
        (get("pending"), get("basefee_cycles"))
    }
}

fn id_of(v: &Value) -> u64 {
    v.as_u64().expect("a timer id")
}

#[test]
fn a_timer_fires_once_at_its_height_as_the_scheduler_and_returns_its_deposit() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |_| {}).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let before = b.chain.account(&clock).await.balance;
        let due = b.chain.height + 5;
        let id = id_of(&b.ok(clock, "at", vec![int(due), int(42)]).await);
        let deposit = b.chain.params.timer_base_deposit_wei;
        assert_eq!(b.chain.account(&clock).await.balance, before - deposit);
        assert_eq!(b.chain.account(&SCHEDULER).await.balance, deposit);
        let shown = b.ok(SCHEDULER, "get", vec![int(id)]).await;
        assert!(matches!(&shown, Value::Map(_)), "{shown:?}");
        b.until(due + 3).await;
        assert_eq!(b.fired_log(&clock).await, vec![(due, 42)]);
        assert_eq!(b.fired.len(), 1);
        let (h, exec) = b.fired[0].clone();
        assert_eq!(
            (h, exec.timer_id, exec.due, exec.owner),
            (due, id, due, clock)
        );
        assert!(exec.receipt.success, "{:?}", exec.receipt.error);
        assert!(exec.receipt.fee_paid > 0);
        // Fired, removed, deposit back; the owner paid exactly the execution's fee.
        assert_eq!(b.ok(SCHEDULER, "get", vec![int(id)]).await, Value::Null);
        assert_eq!(b.chain.account(&SCHEDULER).await.balance, 0);
        assert_eq!(
            b.chain.account(&clock).await.balance,
            before - exec.receipt.fee_paid
        );
    });
}

#[test]
fn an_interval_keeps_its_phase_and_cancel_stops_it_and_refunds() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |_| {}).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let start = b.chain.height + 1; // the block the set_interval runs in
        let id = id_of(&b.ok(clock, "every", vec![int(3), int(7)]).await);
        b.until(start + 10).await;
        let heights: Vec<u64> = b.fired_log(&clock).await.iter().map(|f| f.0).collect();
        assert_eq!(heights, vec![start + 3, start + 6, start + 9]);
        let refund = b.ok(clock, "cancel", vec![int(id)]).await;
        assert_eq!(
            refund.as_u128(),
            Some(b.chain.params.timer_base_deposit_wei)
        );
        b.until(start + 20).await;
        assert_eq!(
            b.fired_log(&clock).await.len(),
            3,
            "cancelled: no more firings"
        );
        assert_eq!(b.stats().await.0, 0);
    });
}

#[test]
fn timer_errors_are_clear_and_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |p| p.timer_max_per_actor = 2).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let other = b.deploy(CLOCK, 2, vec![], ACTOR_FUNDS).await;
        let cases = [
            ("past", "ValueError", "is not after the current block"),
            ("now", "ValueError", "is not after the current block"),
            ("private", "ValueError", "is not a public handler name"),
            ("missing", "ValueError", "is not a method of this actor"),
            ("data", "TypeError", "timer data must be CBOR-encodable"),
            ("gba", "ValueError", "no Gas Bidding Agent is deployed at"),
        ];
        for (case, class, msg) in cases {
            let r = b.call(clock, "bad", vec![text(case)]).await;
            let e = r.error.expect(case);
            assert_eq!(e.class, class, "{case}: {e:?}");
            assert!(e.message.contains(msg), "{case}: {e:?}");
        }
        let r = b.call(clock, "cancel", vec![int(999)]).await;
        assert!(r
            .error
            .expect("unknown")
            .message
            .contains("no pending timer has id 999"));
        let h = b.chain.height;
        let theirs = id_of(&b.ok(other, "at", vec![int(h + 50), int(0)]).await);
        let r = b.call(clock, "cancel", vec![int(theirs)]).await;
        let e = r.error.expect("foreign");
        assert_eq!(e.class, "PermissionError");
        assert!(e.message.contains("belongs to"), "{e:?}");
        // The per-actor cap.
        b.ok(clock, "at", vec![int(h + 50), int(1)]).await;
        b.ok(clock, "at", vec![int(h + 50), int(2)]).await;
        let r = b.call(clock, "at", vec![int(h + 50), int(3)]).await;
        let e = r.error.expect("cap");
        assert_eq!(e.class, "RuntimeError");
        assert!(e.message.contains("already has 2 pending timers"), "{e:?}");
        // Only the three accepted timers exist; the refused ones left nothing behind.
        assert_eq!(b.stats().await.0, 3);
    });
}

#[test]
fn timers_beyond_the_ring_migrate_through_the_tiers_and_fire_on_time() {
    deterministic::Runner::default().start(|ctx| async move {
        // Ring 8 heights, epoch buckets of 4, overflow buckets of 16 heights.
        let mut b = Bench::new(ctx, |p| {
            p.timer_ring_blocks = 8;
            p.timer_epoch_buckets = 4;
        })
        .await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let h = b.chain.height + 1;
        let dues = [h + 3, h + 9, h + 13, h + 30, h + 47, h + 90];
        let tx: Vec<_> = dues
            .iter()
            .map(|d| b.call_tx(clock, "at", vec![int(*d), int(*d)]))
            .collect();
        let out = b.chain.block(&tx).await.expect("valid block");
        assert!(out.receipts.iter().all(|r| r.success));
        b.until(h + 95).await;
        let log = b.fired_log(&clock).await;
        assert_eq!(log, dues.iter().map(|d| (*d, *d)).collect::<Vec<_>>());
        assert_eq!(b.stats().await.0, 0);
    });
}

#[test]
fn due_timers_beyond_the_lane_roll_over_and_each_fires_exactly_once() {
    deterministic::Runner::default().start(|ctx| async move {
        // A timer lane of 1% of the cap: 200,000 cycles, two default bids' limits.
        let mut b = Bench::new(ctx, |p| p.timer_lane_bps = 100).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let due = b.chain.height + 3;
        b.ok(clock, "many", vec![int(due), int(12)]).await;
        b.until(due + 12).await;
        let log = b.fired_log(&clock).await;
        let mut data: Vec<u64> = log.iter().map(|f| f.1).collect();
        data.sort_unstable();
        assert_eq!(data, (0..12).collect::<Vec<_>>(), "each fired once");
        assert_eq!(log[0].0, due, "the first ran when due");
        // The lane held: no block ran more timer cycles than its budget, so the twelve took
        // several blocks (a timer is admitted while its limit fits in what the lane has left).
        let budget = b.chain.params.block_cycles_cap / 100;
        let mut per_block = std::collections::BTreeMap::<u64, u64>::new();
        for (h, t) in &b.fired {
            assert!(t.receipt.success);
            *per_block.entry(*h).or_default() += t.receipt.cycles_used;
        }
        assert!(per_block.values().all(|c| *c <= budget), "{per_block:?}");
        assert!(per_block.len() >= 3, "{per_block:?}");
        assert_eq!(b.stats().await.0, 0);
    });
}

#[test]
fn the_same_block_surcharge_doubles_each_timer_past_sixteen() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |_| {}).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let due = b.chain.height + 500;
        let mut cycles = Vec::new();
        for n in 14..=18u64 {
            let r = b.call(clock, "many", vec![int(due + n), int(n)]).await;
            assert!(r.success, "{:?}", r.error);
            cycles.push(r.cycles_used);
        }
        // One more timer per call; the marginal timer's extra price is the surcharge.
        let marginal: Vec<u64> = cycles.windows(2).map(|w| w[1] - w[0]).collect();
        let base = b.chain.params.set_timer_cycles;
        // 15th and 16th cost the base; the 17th twice; the 18th four times. (A few cycles
        // of Python overhead vary with the list's growth, and memory growth is owed in whole
        // 1 KiB chunks, 128 cycles each, so one call may cross one more chunk boundary than
        // the one before: a tolerance of 1% of the base plus one chunk.)
        let chunk = 1024 / cowboy_pvm::cost::ALLOC_BYTES_PER_CYCLE;
        let close = |got: u64, want: u64| got.abs_diff(want) <= base / 100 + chunk;
        assert!(close(marginal[1] - marginal[0], 0), "{marginal:?}");
        assert!(close(marginal[2] - marginal[1], base), "{marginal:?}");
        assert!(close(marginal[3] - marginal[2], 2 * base), "{marginal:?}");
        // Cancelling returns the deposit only: the surcharge cycles were paid and burned.
        let ids = b.ok(clock, "many", vec![int(due), int(1)]).await;
        let Value::Array(ids) = ids else { panic!() };
        let r = b.ok(clock, "cancel", vec![ids[0].clone()]).await;
        assert_eq!(r.as_u128(), Some(b.chain.params.timer_base_deposit_wei));
    });
}

#[test]
fn the_progressive_deposit_grows_with_an_actors_pending_timers() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |p| p.timer_deposit_step_count = 4).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let base = b.chain.params.timer_base_deposit_wei;
        let due = b.chain.height + 100;
        b.ok(clock, "many", vec![int(due), int(10)]).await;
        // Timers 0–3 pay 1×, 4–7 pay 2×, 8–9 pay 3×.
        let held = b.chain.account(&SCHEDULER).await.balance;
        assert_eq!(held, base * (4 + 4 * 2 + 2 * 3));
    });
}

#[test]
fn the_timer_basefee_rises_with_queue_depth_and_falls_back() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |p| p.timer_queue_target = 4).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let floor = b.chain.params.set_timer_cycles;
        assert_eq!(b.stats().await, (0, floor));
        let due = b.chain.height + 40;
        let ids = b.ok(clock, "many", vec![int(due), int(16)]).await;
        let mut fees = Vec::new();
        for _ in 0..4 {
            fees.push(b.stats().await.1);
        }
        assert!(fees.windows(2).all(|w| w[1] > w[0]), "{fees:?}");
        // Each set_timer now costs the risen basefee: the next one's price shows in cycles.
        let Value::Array(ids) = ids else { panic!() };
        for id in ids {
            b.ok(clock, "cancel", vec![id]).await;
        }
        b.until(b.chain.height + 60).await;
        assert_eq!(b.stats().await, (0, floor));
    });
}

#[test]
fn a_starved_actor_overtakes_an_actor_that_outbids_it_every_block() {
    let run = |boost_bps: u64| {
        deterministic::Runner::default().start(move |ctx| async move {
            // One timer per block: bids ask for 1M cycles, the lane holds 1.2M, and the
            // attacker's handler uses well over the 0.2M the lane has left after it.
            let mut b = Bench::new(ctx, |p| {
                p.timer_lane_bps = 600;
                p.timer_default_cycles_limit = 1_000_000;
                p.timer_starvation_boost_bps = boost_bps;
            })
            .await;
            let victim = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
            let attacker = b.deploy(CLOCK, 2, vec![], ACTOR_FUNDS).await;
            // The attacker's agent tips 5 wei per cycle: half the basefee of 10.
            let agent = b.deploy(AGENT, 3, vec![text("tip"), int(5)], 0).await;
            let flood = |b: &mut Bench| {
                // A fresh attacker timer due in the next block.
                let h = b.chain.height + 1;
                b.call_tx(
                    attacker,
                    "many",
                    vec![int(h + 1), int(1), addr(&agent), int(100_000)],
                )
            };
            let tx = flood(&mut b);
            let out = b.chain.block(&[tx]).await.expect("valid block");
            b.note(&out);
            let h = b.chain.height + 1;
            let tx_victim = b.call_tx(victim, "at", vec![int(h + 1), int(1)]);
            let tx = flood(&mut b);
            let out = b.chain.block(&[tx, tx_victim]).await.expect("valid block");
            b.note(&out);
            assert!(out.receipts.iter().all(|r| r.success), "{:?}", out.receipts);
            for _ in 0..30 {
                let tx = flood(&mut b);
                let out = b.chain.block(&[tx]).await.expect("valid block");
                b.note(&out);
                if !b.fired_log(&victim).await.is_empty() {
                    break;
                }
            }
            let attacker_runs = b.fired.iter().filter(|(_, t)| t.owner == attacker).count();
            (b.fired_log(&victim).await, attacker_runs)
        })
    };
    // 5% of the basefee per point of starvation: the victim passes a tip of half the basefee
    // after ~10 deferred blocks; without the boost it never runs.
    let (boosted, attacker_runs) = run(500);
    assert_eq!(boosted.len(), 1, "the starved timer ran");
    assert!(
        attacker_runs >= 10,
        "the attacker won the blocks before: {attacker_runs}"
    );
    let (starved, attacker_runs) = run(0);
    assert!(
        starved.is_empty(),
        "without the boost the attacker starves it"
    );
    assert!(attacker_runs >= 30, "{attacker_runs}");
}

#[test]
fn hostile_agents_get_the_default_bid_and_an_unpayable_bid_is_dropped() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |p| p.timer_unpaid_deferrals_max = 2).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let mut agents = Vec::new();
        for (i, mode) in ["loop", "raise", "garbage", "rich"].iter().enumerate() {
            agents.push(b.deploy(AGENT, 10 + i as u8, vec![text(mode)], 0).await);
        }
        let due = b.chain.height + 10;
        for (i, a) in agents.iter().enumerate() {
            b.ok(clock, "at", vec![int(due), int(i as u64), addr(a)])
                .await;
        }
        let before = b.chain.account(&clock).await.balance;
        b.until(due + 6).await;
        // loop, raise and garbage ran on the default bid; the looping agent's query cost the
        // owner its capped cycles.
        let mut ran: Vec<u64> = b.fired_log(&clock).await.iter().map(|f| f.1).collect();
        ran.sort_unstable();
        assert_eq!(ran, vec![0, 1, 2]);
        // "rich" bids 10^30 per cycle, beyond the owner's balance: deferred as unpaid, then
        // dropped with its deposit returned.
        let dropped: Vec<_> = b
            .fired
            .iter()
            .filter(|(_, t)| {
                t.receipt
                    .error
                    .as_ref()
                    .is_some_and(|e| e.class == "TimerDropped")
            })
            .collect();
        assert_eq!(dropped.len(), 1, "{:?}", b.fired);
        let event = &dropped[0].1.receipt.events[0];
        assert_eq!(
            (event.emitter, event.topic.as_str()),
            (SCHEDULER, "TimerDropped")
        );
        assert_eq!(
            dropped[0].0,
            due + 2,
            "dropped in its third unpaid block (max 2)"
        );
        assert_eq!(b.stats().await.0, 0);
        assert_eq!(b.chain.account(&SCHEDULER).await.balance, 0);
        let paid: u128 = b.fired.iter().map(|(_, t)| t.receipt.fee_paid).sum();
        assert_eq!(
            b.chain.account(&clock).await.balance,
            before - paid + 4 * b.chain.params.timer_base_deposit_wei
        );
    });
}

const HEARTBEAT: &str = include_str!("../../../../examples/actors/heartbeat.py");
const URGENCY: &str = include_str!("../../../../examples/actors/urgency_gba.py");

fn field(v: &Value, name: &str) -> Value {
    let Value::Map(m) = v else { panic!("{v:?}") };
    m.iter()
        .find(|(k, _)| *k == text(name))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {name} in {v:?}"))
}

#[test]
fn the_heartbeat_example_beats_on_schedule_from_its_own_balance_until_stopped() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |_| {}).await;
        let start = b.chain.height + 1;
        let hb = b.deploy(HEARTBEAT, 1, vec![int(5)], ACTOR_FUNDS).await;
        let funded = b.chain.account(&hb).await.balance;
        b.until(start + 31).await;
        let status = b.ok(hb, "status", vec![]).await;
        assert_eq!(field(&status, "beats"), int(6));
        assert_eq!(field(&status, "last"), int(start + 30));
        // Every beat ran from the timer, emitted its event and was paid by the actor.
        let beats: Vec<_> = b.fired.iter().filter(|(_, t)| t.owner == hb).collect();
        assert_eq!(beats.len(), 6);
        for (h, t) in &beats {
            assert_eq!(t.due, *h, "on time");
            assert!(t.receipt.success, "{:?}", t.receipt.error);
            assert_eq!(t.receipt.events[0].topic, "beat");
        }
        let fees: u128 = beats.iter().map(|(_, t)| t.receipt.fee_paid).sum();
        let deposit = b.chain.params.timer_base_deposit_wei;
        assert_eq!(b.chain.account(&hb).await.balance, funded - fees);
        assert_eq!(funded, ACTOR_FUNDS - deposit);
        // Only the deployer stops it; stopping refunds the deposit and the beats end.
        let tx = signed(&key(1), 0, Some(hb), 0, call("stop", vec![]));
        let out = b.chain.block(&[tx]).await.expect("valid block");
        b.note(&out);
        assert_eq!(
            out.receipts[0].error.as_ref().expect("refused").class,
            "PermissionError"
        );
        assert_eq!(b.ok(hb, "stop", vec![]).await.as_u128(), Some(deposit));
        let beats_then = b.fired.len();
        b.until(b.chain.height + 12).await;
        assert_eq!(b.fired.len(), beats_then, "no beat after stop");
    });
}

#[test]
fn the_urgency_agent_puts_its_timer_first_in_a_crowded_lane() {
    deterministic::Runner::default().start(|ctx| async move {
        // A lane of 300,000 cycles: the agent's 200,000-cycle bid and one or two default ones.
        let mut b = Bench::new(ctx, |p| p.timer_lane_bps = 150).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let gba = b.deploy(URGENCY, 2, vec![], 0).await;
        let start = b.chain.height + 1;
        let hb = b
            .deploy(HEARTBEAT, 3, vec![int(4), addr(&gba)], ACTOR_FUNDS)
            .await;
        // Eight default-bid timers due with the heartbeat's first beat (at start + 4).
        b.ok(clock, "many", vec![int(start + 4), int(8)]).await;
        b.until(start + 4).await;
        let first: Vec<_> = b.fired.iter().filter(|(h, _)| *h == start + 4).collect();
        assert_eq!(
            first[0].1.owner, hb,
            "the urgent timer ran first: {first:?}"
        );
        assert!(first[0].1.receipt.success);
        b.until(start + 12).await;
        // The default-bid timers still all ran, later.
        assert_eq!(b.fired_log(&clock).await.len(), 8);
    });
}

#[test]
fn a_handler_can_cancel_its_own_interval_and_chain_a_new_timer() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut b = Bench::new(ctx, |_| {}).await;
        let clock = b.deploy(CLOCK, 1, vec![], ACTOR_FUNDS).await;
        let start = b.chain.height + 1;
        b.ok(clock, "once_then_chain", vec![int(3)]).await;
        b.until(start + 12).await;
        assert_eq!(
            b.fired_log(&clock).await,
            vec![(start + 3, 3), (start + 5, 99)]
        );
        assert!(b.fired.iter().all(|(_, t)| t.receipt.success));
        assert_eq!(b.stats().await.0, 0);
        assert_eq!(
            b.chain.account(&SCHEDULER).await.balance,
            0,
            "both deposits returned"
        );
    });
}
