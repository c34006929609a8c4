//! The block explorer (issue 19, item 7) in a real headless browser: Debian's `chromium` loads
//! the pages a real `cowboyd --dev` serves on its RPC port, runs their script against the
//! node's JSON-RPC and WebSocket, and prints the resulting DOM (`--dump-dom`), which the test
//! reads. The chain holds an actor whose source, storage, event data and error message carry
//! markup and script; the test checks that every page shows them as text and that none of it
//! became an element or ran.
//!
//! Without a browser the test says so and passes, unless `COWBOY_REQUIRE_CHROMIUM` is set
//! (`scripts/test` sets it and installs chromium). With `COWBOY_EXPLORER_SCREENSHOTS=DIR` it
//! also writes a PNG of each page to `DIR` (the ones in `crates/node/docs/explorer/`).

use super::*;

/// Markup that would show up as an element if the explorer ever parsed chain data as HTML, and
/// script that would retitle the page if it ever ran.
const INJECTED: &str = r#"<b id="injected">x</b><img src=x onerror="document.title='PWNED'">"#;

const EVIL: &str = r#""""An actor whose strings are hostile markup: <b id="injected">doc</b>"""
from cowboy_sdk import actor, emit_event

# </pre><script>document.title = 'PWNED'</script><b id="injected">comment</b>
@actor
class Evil:
    def __init__(self, note):
        self.storage["note"] = note

    def shout(self, text):
        emit_event("Shout", {"text": text})
        self.storage["last"] = text
        return len(text)

    def fail(self, text):
        raise ValueError(text)
"#;

