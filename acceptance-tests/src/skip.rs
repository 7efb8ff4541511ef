//! Honest skips. libtest has no runtime skip: a test that returns early is
//! reported `ok`. A test that cannot run in a lane, or that only met known
//! failures, calls [`skip`] with the reason. That prints a `SKIPPED:` line
//! straight to stderr (libtest does not capture it) and appends one line to
//! `EKSGPU_SKIP_LOG`, from which `scripts/test` moves the test from passed to
//! skipped and prints `N passed, N failed, N skipped`.

use std::io::Write;

fn record(line: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: {line}");
    if let Some(path) = std::env::var_os("EKSGPU_SKIP_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path)
    {
        // One line per skipped test: the runner counts lines.
        let one_line: Vec<&str> = line.lines().map(str::trim).collect();
        let _ = writeln!(f, "{}", one_line.join(" | "));
    }
}

/// The running test's name (libtest names each test's thread after it).
fn test_name() -> String {
    std::thread::current().name().unwrap_or("?").to_owned()
}

/// Records the running test as skipped, with why; call it once, last.
pub fn skip(reason: &str) {
    record(&format!("{}: {reason}", test_name()));
}
