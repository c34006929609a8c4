//! Transaction traces (`cowboy_exec::trace`, `block::trace_transaction`): re-executing a
//! committed block's transaction on the state as of its parent (`StateDb::at`) gives the same
//! receipt as the block did (the tracer changes no cycle or cell count) and the call tree of
//! its handlers and messages, with their storage accesses, events and failures.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::block::trace_transaction;
use cowboy_exec::trace::{Frame, FrameKind, OtherLines, StorageOp, Trace, MAX_FRAME_LINES};
use cowboy_exec::BlockState;
use cowboy_types::cbor::{self, Value};
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, code_hash, Address, Hash32, Receipt, Transaction};

const RELAY: &str = include_str!("../../../../examples/actors/relay.py");

fn relay(salt: u8) -> Address {
    actor_address(&key(0).address(), &Hash32([salt; 32]), &code_hash(RELAY))
}

/// Commit `txs` as the next block, then trace its transaction `index` on the parent's state.
async fn block_and_trace(
    chain: &mut Chain,
    txs: &[Transaction],
    index: usize,
) -> (Receipt, Receipt, Trace) {
    let env = chain.env();
    let parent = chain.height;
    let outcome = chain.block(txs).await.expect("valid block");
    let view = chain.state.at(parent).await.expect("parent in the window");
    let mut state = BlockState::new(view.batch());
    let ordered: Vec<Transaction> = {
        // The block order `Chain::block` used: by order key, then nonce (one sender here).
        let mut t = txs.to_vec();
        t.sort_by_key(|t| t.nonce);
        t
    };
    let (receipt, trace) = trace_transaction(
        &mut state,
        &chain.params,
        env,
        &cowboy_exec::system::staking::CheckedVotes::none(),
        &ordered,
        index,
    )
    .expect("state")
    .expect("the block's transactions are valid on its parent");
    (outcome.receipts[index].clone(), receipt, trace)
}

/// A frame's lines summed, the folded ones included.
fn line_sums(frame: &Frame) -> (u64, u64) {
    frame
        .lines
        .iter()
        .map(|(_, c)| c)
        .chain([&frame.other_lines.cost])
        .fold((0, 0), |(y, c), l| (y + l.cycles, c + l.cells))
}

#[test]
fn a_handler_of_many_lines_reports_its_costliest_and_sums_the_rest() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        // 150 statements, one a line, and one line that loops: the loop must be listed.
        let mut source = String::from("class Actor:\n    def run(self):\n        x = 0\n");
        for i in 0..150 {
            source.push_str(&format!("        x = x + {i}\n"));
        }
        source.push_str("        for i in range(200):\n            x = x + i\n        return x\n");
        let salt = 9;
        let actor = actor_address(&key(0).address(), &Hash32([salt; 32]), &code_hash(&source));
        let tx = signed(
            &key(0),
            0,
            None,
            0,
            deploy(&source, salt, Value::Array(vec![])),
        );
        assert!(chain.block(&[tx]).await.expect("deploy").receipts[0].success);
        let run = signed(&key(0), 1, Some(actor), 0, call("run", vec![]));
        let (mined, traced, trace) = block_and_trace(&mut chain, &[run], 0).await;
        assert!(mined.success, "{:?}", mined.error);
        assert_eq!(traced, mined);
        let frame = &trace.frames[0];
        assert_eq!(frame.lines.len(), MAX_FRAME_LINES, "{frame:#?}");
        assert!(frame.other_lines.count > 0, "{frame:#?}");
        // Lines 1 to 156 ran (class, def, 151 assignments, the loop's two, the return).
        assert!(
            frame.lines.len() as u64 + frame.other_lines.count >= 156,
            "{frame:#?}"
        );
        assert_eq!(line_sums(frame), (frame.cycles, frame.cells));
        let loop_body = 3 + 150 + 2;
        assert!(
            frame.lines.iter().any(|(l, _)| *l == loop_body),
            "the loop body is among the costliest: {:?}",
            frame.lines
        );
        assert!(
            frame.lines.windows(2).all(|w| w[0].0 < w[1].0),
            "in line order"
        );
    });
}