/// The browser to drive, if this machine has one.
fn chromium() -> Option<std::path::PathBuf> {
    let names = ["chromium", "chromium-browser", "google-chrome"];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

struct Browser {
    exe: std::path::PathBuf,
    profile: tempfile::TempDir,
    screenshots: Option<std::path::PathBuf>,
}

impl Browser {
    fn headless(&self) -> Command {
        let mut c = Command::new(&self.exe);
        // No sandbox: CI runs as root, where chromium refuses it. No /dev/shm: a container's
        // is often too small for the renderer.
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", self.profile.path().display()))
        // Virtual time: the DOM is taken once the page's clock has run this far, and that
        // clock stands still while a fetch is pending, so every RPC answer the script asked
        // for is in; the test itself waits on no wall clock.
        .arg("--virtual-time-budget=15000")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
        c
    }

    /// The DOM of `url` once its script has settled, and a screenshot `shot` if screenshots
    /// were asked for and the page is worth one (search pages land on pages already shot).
    fn page(&self, url: &str, name: &str, shot: bool) -> String {
        let out = self
            .headless()
            .args(["--dump-dom", url])
            .output()
            .expect("run chromium");
        assert!(out.status.success(), "chromium failed on {url}");
        let dom = String::from_utf8(out.stdout).expect("utf-8 DOM");
        if let Some(dir) = self.screenshots.as_ref().filter(|_| shot) {
            let png = dir.join(format!("{name}.png"));
            let shot = self
                .headless()
                .arg(format!("--screenshot={}", png.display()))
                .args(["--window-size=1280,1100", url])
                .stdout(Stdio::null())
                .status()
                .expect("run chromium");
            assert!(shot.success() && png.is_file(), "no screenshot of {url}");
        }
        // Nothing the chain returned became markup, and no injected script ran.
        assert!(
            !dom.contains(r#"<b id="injected""#),
            "{name}: chain data became markup:\n{dom}"
        );
        assert!(
            !dom.contains("<img src=\"x\""),
            "{name}: chain data became markup"
        );
        assert!(
            !dom.contains("PWNED</title>"),
            "{name}: injected script ran"
        );
        assert!(
            dom.contains("<title>Cowboy explorer</title>"),
            "{name}: {dom}"
        );
        dom
    }
}

/// `text` as the browser serializes a text node: `&`, `<` and `>` escaped, quotes kept.
fn as_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `text` inside a JSON string the page shows (event data, storage values) as a text node.
fn as_json_text(text: &str) -> String {
    as_text(&text.replace('"', "\\\""))
}

#[test]
fn explorer_pages_render_the_chain_in_a_headless_browser_and_never_run_its_strings() {
    let Some(exe) = chromium() else {
        assert!(
            std::env::var_os("COWBOY_REQUIRE_CHROMIUM").is_none(),
            "COWBOY_REQUIRE_CHROMIUM is set but no chromium is on PATH"
        );
        eprintln!("SKIPPED explorer browser test: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let screenshots = std::env::var_os("COWBOY_EXPLORER_SCREENSHOTS").map(std::path::PathBuf::from);
    if let Some(dir) = &screenshots {
        std::fs::create_dir_all(dir).unwrap();
    }
    let browser = Browser {
        exe,
        profile: tempfile::tempdir().unwrap(),
        screenshots,
    };
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start_with(dir.path(), &["--dev", "--block-time", "0"], free_port());

    let deploy = signed(
        &node,
        &dev_key(0),
        None,
        0,
        Payload::Deploy {
            source: EVIL.into(),
            salt: Hash32([9; 32]),
            init_args: Value::Array(vec![Value::Text(format!("storage {INJECTED}"))]),
        },
    );
    let r = submit_and_wait(&node, &deploy);
    assert_eq!(r["success"], json!(true), "{r}");
    let actor = r["contractAddress"].as_str().unwrap().to_string();
    let shout = call(
        &node,
        &actor,
        "shout",
        vec![Value::Text(format!("event {INJECTED}"))],
    );
    assert_eq!(shout["success"], json!(true), "{shout}");
    let fail = call(
        &node,
        &actor,
        "fail",
        vec![Value::Text(format!("error {INJECTED}"))],
    );
    assert_eq!(fail["success"], json!(false), "{fail}");
    let transfer = signed(
        &node,
        &dev_key(0),
        Some(dev_key(1).address()),
        5,
        Payload::Transfer,
    );
    let transfer = submit_and_wait(&node, &transfer);
    let head = node.height();
    let base = node.url.clone();
    let hash = |r: &Json| r["transactionHash"].as_str().unwrap().to_string();

    // Home: the latest blocks and the transactions in them.
    let dom = browser.page(&format!("{base}/"), "home", true);
    assert!(dom.contains(&format!("Chain head: block {head}")), "{dom}");
    for tx in [&shout, &fail, &transfer] {
        assert!(
            dom.contains(&format!("href=\"#/tx/{}\"", hash(tx))),
            "{dom}"
        );
    }

    // The actor: highlighted source, a storage entry with its proof status, its events.
    let dom = browser.page(&format!("{base}/#/address/{actor}?key=note"), "actor", true);
    assert!(dom.contains("<span class=\"tok-kw\">class</span>"), "{dom}");
    assert!(dom.contains("<span class=\"tok-def\">Evil</span>"), "{dom}");
    assert!(
        dom.contains(&as_text(r#"<b id="injected">comment</b>"#)),
        "{dom}"
    );
    assert!(
        dom.contains(&as_json_text(&format!("storage {INJECTED}"))),
        "{dom}"
    );
    assert!(dom.contains(&format!("= header of block {head}")), "{dom}");
    assert!(dom.contains("not verified in the browser"), "{dom}");
    assert!(dom.contains("Shout"), "{dom}");

    // A call with an event and its trace tree.
    let dom = browser.page(
        &format!("{base}/#/tx/{}", hash(&shout)),
        "transaction",
        true,
    );
    assert!(dom.contains("<span class=\"ok\">success</span>"), "{dom}");
    assert!(
        dom.contains(&as_json_text(&format!("event {INJECTED}"))),
        "{dom}"
    );
    assert!(dom.contains("<div id=\"trace\">"), "{dom}");
    assert!(dom.contains(".shout"), "{dom}");

    // A failed call: its error and the failing line of the actor's source.
    let dom = browser.page(
        &format!("{base}/#/tx/{}", hash(&fail)),
        "failed-transaction",
        true,
    );
    assert!(dom.contains("<div id=\"traceback\">"), "{dom}");
    assert!(
        dom.contains(&as_text(&format!("ValueError: error {INJECTED}"))),
        "{dom}"
    );
    assert!(
        dom.contains("<span class=\"line hit\"><span class=\"lineno\">16</span>"),
        "{dom}"
    );

    // A block, and search by height, address and hash.
    let height = shout["blockHeight"].as_u64().unwrap();
    let dom = browser.page(&format!("{base}/#/block/{height}"), "block", true);
    assert!(dom.contains(&format!("<h1>Block {height}</h1>")), "{dom}");
    // Its hook events (a dev chain's first boundary is 3,600 blocks away: none).
    assert!(dom.contains("<h2>Hook events (0)</h2>"), "{dom}");
    assert!(
        dom.contains(&format!("href=\"#/tx/{}\"", hash(&shout))),
        "{dom}"
    );
    // A block's vote record (from height 3): its signers named by the epoch's set.
    let voted = fail["blockHeight"].as_u64().unwrap();
    assert!(
        voted >= 3,
        "the dev node records votes from height 3; {fail}"
    );
    let set = node.rpc("cowboy_getValidatorSet", json!([]));
    let validator = set["members"][0]["validator"]["bytes"]
        .as_str()
        .unwrap()
        .to_string();
    let dom = browser.page(&format!("{base}/#/block/{voted}"), "block-votes", false);
    assert!(dom.contains("<h2>Votes (1 of 1)</h2>"), "{dom}");
    assert!(
        dom.contains(&format!("href=\"#/address/{validator}\"")),
        "{dom}"
    );
    let found = browser.page(
        &format!("{base}/#/search/{}", hash(&transfer)),
        "search-hash",
        false,
    );
    assert!(found.contains("<h1>Transaction"), "{found}");
    let found = browser.page(&format!("{base}/#/search/{actor}"), "search-address", false);
    assert!(found.contains("<h1>Actor"), "{found}");
    let missing = browser.page(
        &format!("{base}/#/search/0x{}", "ab".repeat(32)),
        "search-missing",
        false,
    );
    assert!(missing.contains("<h1>Not found</h1>"), "{missing}");
}
