//! Peers found from a bootstrap list (issue 17, item 6) over four real `cowboyd` validators,
//! all moved off the p2p ports their genesis entries name, so the genesis addresses lead
//! nowhere: three know each other's new addresses; the fourth, given one `--bootstrap
//! KEY@HOST:PORT`, reaches that peer, and it and the other two learn each other's addresses
//! from discovery's signed announcements; it catches up and votes:
//! with its bootstrap peer stopped, it and the other two still finalize (a quorum of four
//! needs all three).

use super::*;

/// `--bootstrap` of validator `i` listening on `port`.
fn bootstrap_arg(i: usize, port: u16) -> String {
    use commonware_codec::Encode;
    use commonware_cryptography::Signer;
    let (_, key) = ValidatorNetwork::key(i);
    format!(
        "{}@127.0.0.1:{port}",
        hex::encode(key.public_key().encode())
    )
}

#[test]
fn a_validator_finds_moved_peers_from_one_bootstrap_peer() {
    let dir = tempfile::tempdir().unwrap();
    let net = ValidatorNetwork::new(dir.path(), 4);
    // Validators 1, 2 and 3 listen on new ports and know each other's (the genesis ones are
    // stale); they alone are a quorum, so the chain runs.
    let moved: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let peers = |me: usize| -> Vec<String> {
        (1..4)
            .filter(|&j| j != me)
            .flat_map(|j| ["--bootstrap".to_string(), bootstrap_arg(j, moved[j - 1])])
            .collect()
    };
    let mut nodes: Vec<Option<Node>> = vec![None];
    for i in 1..4 {
        let args = peers(i);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        nodes.push(Some(net.start_args(i, moved[i - 1], &args)));
    }
    let node = |nodes: &[Option<Node>], i: usize| nodes[i].as_ref().unwrap().handle();
    wait_height(&node(&nodes, 1), 5);

    // Validator 0 moved too (so no one reaches it at its genesis address either), told of
    // validator 1 alone.
    let only = bootstrap_arg(1, moved[0]);
    nodes[0] = Some(net.start_args(0, free_port(), &["--bootstrap", &only]));
    let head = node(&nodes, 1).height();
    wait_height(&node(&nodes, 0), head);

    // Validator 1 stops: 0, 2 and 3 are the only quorum left (three votes of four), so
    // every block after needs 0's vote, reaching 2 and 3 at addresses it had only from
    // their announcements.
    nodes[1].take().unwrap().kill9();
    let from = node(&nodes, 0).height();
    let target = from + 10;
    for i in [0, 2, 3] {
        wait_height(&node(&nodes, i), target);
    }
    let expected = node(&nodes, 2).rpc("cowboy_getBlockByNumber", json!([target, false]));
    for i in [0, 3] {
        let b = node(&nodes, i).rpc("cowboy_getBlockByNumber", json!([target, false]));
        assert_eq!(b["hash"], expected["hash"], "validator {i} at {target}");
        assert_eq!(
            b["stateRoot"], expected["stateRoot"],
            "validator {i} at {target}"
        );
    }
}
