//! Start-up benchmark of the toolbox face (run through bench/toolbox.sh).
//!
//! Spawns the release binary for `TOOLBOX_ACTION=execute` on a 4-option input
//! and for `describe`, interleaved run by run with `/bin/true` so that all
//! three see the same machine load, and prints medians and ratios.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time_once(program: &str, action: Option<&str>, input: Option<&str>) -> Duration {
    let mut cmd = Command::new(program);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    match input {
        Some(path) => cmd.stdin(File::open(path).expect("bench input")),
        None => cmd.stdin(Stdio::null()),
    };
    if let Some(action) = action {
        cmd.env("TOOLBOX_ACTION", action);
    }
    let start = Instant::now();
    let status = cmd.status().expect("spawn");
    let elapsed = start.elapsed();
    assert!(status.success(), "{program} {action:?} failed");
    elapsed
}

fn main() {
    // The binary bench/toolbox.sh just built: a path guessed from a target
    // folder could be a stale binary (another CARGO_TARGET_DIR, another target).
    let Ok(bin) = std::env::var("ASK_USER_BIN") else {
        eprintln!("set ASK_USER_BIN to the release binary, or run bench/toolbox.sh");
        std::process::exit(2);
    };
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/four-options.json");
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let (mut base, mut execute, mut describe) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..20 {
        time_once(&bin, Some("execute"), Some(input)); // warm the page cache
    }
    for i in 0..runs {
        // Rotate the order so no command always runs right after another.
        for slot in 0..3 {
            match (i + slot) % 3 {
                0 => base.push(time_once("/bin/true", None, None)),
                1 => execute.push(time_once(&bin, Some("execute"), Some(input))),
                _ => describe.push(time_once(&bin, Some("describe"), None)),
            }
        }
    }
    let (base, execute, describe) = (median(base), median(execute), median(describe));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("runs each (interleaved): {runs}");
    println!("/bin/true          median {:.3} ms", ms(base));
    println!(
        "execute (4 options) median {:.3} ms  ratio {:.2}x /bin/true",
        ms(execute),
        ms(execute) / ms(base)
    );
    println!(
        "describe           median {:.3} ms  ratio {:.2}x /bin/true",
        ms(describe),
        ms(describe) / ms(base)
    );
    println!(
        "targets: execute <= 1.2x /bin/true: {}; execute < 2 ms: {}",
        if ms(execute) <= 1.2 * ms(base) {
            "met"
        } else {
            "NOT met"
        },
        if ms(execute) < 2.0 { "met" } else { "NOT met" }
    );
}
