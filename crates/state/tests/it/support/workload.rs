//! A deterministic block workload, shared by the `state-crash-writer` binary and the tests:
//! block `h` always makes the same writes (accounts, storage with committed and rolled-back
//! checkpoints, deletes, code), so the root after block `h` is a pure function of `h`.

use cowboy_state::verifier::keys::code_hash;
use cowboy_state::verifier::Account;
use cowboy_state::{BlockStore, Context, Root, StateDb, StateError};

/// Address of test account `i`.
pub fn addr(i: u64) -> [u8; 20] {
    let mut a = [0u8; 20];
    a[..8].copy_from_slice(&i.to_be_bytes());
    a[8] = 0xC0;
    a
}

/// Canonical bytes of test block `h` (opaque to the store).
pub fn block_bytes(height: u64) -> Vec<u8> {
    format!("block {height} payload").into_bytes()
}

/// Hash of test block `h`.
pub fn block_hash(height: u64) -> [u8; 32] {
    code_hash(&block_bytes(height))
}

/// Hashes of the transactions of test block `h` (`h % 4` of them).
pub fn tx_hashes(height: u64) -> Vec<[u8; 32]> {
    (0..height % 4)
        .map(|i| code_hash(format!("tx {height} {i}").as_bytes()))
        .collect()
}

/// Receipts of test block `h`, one per transaction.
pub fn receipts(height: u64) -> Vec<Vec<u8>> {
    (0..height % 4)
        .map(|i| format!("receipt {height} {i}").into_bytes())
        .collect()
}

/// Timer executions of test block `h` (`h % 3` of them), each with its hash.
pub fn timer_executions(height: u64) -> Vec<([u8; 32], Vec<u8>)> {
    (0..height % 3)
        .map(|i| {
            let bytes = format!("timer execution {height} {i}").into_bytes();
            (code_hash(&bytes), bytes)
        })
        .collect()
}

/// The hook events record of test block `height` (every fourth block has one).
pub fn hook_events(height: u64) -> Option<Vec<u8>> {
    (height % 4 == 1).then(|| format!("hook events {height}").into_bytes())
}

/// Store test block `h` in `blocks` unless it is already there (a crash may have stopped the
/// writer between storing the block and committing its state).
pub async fn store_block<E: Context>(
    blocks: &mut BlockStore<E>,
    height: u64,
) -> Result<(), StateError> {
    if blocks.next_height()? == height {
        blocks
            .append(
                height,
                block_hash(height),
                &block_bytes(height),
                &tx_hashes(height),
                &receipts(height),
                &timer_executions(height),
                hook_events(height).as_deref(),
            )
            .await?;
    }
    Ok(())
}

/// Execute test block `h` against `state` and commit it.
pub async fn apply_block<E: Context>(
    state: &mut StateDb<E>,
    height: u64,
) -> Result<Root, StateError> {
    let mut batch = state.batch();
    for j in 0..6u64 {
        let i = (height * 5 + j * 13) % 48;
        let mut account = batch.account(&addr(i)).await?.unwrap_or(Account::default());
        account.balance += u128::from(height + j);
        account.nonce += 1;
        batch.set_account(&addr(i), &account).await?;

        // A handler that sometimes fails: its storage write must vanish with it.
        let cp = batch.checkpoint();
        let key = format!("slot{}", (height + j) % 7);
        batch
            .set_storage(
                &addr(i),
                key.as_bytes(),
                format!("v{height}.{j}").as_bytes(),
            )
            .await?;
        if (height + j).is_multiple_of(3) {
            batch.rollback(cp)?;
        } else {
            batch.release(cp)?;
        }
        if (height + j).is_multiple_of(5) {
            let old = format!("slot{}", (height + j + 3) % 7);
            batch.delete_storage(&addr(i), old.as_bytes()).await?;
        }
    }
    if height.is_multiple_of(10) {
        batch
            .put_code(format!("def handler_{height}(msg):\n    return msg\n").as_bytes())
            .await?;
    }
    let changes = batch.finish();
    state.commit(height, changes).await
}
