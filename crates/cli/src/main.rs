//! The `cowboy` command line.

fn main() {
    eprintln!("cowboy: no commands yet");
    std::process::exit(2);
}
