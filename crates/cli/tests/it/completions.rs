//! `cowboy completions SHELL` (issue 19, item 2): a script for every shell clap_complete knows,
//! naming the commands; bash's is checked by bash itself (it parses, and sourcing it registers
//! a completion for `cowboy` that completes subcommands).

use std::process::Command;

use crate::support::{cowboy, run};

fn script(shell: &str) -> String {
    let home = tempfile::tempdir().expect("tmp");
    let mut c = cowboy(home.path());
    c.args(["completions", shell]);
    run(c).ok().to_string()
}

#[test]
fn every_shell_gets_a_script_naming_the_commands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let s = script(shell);
        for command in ["estimate", "trace", "completions", "deploy"] {
            assert!(s.contains(command), "{shell} script lacks {command}");
        }
    }
    let home = tempfile::tempdir().expect("tmp");
    let mut c = cowboy(home.path());
    c.args(["completions", "tcsh"]);
    let r = run(c);
    assert!(r.err().contains("possible values"), "{}", r.err());
}

#[test]
fn the_bash_script_completes_subcommands_in_bash() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("cowboy.bash");
    std::fs::write(&path, script("bash")).expect("write");
    // Source it, then ask its completion function what follows `cowboy est`.
    let probe = format!(
        "source {}; COMP_WORDS=(cowboy est); COMP_CWORD=1; COMP_LINE='cowboy est'; \
         COMP_POINT=${{#COMP_LINE}}; _cowboy cowboy est cowboy; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = Command::new("bash")
        .args(["--norc", "-c", &probe])
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim(), "estimate", "{stdout}");
}