#[test]
fn a_trace_is_the_call_tree_and_changes_no_count() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        for (nonce, salt) in [(0, 1), (1, 2)] {
            let tx = signed(
                &key(0),
                nonce,
                None,
                0,
                deploy(RELAY, salt, Value::Array(vec![])),
            );
            assert!(chain.block(&[tx]).await.expect("deploy").receipts[0].success);
        }
        let (a, b) = (relay(1), relay(2));
        let pay = signed(&key(0), 2, Some(b), 5, Payload::Transfer);
        let ping = signed(
            &key(0),
            3,
            Some(a),
            0,
            call("ping", vec![Value::Text(b.to_checksum()), Value::Uint(2)]),
        );
        let (mined, traced, trace) = block_and_trace(&mut chain, &[pay, ping], 1).await;
        assert!(mined.success, "{:?}", mined.error);
        assert_eq!(traced, mined, "the traced run is the run the block made");

        // a.ping → b.ping → a.ping, each sent by the one before.
        let f = &trace.frames;
        assert_eq!(f.len(), 3, "{f:#?}");
        assert_eq!(
            (f[0].parent, f[0].kind, f[0].to, f[0].from),
            (None, FrameKind::Call, a, key(0).address())
        );
        assert_eq!(
            (f[1].parent, f[1].kind, f[1].to, f[1].from, f[1].depth),
            (Some(0), FrameKind::Message, b, a, 1)
        );
        assert_eq!(
            (f[2].parent, f[2].kind, f[2].to, f[2].depth),
            (Some(1), FrameKind::Message, a, 2)
        );
        let hops = cbor::encode(&Value::Text("hops".into()));
        for frame in f {
            assert_eq!(frame.handler, "ping");
            assert!(frame.cycles > 0 && frame.cells > 0, "{frame:#?}");
            // The SDK reads its attribute record first, then `hops` (1 byte of CBOR).
            let first = frame.storage.iter().find(|s| s.key == hops).expect("hops");
            assert!(matches!(first.op, StorageOp::Read(Some(1))), "{frame:#?}");
            assert!(frame
                .storage
                .iter()
                .any(|s| s.key == hops && matches!(s.op, StorageOp::Write(1))));
            assert!(matches!(frame.outcome, Some(Ok(_))));
            // Its costs by source line sum to its totals; `hops += 1` (line 12) is among them
            // with the cells of its storage write.
            assert_eq!(line_sums(frame), (frame.cycles, frame.cells), "{frame:#?}");
            let hops_line = frame.lines.iter().find(|(l, _)| *l == 12).expect("line 12");
            assert!(
                hops_line.1.cycles > 0 && hops_line.1.cells > 0,
                "{frame:#?}"
            );
            assert_eq!(frame.other_lines, OtherLines::default());
        }
        assert_eq!(
            f[2].outcome,
            Some(Ok(cbor::encode(&Value::Uint(2)))),
            "a's second ping: hops 2"
        );
        let own: u64 = f.iter().map(|x| x.cycles).sum();
        assert!(
            own < mined.cycles_used,
            "handlers' cycles exclude the intrinsic cost"
        );

        // A failing message: the failure sits in its own frame, with the line.
        let fail = signed(
            &key(0),
            4,
            Some(a),
            0,
            call(
                "fail_after",
                vec![Value::Text(b.to_checksum()), Value::Uint(1)],
            ),
        );
        let (mined, traced, trace) = block_and_trace(&mut chain, &[fail], 0).await;
        assert!(!mined.success);
        assert_eq!(traced, mined);
        let f = &trace.frames;
        assert_eq!(f.len(), 2, "{f:#?}");
        assert!(matches!(f[0].outcome, Some(Ok(_))));
        match &f[1].outcome {
            Some(Err(e)) => {
                assert_eq!(e.class, "RuntimeError");
                assert!(e.line.is_some(), "{e:?}");
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    });
}
